import { Readable } from 'node:stream';
import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/domain/environment.js';
import type { ImportOptions } from '../../src/services/portability/import.service.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * The import job over its file: JSON Lines and CSV, every refusal with its row and reason (never
 * the number), tokens kept or remapped, a second run importing nothing twice, encrypted and signed
 * files, and a whole file refused before anything is written.
 */

const VISA = '4111111111111111';
const MASTER = '5555555555554444';
const AMEX = '378282246310005';
const DISCOVER = '6011111111111117';
const LUHN_BAD = '4111111111111112';

const line = (value: Record<string, unknown>) => JSON.stringify(value);
const card = (token: string | undefined, number: string, extra: Record<string, unknown> = {}) =>
  line({ ...(token === undefined ? {} : { token }), payment_method_type: 'credit_card', credit_card: { number, month: 5, year: 2039, first_name: 'Ada', last_name: 'L' }, ...extra });

describe.each(storeKinds)('import job (%s)', (store) => {
  let server: TestServer;
  let environment: Environment;

  beforeAll(async () => {
    server = await startServer({ store });
    environment = await server.core.tenancy.requireEnvironment(server.init.environment_key);
  });
  afterAll(() => server.close());

  async function runImport(file: string | Uint8Array, options: ImportOptions = {}) {
    const job = await server.core.imports.start(environment);
    return server.core.imports.run(environment, job, () => Readable.from([Buffer.from(file)]), options);
  }

  it('imports JSON Lines, reports every refused row by number and reason, and a second run duplicates nothing', async () => {
    const file = [
      card('JsonlTokenA1', VISA, { created_at: '2020-01-02T03:04:05Z', email: 'a@example.com', metadata: { k: 'v' }, network_transaction_ids: { stripe: 'NTI9' } }),
      '{not json',
      card('JsonlTokenA3', MASTER, { credit_card: { number: MASTER, month: 5, year: 2039, verification_value: '123' } }),
      card('JsonlTokenA4', LUHN_BAD),
      card('JsonlTokenA5', AMEX, { credit_card: { number: AMEX, month: 5, year: 2001 } }),
      card('JsonlTokenA6', AMEX, { colour: 'blue' }),
      '',
      card('bad-token_7', DISCOVER),
      line({ token: 'JsonlBank9', payment_method_type: 'bank_account', bank_account: { bank_routing_number: '021000021', bank_account_number: '9876543210', first_name: 'A', last_name: 'B' } }),
      card('JsonlTokenA1', MASTER),
    ].join('\n');
    const job = await runImport(file);
    expect(job.state).toBe('succeeded');
    expect(job.format).toBe('jsonl');
    const { report } = job;
    expect(report).toMatchObject({ rows: 10, imported: 3, skipped: 0, rejected: 6 });
    expect(report.rejections).toEqual([
      { row: 2, reason: 'malformed' },
      { row: 3, reason: 'cvv_present', field: 'credit_card.verification_value' },
      { row: 4, reason: 'luhn', field: 'number' },
      { row: 5, reason: 'expiry', field: 'year' },
      { row: 6, reason: 'unknown_field', field: 'colour' },
      { row: 10, reason: 'token_taken', field: 'token' },
    ]);
    expect(report.remapped).toHaveLength(1);
    expect(report.remapped[0]).toMatchObject({ row: 8, old_token: 'bad-token_7' });
    const newToken = report.remapped[0]?.new_token as string;
    expect(newToken).toMatch(/^[A-Za-z0-9]{20,29}$/);
    const serialized = JSON.stringify(job);
    for (const number of [VISA, MASTER, AMEX, DISCOVER, LUHN_BAD, '9876543210']) expect(serialized).not.toContain(number);

    const shown = await server.client.get(`/v1/payment_methods/JsonlTokenA1.json`);
    expect(shown.json().payment_method).toMatchObject({ email: 'a@example.com', metadata: { k: 'v' }, created_at: '2020-01-02T03:04:05Z', last_four_digits: '1111' });
    expect((await server.client.get(`/v1/payment_methods/${newToken}.json`)).json().payment_method.last_four_digits).toBe('1117');

    // Again: nothing new, the same new token.
    const again = await runImport(file);
    expect(again.report).toMatchObject({ rows: 10, imported: 0, skipped: 3, rejected: 6 });
    expect(again.report.remapped).toEqual(report.remapped);
    const count = await server.core.store.db.selectFrom('transactions').select(({ fn }) => fn.countAll().as('n')).where('transaction_type', '=', 'ImportPaymentMethod').executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(3);
  });

  it('imports CSV with named columns, and refuses a file with an unknown column before anything', async () => {
    const csv = ['token,number,month,year,first_name,last_name,cvv,metadata,zip', `CsvTokenB1,${VISA},6,2040,Grace,Hopper,,"{""a"":1}",27701`, `CsvTokenB2,${MASTER},6,2040,Grace,Hopper,999,,`, `CsvTokenB3,${AMEX},6,2040,Grace`, `CsvTokenB4,${DISCOVER},13,2040,,,,,`].join('\n');
    const job = await runImport(csv);
    expect(job.format).toBe('csv');
    expect(job.report).toMatchObject({ rows: 4, imported: 1, rejected: 3 });
    expect(job.report.rejections).toEqual([
      { row: 2, reason: 'cvv_present', field: 'credit_card.cvv' },
      { row: 3, reason: 'malformed' },
      { row: 4, reason: 'expiry', field: 'month' },
    ]);
    expect((await server.client.get('/v1/payment_methods/CsvTokenB1.json')).json().payment_method).toMatchObject({ metadata: { a: 1 }, zip: '27701', first_name: 'Grace' });

    const refused = await runImport(`token,number,pan_hint\nCsvTokenB9,${VISA},x`);
    expect(refused).toMatchObject({ state: 'failed', error: 'Unknown CSV column(s): "pan_hint"', report: { imported: 0 } });
    expect((await server.client.get('/v1/payment_methods/CsvTokenB9.json')).status).toBe(404);
  });

  it('decrypts a file encrypted to the import key; refuses another key, and an unsigned file when a signature is required', async () => {
    const { armored } = await server.core.importKeys.publicKey(environment.key);
    expect(armored).toContain('-----BEGIN PGP PUBLIC KEY BLOCK-----');
    const recipient = await openpgp.readKey({ armoredKey: armored });
    const sender = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'sender' }], format: 'object' });
    const stranger = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'stranger' }], format: 'object' });
    const plain = [card('PgpTokenC1', VISA), card('PgpTokenC2', MASTER)].join('\n');
    const encrypt = async (to: openpgp.Key, signer?: openpgp.PrivateKey, armor = true) => {
      const message = await openpgp.createMessage({ text: plain });
      return armor
        ? ((await openpgp.encrypt({ message, encryptionKeys: to, ...(signer === undefined ? {} : { signingKeys: signer }) })) as string)
        : ((await openpgp.encrypt({ message, encryptionKeys: to, format: 'binary', ...(signer === undefined ? {} : { signingKeys: signer }) })) as Uint8Array);
    };

    const wrongKey = await runImport(await encrypt(stranger.publicKey));
    expect(wrongKey).toMatchObject({ state: 'failed', error: "The file cannot be decrypted with this environment's import key (it was encrypted to another key)" });

    const unsigned = await runImport(await encrypt(recipient), { signedBy: sender.publicKey.armor() });
    expect(unsigned).toMatchObject({ state: 'failed', error: 'The file is not signed by the sender key given', report: { imported: 0 } });
    const signedByStranger = await runImport(await encrypt(recipient, stranger.privateKey), { signedBy: sender.publicKey.armor() });
    expect(signedByStranger).toMatchObject({ state: 'failed', error: 'The file is not signed by the sender key given' });
    const clearButRequired = await runImport(plain, { signedBy: sender.publicKey.armor() });
    expect(clearButRequired.state).toBe('failed');
    expect((await server.client.get('/v1/payment_methods/PgpTokenC1.json')).status).toBe(404);

    const signed = await runImport(await encrypt(recipient, sender.privateKey, false), { signedBy: sender.publicKey.armor() });
    expect(signed).toMatchObject({ state: 'succeeded', encrypted: true, report: { imported: 2, rejected: 0 } });
    const armoredPlain = await runImport(await encrypt(recipient));
    expect(armoredPlain).toMatchObject({ state: 'succeeded', report: { skipped: 2 } });
  });

  it('keeps the import key pair: the same public key every time, the private half sealed', async () => {
    const first = await server.core.importKeys.publicKey(environment.key);
    const second = await server.core.importKeys.publicKey(environment.key);
    expect(second).toEqual(first);
    const row = await server.core.store.db.selectFrom('import_keys').selectAll().where('environment_key', '=', environment.key).executeTakeFirstOrThrow();
    expect(row.sealed_private_key).toMatch(/^c1\./);
    expect(row.sealed_private_key).not.toContain('PRIVATE KEY');
  });
});
