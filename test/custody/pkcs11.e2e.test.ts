import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/client.js';
import { addPaymentMethod, createTestGateway } from '../helpers/fixtures.js';
import { initNode, startCustodyNode } from '../helpers/custody-node.js';
import { SOFTHSM_MODULE, startSoftHsm, type SoftHsm, describeWithSoftHsm } from '../helpers/softhsm.js';
import { tempDir } from '../helpers/temp.js';
import { Pkcs11MasterKey } from '../../src/vault/master-key-providers/pkcs11.js';
import type { InitResult } from '../../src/services/tenancy.service.js';

/*
 * A node whose master key is an AES-256 key inside SoftHSM2 (docs/key-custody.md, "pkcs11"):
 * tokenize and purchase, restart and still decrypt; a wrong PIN answers 503 and writes nothing;
 * no key material on the node's disk or in its database.
 */

const PIN = '271828';
const VISA = '4111111111111111';

async function purchase(client: ApiClient, gateway: string, paymentMethod: string) {
  return client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: paymentMethod, amount: 100, currency_code: 'USD' } });
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : entry.isFile() ? [full] : [];
  });
}

describeWithSoftHsm('pkcs11 master key provider, end to end on SoftHSM2 (SQLite)', () => {
  let hsm: SoftHsm;
  let data: { dir: string; cleanup: () => void };
  let env: Record<string, string>;
  let credentials: InitResult;
  let gateway: string;
  let card: string;

  beforeAll(() => {
    hsm = startSoftHsm([{ label: 'coffer-e2e', pin: PIN }]);
    data = tempDir();
    env = {
      COFFER_DATA_DIR: data.dir,
      COFFER_MASTER_KEY_PROVIDER: 'pkcs11',
      COFFER_PKCS11_MODULE: SOFTHSM_MODULE,
      COFFER_PKCS11_TOKEN_LABEL: 'coffer-e2e',
      COFFER_PKCS11_PIN_FILE: hsm.pinFile(PIN),
    };
    Pkcs11MasterKey.createKey({ modulePath: SOFTHSM_MODULE, token: { label: 'coffer-e2e' }, pin: { value: PIN }, keyLabel: 'coffer-master-key' });
  });
  afterAll(() => {
    data.cleanup();
    hsm.cleanup();
  });

  it('tokenizes and purchases with the key in the HSM; keys are wrapped by it', async () => {
    const node = await startCustodyNode(env);
    try {
      credentials = await initNode(node);
      const client = node.client(credentials);
      gateway = await createTestGateway(client);
      card = (await addPaymentMethod(client, { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: VISA, month: 3, year: 2035, verification_value: '123' }, retained: true })).payment_method.token;
      const res = await purchase(client, gateway, card);
      expect(res.status, res.text).toBe(200);
      expect(res.json().transaction.succeeded).toBe(true);
      const rows = await node.core.store.db.selectFrom('wrapped_keys').select(['id', 'master_key_id', 'wrapped']).execute();
      expect(rows.length).toBeGreaterThanOrEqual(3);
      for (const row of rows) {
        expect(row.master_key_id).toBe(node.core.custody.provider.id);
        expect(row.master_key_id).toMatch(/^pkcs11-[0-9a-f]{16}$/);
      }
      const ready = await client.get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'ready', master_key: 'ok' });
    } finally {
      await node.close();
    }
  });

  it('after a restart the same card still decrypts for a purchase', async () => {
    const node = await startCustodyNode(env);
    try {
      const res = await purchase(node.client(credentials), gateway, card);
      expect(res.status, res.text).toBe(200);
      expect(res.json().transaction.succeeded).toBe(true);
    } finally {
      await node.close();
    }
  });

  it('keeps no key material on the node: no master.key, no data key in clear in the data directory or the database', async () => {
    const node = await startCustodyNode(env);
    try {
      // The keys this node unwrapped (in its memory only): every wrapped key of the database.
      const client = node.client(credentials);
      expect((await purchase(client, gateway, card)).status).toBe(200);
      const environmentKey = credentials.environment_key;
      await node.core.keyring.fingerprint(environmentKey, VISA);
      const unwrapped = (node.core.keyring as unknown as { unwrapped: Map<string, Buffer> }).unwrapped;
      const ids = (await node.core.store.db.selectFrom('wrapped_keys').select('id').execute()).map((row) => row.id);
      expect([...unwrapped.keys()].sort()).toEqual(ids.sort());
      const needles = [...unwrapped.values()].flatMap((key) => [key, Buffer.from(key.toString('hex')), Buffer.from(key.toString('base64')), Buffer.from(key.toString('base64url'))]);
      expect(fs.existsSync(path.join(data.dir, 'master.key'))).toBe(false);
      const files = filesUnder(data.dir);
      expect(files.some((file) => file.endsWith('coffer.sqlite'))).toBe(true);
      for (const file of files) {
        const bytes = fs.readFileSync(file);
        for (const needle of needles) expect(bytes.includes(needle), `a data key in clear in ${path.basename(file)}`).toBe(false);
      }
      // Every text column of every table, as the database returns it (not only the file's pages).
      const tables = await node.core.store.db.introspection.getTables();
      for (const table of tables) {
        const rows = await node.core.store.db.selectFrom(table.name as 'wrapped_keys').selectAll().execute();
        const text = JSON.stringify(rows);
        for (const key of unwrapped.values()) {
          for (const form of [key.toString('hex'), key.toString('base64'), key.toString('base64url')]) expect(text.includes(form), `a data key in ${table.name}`).toBe(false);
        }
      }
      // The HSM's token directory is elsewhere: nothing of it under the data directory.
      expect(files.every((file) => !file.includes('tokens'))).toBe(true);
    } finally {
      await node.close();
    }
  });

  it('losing the HSM while serving: keys already unwrapped keep serving, a new key answers 503 and nothing is half-written', async () => {
    const pinFile = hsm.pinFile(PIN);
    const node = await startCustodyNode({ ...env, COFFER_PKCS11_PIN_FILE: pinFile });
    try {
      const client = node.client(credentials);
      expect((await purchase(client, gateway, card)).status).toBe(200);
      const created = await client.sendJson('POST', '/v1/environments.json', { environment: { name: 'after-the-hsm' } });
      expect(created.status, created.text).toBe(201);
      const fresh = created.json().environment.key as string;
      // The token goes away under the node: its session is closed and logging in again fails.
      fs.writeFileSync(pinFile, '000000\n');
      const held = (node.core.custody.provider as unknown as { connection: { lib: { C_CloseSession(s: Buffer): void }; session: Buffer } }).connection;
      held.lib.C_CloseSession(held.session);
      // Cards of the first environment: their keys are in memory, no HSM call.
      expect((await purchase(client, gateway, card)).status).toBe(200);
      // The new environment's first card needs a new data key, wrapped by the HSM: 503, no row of any kind.
      const db = node.core.store.db;
      const before = (await db.selectFrom('payment_methods').select('token').execute()).length;
      const keysBefore = (await db.selectFrom('wrapped_keys').select('id').execute()).length;
      const tokenized = await client
        .withAuth({ user: fresh, password: credentials.access_secret })
        .sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: VISA, month: 3, year: 2035 } } });
      expect(tokenized.status, tokenized.text).toBe(503);
      expect(tokenized.json().errors[0].key).toBe('errors.service_unavailable');
      expect((await db.selectFrom('payment_methods').select('token').execute()).length).toBe(before);
      expect((await db.selectFrom('wrapped_keys').select('id').execute()).length).toBe(keysBefore);
      expect(node.logs.some((line) => line.includes('master key unavailable') && line.includes('CKR_'))).toBe(true);
    } finally {
      await node.close();
    }
  });

  it('a wrong PIN: 503 errors.service_unavailable, a clear log line without the PIN, /readyz unavailable, nothing written', async () => {
    const node = await startCustodyNode({ ...env, COFFER_PKCS11_PIN_FILE: hsm.pinFile('000000') });
    try {
      const db = node.core.store.db;
      const count = async () => ({
        transactions: (await db.selectFrom('transactions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
        paymentMethods: (await db.selectFrom('payment_methods').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
        keys: (await db.selectFrom('wrapped_keys').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
      });
      const before = await count();
      const client = node.client(credentials);
      const bought = await purchase(client, gateway, card);
      expect(bought.status, bought.text).toBe(503);
      expect(bought.json().errors[0].key).toBe('errors.service_unavailable');
      expect(bought.headers['retry-after']).toBe('5');
      const tokenized = await client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: VISA, month: 3, year: 2035 } } });
      expect(tokenized.status, tokenized.text).toBe(503);
      expect(await count()).toEqual(before);
      const line = node.logs.find((entry) => entry.includes('master key unavailable'));
      expect(line).toBeDefined();
      expect(line).toContain('CKR_PIN_INCORRECT');
      expect(node.logs.join('\n')).not.toContain('000000');
      expect((await client.get('/healthz')).status).toBe(200);
      const ready = await client.get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'unavailable', store: 'ok', master_key: 'unreachable' });
    } finally {
      await node.close();
    }
  });
});
