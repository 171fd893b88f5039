import { storeAccess } from '../../src/store/store-access.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCore } from '../../src/app.js';
import { loadConfig, type StoreConfig } from '../../src/config/config.js';
import type { PaymentMethodCreateInput } from '../../src/domain/payment-method.js';
import { systemClock } from '../../src/domain/clock.js';
import { DefinitionCache } from '../../src/cache/definition-cache.js';
import { GatewayService } from '../../src/services/gateway.service.js';
import { paymentMethodAad } from '../../src/services/payment-method-sealer.js';
import { openStore } from '../../src/store/database.js';
import { SEALED_PAYMENT_METHOD_COLUMNS } from '../../src/store/repositories/payment-methods.repo.js';
import { gatewayOf } from '../../src/store/mappers/gateway.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/store/schema.js';
import { blobKeyId } from '../../src/vault/cipher.js';
import { WrappedKeysRepo } from '../../src/store/repositories/wrapped-keys.repo.js';
import { Keyring, masterKeyId } from '../../src/vault/keyring.js';
import { TEST_CARDS } from '../../src/domain/test-cards.js';
import { ApiClient } from '../helpers/client.js';
import { findCardData, maskFinding } from '../helpers/leak-scan.js';
import { bankAccountInput, creditCardInput } from '../helpers/payment-method-inputs.js';
import { createPostgresDatabase, storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { runCoffer, startServe, useCofferProcesses, type ServedCoffer } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/**
 * Key rotation on a populated store while requests are served: data-key rotation in process
 * (rotateData + reencrypt with a request loop running), and master-key rotation across processes
 * with the real CLI (`coffer serve` with the new and previous key, `coffer keys rotate-master`
 * beside it), then `coffer keys rotate-data`.
 */

/** Test PANs that succeed (any of them is accepted in either kind of environment). */
const PANS = TEST_CARDS.filter((card) => card.outcome === 'succeed').map((card) => card.number);
const lastFour = (pan: string) => pan.slice(-4);

const TURING = { first_name: 'Alan', last_name: 'Turing' };

function cardInput(number: string, cvv: string | null): PaymentMethodCreateInput {
  return creditCardInput(TURING, { number, month: 6, year: 2041, cvv }, true);
}

function bankInput(account: string): PaymentMethodCreateInput {
  return bankAccountInput(TURING, account, true);
}

function cardBody(number: string, cvv?: string) {
  return {
    payment_method: {
      credit_card: { first_name: 'Alan', last_name: 'Turing', number, month: 6, year: 2041, ...(cvv === undefined ? {} : { verification_value: cvv }) },
      retained: true,
    },
  };
}

/** Every sealed blob of an environment: payment method columns and gateway credentials. */
async function sealedBlobs(db: Kysely<Database>, environmentKey: string): Promise<Array<{ where: string; blob: string }>> {
  const out: Array<{ where: string; blob: string }> = [];
  const rows = await db.selectFrom('payment_methods').selectAll().where('environment_key', '=', environmentKey).execute();
  for (const row of rows) {
    for (const column of SEALED_PAYMENT_METHOD_COLUMNS) {
      const blob = row[column];
      if (blob !== null) out.push({ where: `${row.token}.${column}`, blob });
    }
  }
  const gateways = await db.selectFrom('gateways').select(['token', 'sealed_credentials']).where('environment_key', '=', environmentKey).execute();
  for (const gateway of gateways) if (gateway.sealed_credentials !== null) out.push({ where: `${gateway.token}.credentials`, blob: gateway.sealed_credentials });
  return out;
}

/**
 * Concurrent request workers against one Coffer: each creates cards and reads known ones until
 * stopped; every response must be the expected one. `known` grows with what they create.
 */
function requestLoop(client: ApiClient, known: Map<string, string>, options: { workers: number; extra?: (i: number) => Promise<void> }) {
  let stopped = false;
  let completed = 0;
  const failures: string[] = [];
  /** [start, end] of every request, in ms (performance.now()). */
  const spans: Array<[number, number]> = [];
  const created = new Map<string, string>();
  const worker = async (w: number) => {
    for (let i = 0; !stopped; i += 1) {
      const start = performance.now();
      try {
        if (options.extra !== undefined && i % 10 === 9) {
          await options.extra(i);
        } else if (i % 2 === 0) {
          const pan = PANS[(w + i) % PANS.length]!;
          const res = await client.sendJson('POST', '/v1/payment_methods.json', cardBody(pan, i % 4 === 0 ? '314' : undefined));
          if (res.status !== 201) failures.push(`POST ${res.status} ${res.text.slice(0, 200)}`);
          else {
            const token = res.json().transaction.payment_method.token as string;
            created.set(token, pan);
            known.set(token, pan);
          }
        } else {
          const tokens = [...known.keys()];
          const token = tokens[(w * 7919 + i * 104729) % tokens.length]!;
          const pan = known.get(token)!;
          const res = await client.get(`/v1/payment_methods/${token}.json`);
          const method = res.status === 200 ? res.json().payment_method : null;
          if (method === null || method.last_four_digits !== lastFour(pan) || method.token !== token) {
            failures.push(`GET ${token}: ${res.status} ${res.text.slice(0, 200)}`);
          }
        }
      } catch (error) {
        failures.push(`request failed: ${(error as Error).message}`);
      }
      completed += 1;
      spans.push([start, performance.now()]);
    }
  };
  const running = Promise.all(Array.from({ length: options.workers }, (_, w) => worker(w)));
  return {
    failures,
    created,
    completed: () => completed,
    /**
     * Requests in flight at some point of [from, to]. (On SQLite the driver is synchronous, so an
     * in-process rotation holds the event loop: requests are not answered during it but wait
     * through it, and must then succeed.)
     */
    overlapping: (from: number, to: number) => spans.filter(([start, end]) => start < to && end > from).length,
    async until(count: number, timeoutMs = 20_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (completed < count && failures.length === 0) {
        if (Date.now() > deadline) throw new Error(`request loop reached only ${completed} of ${count} requests`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    async stop(): Promise<void> {
      stopped = true;
      await running;
    },
  };
}

describe.each(storeKinds)('key rotation on a populated store while requests are served (%s)', (store) => {
  let server: TestServer;
  const masterKey = randomBytes(32);
  afterAll(() => server?.close());

  it('data-key rotation: rotateData + reencrypt under load leave every blob on the new key, all readable', async () => {
    server = await startServer({ store, env: { COFFER_MASTER_KEY: masterKey.toString('base64') } });
    const { core } = server;
    const environment = await core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    const env = environment.key;
    const sandbox = await core.tenancy.requireEnvironment(server.init.environment_key);
    const prod = server.client.withAuth({ user: env, password: server.init.access_secret });

    // Populate: 300 cards (a third with CVVs), a few bank accounts, a Stripe gateway; a sandbox card beside.
    const known = new Map<string, string>();
    for (let i = 0; i < 300; i += 1) {
      const pan = PANS[i % PANS.length]!;
      const outcome = await core.paymentMethods.create(environment, cardInput(pan, i % 3 === 0 ? String(100 + (i % 900)) : null));
      known.set(outcome.paymentMethod.token, pan);
    }
    const banks: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const outcome = await core.paymentMethods.create(environment, bankInput(`98765432${i}0`));
      banks.push(outcome.paymentMethod.token);
    }
    const stripeKey = `sk_live_ROTATION${randomBytes(8).toString('hex')}`;
    const stripe = await core.gateways.create(environment, 'stripe', { credentials: { login: stripeKey } });
    const sandboxCard = (await core.paymentMethods.create(sandbox, cardInput('4111111111111111', '123'))).paymentMethod.token;
    // A blob sealed with v1 and kept outside the database (e.g. in a backup or a queue).
    const savedBefore = await core.keyring.sealFor(env, Buffer.from('saved before rotation'), 'rotation-test:outside');
    expect(blobKeyId(savedBefore)).toBe(`d-${env}-1`);

    const before = await sealedBlobs(core.store.db, env);
    expect(before.length).toBe(300 + 100 + 5 * 2 + 1);
    expect(before.every(({ blob }) => blob.startsWith(`c1.d-${env}-1.`))).toBe(true);

    // Some pre-existing cards are redacted by the loop, around and (on PostgreSQL) during the rotation:
    // a redact racing the re-encryption must win (replaceSealed is conditional on the blob it read).
    const toRedact = [...known.keys()].filter((_, i) => i % 50 === 7);
    const redacting = [...toRedact];
    const loop = requestLoop(prod, known, {
      workers: 8,
      extra: async () => {
        const token = redacting.pop();
        if (token === undefined) return;
        const res = await prod.request('PUT', `/v1/payment_methods/${token}/redact.json`);
        if (res.status !== 200) loop.failures.push(`redact ${token}: ${res.status}`);
        known.delete(token);
      },
    });
    await loop.until(40);
    const rotationStart = performance.now();
    const rotation = await core.keyRotation.rotateData(env, 50);
    const rotationEnd = performance.now();
    await loop.until(loop.completed() + 60);
    await loop.stop();
    expect(loop.failures).toEqual([]);
    expect(rotation.keyId).toBe(`d-${env}-2`);
    // Requests were in flight while the rotation ran, not just before and after.
    expect(loop.overlapping(rotationStart, rotationEnd)).toBeGreaterThan(0);
    expect(loop.created.size).toBeGreaterThan(0);

    // Whatever was sealed with v1 by a request in flight at the switch is picked up by the second pass.
    const stragglers = await core.keyRotation.reencrypt(env, 50);
    expect(await core.keyRotation.reencrypt(env, 50)).toBe(0);
    const removedByRedaction = before.filter(({ where }) => toRedact.some((token) => where.startsWith(`${token}.`))).length;
    expect(rotation.reencrypted + stragglers).toBeGreaterThanOrEqual(before.length - removedByRedaction);

    // Every blob of the environment names the new key; the sandbox environment was not touched.
    const after = await sealedBlobs(core.store.db, env);
    const stale = after.filter(({ blob }) => !blob.startsWith(`c1.d-${env}-2.`));
    expect(stale.map(({ where, blob }) => `${where}: ${blob.slice(0, 40)}`)).toEqual([]);
    expect(after.length).toBeGreaterThan(before.length - removedByRedaction);
    for (const { blob } of await sealedBlobs(core.store.db, sandbox.key)) expect(blob).toMatch(new RegExp(`^c1\\.d-${sandbox.key}-1\\.`));

    // Redactions that raced the rotation stayed redacted (no blob came back).
    const redactedRows = await core.store.db.selectFrom('payment_methods').selectAll().where('token', 'in', toRedact).execute();
    expect(redactedRows).toHaveLength(toRedact.length);
    for (const row of redactedRows) expect(row).toMatchObject({ storage_state: 'redacted', sealed_number: null, sealed_cvv: null, fingerprint: null });

    // Every card (created before or during the rotation) still shows, and its PAN opens to the same
    // value in this process and in a fresh keyring (another process: nothing cached).
    const fresh = new Keyring(new WrappedKeysRepo(core.store.db), masterKey);
    const rows = await core.store.db.selectFrom('payment_methods').selectAll().where('environment_key', '=', env).where('payment_method_type', '=', 'credit_card').execute();
    const byToken = new Map(rows.map((row) => [row.token, row]));
    for (const [token, pan] of known) {
      const row = byToken.get(token);
      expect(row?.sealed_number, token).toBeTruthy();
      const aad = paymentMethodAad(token, 'number');
      expect((await core.keyring.openFor(env, row!.sealed_number!, aad)).toString()).toBe(pan);
      expect((await fresh.openFor(env, row!.sealed_number!, aad)).toString()).toBe(pan);
    }
    for (const [token, pan] of loop.created) expect(known.get(token)).toBe(pan);
    const shownTokens = [...known.keys()];
    for (let i = 0; i < shownTokens.length; i += 16) {
      const batch = shownTokens.slice(i, i + 16);
      const responses = await Promise.all(batch.map((token) => prod.get(`/v1/payment_methods/${token}.json`)));
      responses.forEach((res, j) => {
        expect(res.status).toBe(200);
        expect(res.json().payment_method).toMatchObject({ token: batch[j], storage_state: 'retained', last_four_digits: lastFour(known.get(batch[j]!)!) });
      });
    }
    for (const token of banks) expect((await prod.get(`/v1/payment_methods/${token}.json`)).json().payment_method.account_number_display_digits).toMatch(/^\d{4}$/);

    // The Stripe key is intact.
    const stripeRow = await core.store.db.selectFrom('gateways').selectAll().where('token', '=', stripe.token).executeTakeFirstOrThrow();
    expect(blobKeyId(stripeRow.sealed_credentials!)).toBe(`d-${env}-2`);
    expect(await core.gateways.openCredentials(gatewayOf(stripeRow))).toEqual({ login: stripeKey });
    expect(await new GatewayService(storeAccess(core.store), fresh, systemClock, new DefinitionCache(core.store)).openCredentials(gatewayOf(stripeRow))).toEqual({ login: stripeKey });

    // The old key stays: blobs sealed with v1 outside the tables still open.
    const keys = await core.store.db.selectFrom('wrapped_keys').select(['id', 'purpose']).where('environment_key', '=', env).orderBy('id').execute();
    expect(keys).toEqual([
      { id: `d-${env}-1`, purpose: 'data' },
      { id: `d-${env}-2`, purpose: 'data' },
      { id: `f-${env}-1`, purpose: 'fingerprint' },
    ]);
    expect((await core.keyring.openFor(env, savedBefore, 'rotation-test:outside')).toString()).toBe('saved before rotation');
    expect((await fresh.openFor(env, savedBefore, 'rotation-test:outside')).toString()).toBe('saved before rotation');
    // New seals use v2; the sandbox card is untouched and readable.
    expect(blobKeyId(await fresh.sealFor(env, Buffer.from('x'), 'y'))).toBe(`d-${env}-2`);
    expect((await server.client.get(`/v1/payment_methods/${sandboxCard}.json`)).json().payment_method.last_four_digits).toBe('1111');
  }, 120_000);
});

describe('master-key rotation across processes with the real CLI', () => {
  const defer = useCofferProcesses();

  async function stop(served: ServedCoffer): Promise<void> {
    served.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    // The server's own log lines (stdout, JSON) never carry card data.
    expect(findCardData(served.stdout()).map(maskFinding)).toEqual([]);
  }

  async function withDb<T>(storeConfig: StoreConfig, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    const handle = openStore(storeConfig);
    try {
      return await work(handle.db);
    } finally {
      await handle.close();
    }
  }

  // The CLI part runs on SQLite always and on PostgreSQL when configured (each well under 30 s).
  it.each(storeKinds)('rotates the master key under load (serve with K2+K1, rotate-master beside it), then rotate-data (%s)', async (kind) => {
    const temp = tempDir('coffer-rotation-');
    defer(temp.cleanup);
    const k1 = randomBytes(32).toString('base64');
    const k2 = randomBytes(32).toString('base64');
    const base: Record<string, string> = { COFFER_DATA_DIR: temp.dir, COFFER_LOG_LEVEL: 'info' };
    let storeConfig: StoreConfig = { kind: 'sqlite', path: path.join(temp.dir, 'coffer.sqlite') };
    if (kind === 'postgres') {
      const database = await createPostgresDatabase();
      defer(database.drop);
      base.COFFER_DATABASE_URL = database.url;
      storeConfig = { kind: 'postgres', url: database.url };
    }
    const withK1 = { ...base, COFFER_MASTER_KEY: k1 };
    const rotating = { ...base, COFFER_MASTER_KEY: k2, COFFER_MASTER_KEY_PREVIOUS: k1 };
    const withK2 = { ...base, COFFER_MASTER_KEY: k2 };

    // 1. Serve with K1 and populate over HTTPS: sandbox cards, a production environment with a Stripe gateway and cards.
    const first = await startServe(withK1);
    const init = first.init!;
    expect(init).not.toBeNull();
    const ca = fs.readFileSync(path.join(temp.dir, 'tls', 'ca.pem'), 'utf8');
    const auth = { user: init.environment_key, password: init.access_secret };
    const known = new Map<string, string>();
    let client = new ApiClient(first.url, ca, auth);
    for (let i = 0; i < 12; i += 1) {
      const pan = PANS[i % PANS.length]!;
      const res = await client.sendJson('POST', '/v1/payment_methods.json', cardBody(pan, i % 2 === 0 ? '271' : undefined));
      expect(res.status, res.text).toBe(201);
      known.set(res.json().transaction.payment_method.token, pan);
    }
    const created = await runCoffer(['environments', 'create', '--organization', init.organization_token, '--name', 'live', '--production', '--json'], withK1);
    expect(created.code, created.stderr).toBe(0);
    const live = JSON.parse(created.stdoutLines[0]!).environment_key as string;
    const stripeKey = `sk_live_CLI${randomBytes(8).toString('hex')}`;
    const liveClient = client.withAuth({ user: live, password: init.access_secret });
    const gateway = await liveClient.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: stripeKey } });
    expect(gateway.status, gateway.text).toBe(201);
    const stripeToken = gateway.json().gateway.token as string;
    const liveCards = new Map<string, string>();
    for (const pan of PANS.slice(0, 3)) {
      const res = await liveClient.sendJson('POST', '/v1/payment_methods.json', cardBody(pan));
      expect(res.status, res.text).toBe(201);
      liveCards.set(res.json().transaction.payment_method.token, pan);
    }
    await client.close();
    await stop(first);

    const k1Id = masterKeyId(Buffer.from(k1, 'base64'));
    const k2Id = masterKeyId(Buffer.from(k2, 'base64'));
    const underK1 = await withDb(storeConfig, async (db) => db.selectFrom('wrapped_keys').select(['id', 'master_key_id']).execute());
    expect(underK1.length).toBeGreaterThanOrEqual(5);
    expect(underK1.every((row) => row.master_key_id === k1Id)).toBe(true);

    // 2. Serve with K2 (K1 as previous), keep requests running, rotate the master key beside it.
    const second = await startServe(rotating);
    expect(second.init).toBeNull();
    client = new ApiClient(second.url, ca, auth);
    const loop = requestLoop(client, known, { workers: 4 });
    await loop.until(20);
    const startedAt = loop.completed();
    const rotate = await runCoffer(['keys', 'rotate-master', '--json'], rotating);
    // The CLI is another process: requests are answered (not just in flight) meanwhile.
    const duringRotation = loop.completed() - startedAt;
    await loop.until(loop.completed() + 20);
    await loop.stop();
    expect(loop.failures).toEqual([]);
    expect(duringRotation).toBeGreaterThan(0);
    expect(rotate.code, rotate.stderr).toBe(0);
    expect(rotate.stdoutLines).toHaveLength(1);
    const rewrapped = JSON.parse(rotate.stdoutLines[0]!) as { rewrapped: number };
    expect(Object.keys(rewrapped)).toEqual(['rewrapped']);
    expect(rewrapped.rewrapped).toBeGreaterThanOrEqual(1);
    expect(rewrapped.rewrapped).toBe(underK1.length);
    // Running it again finds nothing left.
    const again = await runCoffer(['keys', 'rotate-master', '--json'], rotating);
    expect(JSON.parse(again.stdoutLines[0]!), again.stderr).toEqual({ rewrapped: 0 });
    // Both runs are on record, newest first (docs/key-custody.md, "Rotation record").
    const history = await runCoffer(['master-key', 'history', '--json'], rotating);
    expect(history.code, history.stderr).toBe(0);
    const runs = JSON.parse(history.stdoutLines[0]!) as Array<Record<string, unknown>>;
    expect(runs.map(({ kind, to, master_key_id, from, rewrapped: moved, remaining, outcome }) => ({ kind, to, master_key_id, from, moved, remaining, outcome }))).toEqual([
      { kind: 'rotate', to: 'env', master_key_id: k2Id, from: [], moved: 0, remaining: 0, outcome: 'completed' },
      { kind: 'rotate', to: 'env', master_key_id: k2Id, from: [k1Id], moved: underK1.length, remaining: 0, outcome: 'completed' },
    ]);
    await client.close();
    await stop(second);

    const afterRotation = await withDb(storeConfig, async (db) => db.selectFrom('wrapped_keys').select(['id', 'master_key_id']).execute());
    expect(afterRotation.map((row) => row.id).sort()).toEqual(underK1.map((row) => row.id).sort());
    expect(afterRotation.filter((row) => row.master_key_id !== k2Id)).toEqual([]);

    // 3. K2 alone serves, and every card (before and during the rotation) reads back.
    const third = await startServe(withK2);
    client = new ApiClient(third.url, ca, auth);
    for (const [token, pan] of known) {
      const res = await client.get(`/v1/payment_methods/${token}.json`);
      expect(res.status, token).toBe(200);
      expect(res.json().payment_method.last_four_digits).toBe(lastFour(pan));
    }
    const fresh = await client.sendJson('POST', '/v1/payment_methods.json', cardBody(PANS[0]!));
    expect(fresh.status).toBe(201);
    known.set(fresh.json().transaction.payment_method.token, PANS[0]!);
    await client.close();
    await stop(third);

    // 4. K1 alone no longer starts: one stderr line naming COFFER_MASTER_KEY.
    const refused = await runCoffer(['serve'], { ...withK1, COFFER_PORT: '0' }, 20_000);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderrLines, refused.stderr).toHaveLength(1);
    expect(refused.stderrLines[0]).toMatch(/^coffer: .*COFFER_MASTER_KEY/);
    expect(refused.stdout).not.toMatch(/listening/);

    // 5. rotate-data on the sandbox environment re-encrypts every sealed blob onto d-<env>-2.
    const env = init.environment_key;
    const blobsBefore = await withDb(storeConfig, (db) => sealedBlobs(db, env));
    expect(blobsBefore.length).toBeGreaterThan(known.size);
    const data = await runCoffer(['keys', 'rotate-data', '--environment', env, '--settle-seconds', '0', '--json'], withK2);
    expect(data.code, data.stderr).toBe(0);
    expect(data.stdoutLines).toHaveLength(1);
    expect(JSON.parse(data.stdoutLines[0]!)).toEqual({ environment_key: env, key_id: `d-${env}-2`, reencrypted: blobsBefore.length });
    const unknownEnv = await runCoffer(['keys', 'rotate-data', '--environment', 'NOPE', '--settle-seconds', '0', '--json'], withK2);
    expect(unknownEnv.code).toBe(1);
    expect(unknownEnv.stderrLines).toHaveLength(1);

    // 6. A new process with K2 alone: every blob on d-<env>-2 opens to the right PAN; the live
    //    environment (not rotated) still opens on v1, Stripe key intact.
    const core = await buildCore(loadConfig(withK2));
    try {
      const after = await sealedBlobs(core.store.db, env);
      expect(after.length).toBe(blobsBefore.length);
      expect(after.filter(({ blob }) => blobKeyId(blob) !== `d-${env}-2`)).toEqual([]);
      const rows = await core.store.db.selectFrom('payment_methods').select(['token', 'environment_key', 'sealed_number']).execute();
      for (const row of rows) {
        const pan = known.get(row.token) ?? liveCards.get(row.token);
        expect(pan, row.token).toBeDefined();
        expect((await core.keyring.openFor(row.environment_key, row.sealed_number!, paymentMethodAad(row.token, 'number'))).toString()).toBe(pan);
      }
      const stripeRow = await core.store.db.selectFrom('gateways').selectAll().where('token', '=', stripeToken).executeTakeFirstOrThrow();
      expect(blobKeyId(stripeRow.sealed_credentials!)).toBe(`d-${live}-1`);
      expect(await core.gateways.openCredentials(gatewayOf(stripeRow))).toEqual({ login: stripeKey });
    } finally {
      await core.close();
    }
  }, 120_000);
});
