import { Readable } from 'node:stream';
import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/domain/environment.js';
import type { PaymentMethodsRepository } from '../../src/store/interfaces/payment-methods.js';
import { storeAccess } from '../../src/store/store-access.js';
import { ExportService, type ExportCaller } from '../../src/services/portability/export.service.js';
import { PaymentMethodSealer } from '../../src/services/payment-method-sealer.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * The export service over a real store (docs/portability.md, "Exporting"): the file is read a page
 * of methods at a time (the vault is never held whole), a download that stops part-way leaves the
 * export `failed` (spent, audited) and never `downloaded`, two downloads racing hand the file out
 * once, and nothing the service throws or records carries a card number.
 */

const CARDS = 450;
const ALICE: ExportCaller = { type: 'user', id: 'alice@example.com', address: null };
const BOB: ExportCaller = { type: 'access_secret', id: 'BobSecretKey', address: null };

/** A 16-digit Visa-range test number passing Luhn, distinct per index. */
function cardNumber(index: number): string {
  const body = `4${String(index).padStart(14, '0')}`;
  let sum = 0;
  for (let i = 0; i < body.length; i += 1) {
    let digit = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

describe.each(storeKinds)('export service (%s)', (store) => {
  let server: TestServer;
  let environment: Environment;
  let service: ExportService;
  const pages: number[] = [];
  let recipient: string;

  beforeAll(async () => {
    server = await startServer({ store });
    const init = server.init;
    const production = await server.core.tenancy.createEnvironment(init.organization_token, 'export service', true);
    environment = production;
    const lines = Array.from({ length: CARDS }, (_, index) => JSON.stringify({ token: `ExportSvc${index}x`, credit_card: { number: cardNumber(index), month: 1, year: 2040, first_name: 'A', last_name: 'B' } })).join('\n');
    const job = await server.core.imports.start(environment);
    const ended = await server.core.imports.run(environment, job, () => Readable.from([Buffer.from(lines)]));
    expect(ended.report.imported).toBe(CARDS);
    // The real store, with the list counted: each statement's page size is recorded.
    const access = storeAccess(server.core.store);
    const counted: PaymentMethodsRepository = Object.create(access.repos.paymentMethods) as PaymentMethodsRepository;
    counted.list = async (...args) => {
      const found = await access.repos.paymentMethods.list(...args);
      pages.push(found.length);
      return found;
    };
    service = new ExportService({ repos: { ...access.repos, paymentMethods: counted }, unitOfWork: access.unitOfWork }, new PaymentMethodSealer(server.core.keyring), server.core.importKeys, server.core.audit, { now: () => new Date() });
    recipient = (await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'R' }], format: 'object' })).publicKey.armor();
  });
  afterAll(() => server.close());

  async function approved(): Promise<string> {
    const job = await service.request(environment, ALICE, { filter: { storageStates: [], createdFrom: null, createdTo: null, metadata: {} }, recipientPublicKey: recipient });
    await service.approve(environment, job.token, BOB);
    return job.token;
  }

  it('reads the vault a page at a time, and counts every method', async () => {
    pages.length = 0;
    const token = await approved();
    const { file, done } = await service.download(environment, token, BOB);
    let bytes = 0;
    for await (const chunk of file) bytes += (chunk as Buffer).length;
    expect(bytes).toBeGreaterThan(CARDS * 50);
    expect((await done).paymentMethods).toBe(CARDS);
    expect(Math.max(...pages)).toBeLessThanOrEqual(200);
    expect(pages.length).toBeGreaterThanOrEqual(3);
  });

  it('marks a download that stopped part-way as failed, spent and audited, never as downloaded', async () => {
    const token = await approved();
    const { file, done } = await service.download(environment, token, BOB);
    await new Promise<void>((resolve) => file.once('readable', () => resolve()));
    file.destroy();
    const ended = await done;
    expect(ended).toMatchObject({ state: 'failed', shownState: 'failed', error: 'The download stopped before the end of the file' });
    await expect(service.download(environment, token, BOB)).rejects.toMatchObject({ status: 410 });
    const audit = await server.core.audit.list(environment.organizationToken, { count: 100 });
    const failed = audit.find((event) => event.objectId === token && event.action === 'payment_method_export.download_failed');
    expect(failed?.details).toMatchObject({ requested_by: ALICE.id, approved_by: BOB.id });
    expect(JSON.stringify(audit)).not.toContain(cardNumber(0));
  });

  it('hands the file out once when two downloads race', async () => {
    const token = await approved();
    const results = await Promise.allSettled([service.download(environment, token, BOB), service.download(environment, token, ALICE)]);
    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result) => result.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({ status: 410 });
    expect(String((lost[0] as PromiseRejectedResult).reason.message)).not.toMatch(/\d{12,}/);
    const { file, done } = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<ExportService['download']>>>).value;
    file.resume();
    expect((await done).state).toBe('downloaded');
  });

  it('refuses the requester’s approval whatever the way in, and records the attempt', async () => {
    const job = await service.request(environment, BOB, { filter: { storageStates: ['retained'], createdFrom: null, createdTo: null, metadata: {} }, recipientPublicKey: recipient });
    await expect(service.approve(environment, job.token, BOB)).rejects.toMatchObject({ status: 403 });
    // A portal user and an API secret are different people, even with similar names.
    expect((await service.approve(environment, job.token, { ...ALICE, id: BOB.id })).shownState).toBe('approved');
  });
});
