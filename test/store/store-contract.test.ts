import type { PaymentMethodExport } from '../../src/domain/payment-method-export.js';
import { storeAccess } from '../../src/store/store-access.js';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import type { Clock } from '../../src/domain/clock.js';
import { DefinitionCache } from '../../src/cache/definition-cache.js';
import { GatewayService } from '../../src/services/gateway.service.js';
import type { ListQuery } from '../../src/services/list-query.js';
import { NotEmptyError, TenancyService } from '../../src/services/tenancy.service.js';
import { migrateStore, openStore, storeIsReachable, type StoreHandle } from '../../src/store/database.js';
import { inTransaction, repositories, type Repositories } from '../../src/store/repositories.js';
import type { PageRequest } from '../../src/store/repositories/page.js';
import { TransactionsRepo } from '../../src/store/repositories/transactions.repo.js';
import { WrappedKeysRepo } from '../../src/store/repositories/wrapped-keys.repo.js';
import { Keyring } from '../../src/vault/keyring.js';
import { createPostgresDatabase, storeKinds } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import type { Environment } from '../../src/domain/environment.js';
import type { Gateway } from '../../src/domain/gateway.js';
import type { CardDetails, NewPaymentMethod, PaymentMethod } from '../../src/domain/payment-method.js';
import { gatewayOf } from '../../src/store/mappers/gateway.js';
import { TransactionState, type NewTransaction, type Transaction } from '../../src/domain/transaction.js';
import { finishTransactionRecord, recordTransaction } from '../../src/services/transaction-records.js';

type Kind = 'sqlite' | 'postgres';

/** A database of the given kind, empty, with a way to open more handles on it (other "nodes"). */
interface Target {
  open(): StoreHandle;
}

const TABLES = [
  'access_secrets', 'audit_events', 'cache_generation', 'callback_attempts', 'callback_deliveries', 'callback_destinations', 'certificates', 'environments', 'events', 'gateways', 'idempotency_keys', 'master_key_checks', 'organizations', 'overview_rollup_marks', 'overview_rollups', 'payment_methods',
  'portal_invitations', 'portal_memberships', 'portal_people', 'portal_sessions', 'receivers', 'transactions', 'used_nonces', 'workflows', 'wrapped_keys',
];
const MIGRATIONS = ['001-foundation', '002-payment-methods', '003-gateway-transactions', '004-receivers-certificates', '006-idempotency-key-hashes', '009-portal', '010-card-capture', '011-events-callbacks', '012-portal-gaps', '013-retry-chains', '014-workflows', '015-cache-generation', '016-partial-indexes', '017-portal-memberships', '018-callback-fairness', '019-portability-import', '020-upstreams', '021-master-key-checks', '022-audit-chain', '023-payment-method-exports', '024-portal-search', '025-overview-figures', '026-wallets', '027-master-key-rotations', '030-portability-closing'];

let counter = 0;
/** Unique, readable ids; base-62-ish like the real tokens. */
function uid(prefix: string): string {
  counter += 1;
  return `${prefix}${counter}x${randomBytes(6).toString('hex')}`;
}

/** Timestamps that advance by one millisecond per call, from a fixed start. */
function steppingClock(start = Date.parse('2024-02-29T23:59:59.000Z')): Clock {
  let t = start;
  return {
    now: () => {
      t += 1;
      return new Date(t);
    },
  };
}

function asc(count: number, sinceSeq: number | null = null): PageRequest {
  return { sinceSeq, order: 'asc', count };
}
function desc(count: number, sinceSeq: number | null = null): PageRequest {
  return { sinceSeq, order: 'desc', count };
}
function query(sinceToken: string | null, order: 'asc' | 'desc' = 'asc', count = 20): ListQuery {
  return { sinceToken, order, count };
}

/** Resolves to the rejection reason, failing if the promise resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

async function expectAppError(
  promise: Promise<unknown>,
  expected: { key: string; status: number; attribute?: string },
): Promise<AppError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(AppError);
  const app = error as AppError;
  expect(app.status).toBe(expected.status);
  expect(app.entries[0]?.key).toBe(expected.key);
  if (expected.attribute !== undefined) expect(app.entries[0]?.attribute).toBe(expected.attribute);
  return app;
}

describe.each(storeKinds)('store contract on %s', (kind: Kind) => {
  const cleanups: Array<() => Promise<void> | void> = [];

  /** A fresh empty database of this kind; dropped/removed in afterAll. */
  async function freshTarget(): Promise<Target> {
    const handles: StoreHandle[] = [];
    let open: () => StoreHandle;
    if (kind === 'sqlite') {
      const temp = tempDir('coffer-store-');
      cleanups.push(() => temp.cleanup());
      const file = path.join(temp.dir, 'coffer.sqlite');
      open = () => openStore({ kind: 'sqlite', path: file });
    } else {
      const database = await createPostgresDatabase();
      cleanups.push(() => database.drop());
      open = () => openStore({ kind: 'postgres', url: database.url });
    }
    // Handles close before their database is dropped (cleanups run in reverse).
    cleanups.push(async () => {
      for (const handle of handles) await handle.close().catch(() => undefined);
    });
    return {
      open: () => {
        const handle = open();
        handles.push(handle);
        return handle;
      },
    };
  }

  async function migratedStore(): Promise<StoreHandle> {
    const store = (await freshTarget()).open();
    await migrateStore(store);
    return store;
  }

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  describe('migrations', () => {
    it('apply on an empty database, then a second run applies nothing', async () => {
      const store = (await freshTarget()).open();
      expect(store.dialect).toBe(kind);
      expect(await migrateStore(store)).toEqual(MIGRATIONS);
      expect(await migrateStore(store)).toEqual([]);
      const tables = (await store.db.introspection.getTables()).map((t) => t.name).filter((name) => TABLES.includes(name));
      expect(tables.sort()).toEqual(TABLES);
    });

    it('two concurrent migrations of the same fresh database both succeed, applying it once', async () => {
      const target = await freshTarget();
      // PostgreSQL: two nodes, each with its own pool. SQLite: one process's single handle
      // (two handles on one SQLite file race; see the report).
      const first = target.open();
      const second = kind === 'postgres' ? target.open() : first;
      const results = await Promise.all([migrateStore(first), migrateStore(second)]);
      expect(results.flat()).toEqual(MIGRATIONS);
      expect(await migrateStore(second)).toEqual([]);
      expect(await repositories(second.db, second.dialect).organizations.isEmpty()).toBe(true);
    });

    it('two nodes initialising one empty database at once create exactly one organization', async () => {
      const target = await freshTarget();
      const first = target.open();
      await migrateStore(first);
      const second = kind === 'postgres' ? target.open() : first;
      const masterKey = randomBytes(32);
      const nodes = [first, second].map((store) => new TenancyService(storeAccess(store), new Keyring(new WrappedKeysRepo(store.db), masterKey), { now: () => new Date() }));
      const outcomes = await Promise.allSettled(nodes.map((node) => node.init()));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(rejected).toHaveLength(1);
      expect(rejected[0]?.reason).toBeInstanceOf(NotEmptyError);
      expect(await repositories(first.db, first.dialect).organizations.list()).toHaveLength(1);
    });
  });

  describe('repositories', () => {
    let store: StoreHandle;
    let repos: Repositories;
    let orgToken: string;
    let envA: string;
    let envB: string;
    const now = '2024-02-29T23:59:59.999Z';

    beforeAll(async () => {
      store = await migratedStore();
      repos = repositories(store.db, store.dialect);
      orgToken = uid('org');
      envA = uid('envA');
      envB = uid('envB');
      await repos.organizations.insert({ token: orgToken, name: 'base', active: true, createdAt: now, updatedAt: now });
      await repos.environments.insert({ key: envA, organizationToken: orgToken, name: 'A', production: false, createdAt: now, updatedAt: now });
      await repos.environments.insert({ key: envB, organizationToken: orgToken, name: 'B', production: true, createdAt: now, updatedAt: now });
    });

    it('organizations: insert, find, list, setActive, isEmpty', async () => {
      const store2 = await migratedStore();
      const r = repositories(store2.db, store2.dialect);
      expect(await r.organizations.isEmpty()).toBe(true);
      const created = '2024-01-02T03:04:05.678Z';
      const second = { token: uid('o'), name: 'second', active: true, createdAt: '2024-01-02T03:04:05.679Z', updatedAt: created };
      const first = { token: uid('o'), name: 'first', active: true, createdAt: created, updatedAt: created };
      await r.organizations.insert(second);
      await r.organizations.insert(first);
      expect(await r.organizations.isEmpty()).toBe(false);
      expect(await r.organizations.find(first.token)).toEqual(first);
      expect(await r.organizations.find('nope')).toBeUndefined();
      expect((await r.organizations.list()).map((o) => o.token)).toEqual([first.token, second.token]);

      const later = '2024-06-01T00:00:00.000Z';
      expect(await r.organizations.setActive(first.token, false, later)).toBe(true);
      const deactivated = await r.organizations.find(first.token);
      expect(deactivated).toEqual({ ...first, active: false, updatedAt: later });
      expect(typeof deactivated?.active).toBe('boolean');
      expect(await r.organizations.setActive(first.token, true, later)).toBe(true);
      expect((await r.organizations.find(first.token))?.active).toBe(true);
      expect(await r.organizations.setActive('nope', true, later)).toBe(false);
    });

    it('environments: insert, find, listByOrganization with keyset pagination', async () => {
      const org = uid('org');
      const other = uid('org');
      await repos.organizations.insert({ token: org, name: 'paged', active: true, createdAt: now, updatedAt: now });
      await repos.organizations.insert({ token: other, name: 'other', active: true, createdAt: now, updatedAt: now });
      const keys: string[] = [];
      for (let i = 0; i < 25; i += 1) {
        const key = uid('env');
        keys.push(key);
        await repos.environments.insert({
          key,
          organizationToken: org,
          name: `env ${i}`,
          production: i % 2 === 1,
          createdAt: now,
          updatedAt: now,
        });
        // Interleave another organization's rows: they must never show up.
        if (i % 5 === 0) {
          await repos.environments.insert({ key: uid('foreign'), organizationToken: other, name: 'x', production: false, createdAt: now, updatedAt: now });
        }
      }

      const found = await repos.environments.find(keys[3] as string);
      expect(found).toMatchObject({ key: keys[3], organizationToken: org, name: 'env 3', production: true, createdAt: now, updatedAt: now });
      expect(found).not.toHaveProperty('seq');
      expect(typeof found?.production).toBe('boolean');
      expect(await repos.environments.find('nope')).toBeUndefined();

      const all = await repos.environments.listByOrganization(org, asc(100));
      expect(all.map((e) => e.key)).toEqual(keys);
      // A page's cursor is the position of its last environment (what `since_token` resolves to).
      const positionOf = async (environment: Environment) => (await repos.environments.positionIn(org, environment.key)) as number;
      const seqs = await Promise.all(all.map(positionOf));
      for (let i = 1; i < seqs.length; i += 1) expect(seqs[i]).toBeGreaterThan(seqs[i - 1] as number);
      expect(await repos.environments.positionIn(other, keys[0] as string)).toBeUndefined();

      // Page forward 10 at a time: no duplicates, no gaps, in insertion order.
      const pagedAsc: string[] = [];
      const pageSizes: number[] = [];
      let since: number | null = null;
      for (;;) {
        const page = await repos.environments.listByOrganization(org, asc(10, since));
        pageSizes.push(page.length);
        if (page.length === 0) break;
        pagedAsc.push(...page.map((e) => e.key));
        since = await positionOf(page[page.length - 1] as Environment);
      }
      expect(pageSizes).toEqual([10, 10, 5, 0]);
      expect(pagedAsc).toEqual(keys);

      // And backwards.
      const pagedDesc: string[] = [];
      since = null;
      for (;;) {
        const page = await repos.environments.listByOrganization(org, desc(7, since));
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(7);
        pagedDesc.push(...page.map((e) => e.key));
        since = await positionOf(page[page.length - 1] as Environment);
      }
      expect(pagedDesc).toEqual([...keys].reverse());

      // sinceSeq is exclusive in both directions; count limits.
      const pivot = await positionOf(all[4] as Environment);
      expect((await repos.environments.listByOrganization(org, asc(2, pivot))).map((e) => e.key)).toEqual([keys[5], keys[6]]);
      expect((await repos.environments.listByOrganization(org, desc(2, pivot))).map((e) => e.key)).toEqual([keys[3], keys[2]]);
      expect(await repos.environments.listByOrganization(org, asc(1))).toHaveLength(1);
      expect(await repos.environments.listByOrganization(org, desc(5, await positionOf(all[0] as Environment)))).toEqual([]);
      expect(await repos.environments.listByOrganization(org, asc(5, await positionOf(all[24] as Environment)))).toEqual([]);
      expect(await repos.environments.listByOrganization(other, asc(100))).toHaveLength(5);
    });

    it('environments: update', async () => {
      const key = uid('env');
      await repos.environments.insert({ key, organizationToken: orgToken, name: 'before', production: false, createdAt: now, updatedAt: now });
      const later = '2025-01-01T00:00:00.001Z';
      expect(await repos.environments.update(key, { name: 'after', production: true, updatedAt: later })).toBe(true);
      expect(await repos.environments.find(key)).toMatchObject({ name: 'after', production: true, createdAt: now, updatedAt: later });
      expect(await repos.environments.update('nope', { name: 'after', updatedAt: later })).toBe(false);
      // JSON lists and booleans go in and come back as such; null stays "any" / "every type".
      await repos.environments.update(key, { allowedOrigins: ['https://shop.example'], enhancedIframeSecurity: true, callbackUrl: 'https://hooks.example/cb', callbackFormat: 'json', callbackEventTypes: ['AddGateway'], updatedAt: later });
      expect(await repos.environments.find(key)).toMatchObject({ allowedOrigins: ['https://shop.example'], enhancedIframeSecurity: true, callbackUrl: 'https://hooks.example/cb', callbackFormat: 'json', callbackEventTypes: ['AddGateway'] });
      await repos.environments.update(key, { allowedOrigins: null, callbackUrl: null, callbackEventTypes: null, updatedAt: later });
      expect(await repos.environments.find(key)).toMatchObject({ allowedOrigins: null, callbackUrl: null, callbackEventTypes: null, sealedSigningSecret: null });
    });

    it('access secrets: insert, findLiveByHash, find, listByOrganization, revoke', async () => {
      const org = uid('org');
      await repos.organizations.insert({ token: org, name: 'secrets', active: true, createdAt: now, updatedAt: now });
      const base = { organizationToken: org, role: 'admin' as const, createdAt: now, updatedAt: now };
      const one = { ...base, key: uid('as'), name: 'one', environmentKeys: null, secretHash: randomBytes(32).toString('hex') };
      const two = { ...base, key: uid('as'), name: 'two', environmentKeys: [envA], secretHash: randomBytes(32).toString('hex') };
      await repos.accessSecrets.insert(one);
      await repos.accessSecrets.insert(two);

      const live = await repos.accessSecrets.findLiveByHash(one.secretHash);
      expect(live).toEqual({ ...one, revokedAt: null, lastUsedAt: null });
      expect(live).not.toHaveProperty('seq');
      expect(await repos.accessSecrets.findLiveByHash(randomBytes(32).toString('hex'))).toBeUndefined();
      expect(await repos.accessSecrets.find(two.key)).toMatchObject(two);
      expect(await repos.accessSecrets.find('nope')).toBeUndefined();

      expect((await repos.accessSecrets.listByOrganization(org, asc(10))).map((s) => s.key)).toEqual([one.key, two.key]);
      expect((await repos.accessSecrets.listByOrganization(org, desc(10))).map((s) => s.key)).toEqual([two.key, one.key]);
      const everyone = (await repos.accessSecrets.listByOrganization(null, asc(1000))).map((s) => s.key);
      expect(everyone).toEqual(expect.arrayContaining([one.key, two.key]));

      const revokedAt = '2024-03-01T00:00:00.000Z';
      expect(await repos.accessSecrets.revoke(one.key, revokedAt)).toMatchObject({ key: one.key, environmentKeys: null, revokedAt });
      expect(await repos.accessSecrets.findLiveByHash(one.secretHash)).toBeUndefined();
      expect(await repos.accessSecrets.find(one.key)).toMatchObject({ revokedAt, updatedAt: revokedAt });
      expect(await repos.accessSecrets.revoke(one.key, '2024-03-02T00:00:00.000Z')).toBeUndefined();
      expect((await repos.accessSecrets.find(one.key))?.revokedAt).toBe(revokedAt);
      expect(await repos.accessSecrets.revoke('nope', revokedAt)).toBeUndefined();
      // The other secret is untouched.
      expect(await repos.accessSecrets.findLiveByHash(two.secretHash)).toMatchObject({ key: two.key });
    });

    it('uniqueness: duplicate secret_hash, access secret key, environment key and gateway token reject', async () => {
      const hash = randomBytes(32).toString('hex');
      const secret = { organizationToken: orgToken, name: 's', role: 'read' as const, environmentKeys: null, createdAt: now, updatedAt: now };
      const key = uid('as');
      await repos.accessSecrets.insert({ ...secret, key, secretHash: hash });
      await expect(repos.accessSecrets.insert({ ...secret, key: uid('as'), secretHash: hash })).rejects.toThrow();
      await expect(repos.accessSecrets.insert({ ...secret, key, secretHash: randomBytes(32).toString('hex') })).rejects.toThrow();
      // A revoked secret's hash still occupies the slot.
      await repos.accessSecrets.revoke(key, now);
      await expect(repos.accessSecrets.insert({ ...secret, key: uid('as'), secretHash: hash })).rejects.toThrow();

      await expect(
        repos.environments.insert({ key: envA, organizationToken: orgToken, name: 'dup', production: false, createdAt: now, updatedAt: now }),
      ).rejects.toThrow();
      await expect(repos.organizations.insert({ token: orgToken, name: 'dup', active: true, createdAt: now, updatedAt: now })).rejects.toThrow();

      const gateway = newGateway(envA);
      await repos.gateways.insert(gateway);
      await expect(repos.gateways.insert({ ...newGateway(envB), token: gateway.token })).rejects.toThrow();
      // The store is still usable after the failed statements.
      expect(await repos.accessSecrets.find(key)).toMatchObject({ key });
    });

    function newGateway(environmentKey: string): Gateway {
      return {
        token: uid('gw'),
        environmentKey,
        gatewayType: 'test',
        description: null,
        merchantProfileKey: null,
        subMerchantKey: null,
        sandbox: false,
        state: 'retained',
        safeCredentials: {},
        sealed: { credentials: null },
        settings: {},
        createdAt: now,
        updatedAt: now,
      };
    }

    it('gateways: insert, find and list scoped to the environment, update', async () => {
      const env = uid('env');
      const otherEnv = uid('env');
      await repos.environments.insert({ key: env, organizationToken: orgToken, name: 'gw', production: false, createdAt: now, updatedAt: now });
      await repos.environments.insert({ key: otherEnv, organizationToken: orgToken, name: 'gw2', production: false, createdAt: now, updatedAt: now });
      const first: Gateway = { ...newGateway(env), description: 'first', safeCredentials: { a: 'b' }, sealed: { credentials: 'c1.k.x' }, settings: { timeout_seconds: 30 } };
      const second: Gateway = { ...newGateway(env), sandbox: true };
      await repos.gateways.insert(first);
      await repos.gateways.insert(second);

      // The domain shape: a real boolean, parsed credentials and settings, no seq; stored as 0/1 and JSON text.
      const found = await repos.gateways.find(env, first.token);
      expect(found).toEqual(first);
      expect(typeof found?.sandbox).toBe('boolean');
      expect(found).not.toHaveProperty('seq');
      expect(await repos.gateways.find(env, second.token)).toEqual(second);
      const stored = await store.db.selectFrom('gateways').selectAll().where('token', 'in', [first.token, second.token]).orderBy('seq').execute();
      expect(stored.map((row) => [row.sandbox, row.safe_credentials, row.settings])).toEqual([
        [0, '{"a":"b"}', '{"timeout_seconds":30}'],
        [1, null, null],
      ]);
      expect(await repos.gateways.find(otherEnv, first.token)).toBeUndefined();
      expect(await repos.gateways.find(env, 'nope')).toBeUndefined();

      const position = await repos.gateways.position(env, first.token);
      expect(typeof position?.seq).toBe('number');
      expect(await repos.gateways.position(otherEnv, first.token)).toBeUndefined();
      expect((await repos.gateways.list(env, asc(10))).map((g) => g.token)).toEqual([first.token, second.token]);
      expect((await repos.gateways.list(env, desc(10))).map((g) => g.token)).toEqual([second.token, first.token]);
      expect((await repos.gateways.list(env, asc(10, position?.seq ?? null))).map((g) => g.token)).toEqual([second.token]);
      expect(await repos.gateways.list(otherEnv, asc(10))).toEqual([]);

      const later = '2024-12-31T23:59:59.999Z';
      // Updating through another environment touches nothing.
      expect(await repos.gateways.updateUnlessRedacted(otherEnv, first.token, { description: 'hijacked', updatedAt: later })).toBe(false);
      expect((await repos.gateways.find(env, first.token))?.description).toBe('first');
      expect(await repos.gateways.updateUnlessRedacted(env, first.token, { description: 'changed', sandbox: true, sealed: { credentials: null }, updatedAt: later })).toBe(true);
      expect(await repos.gateways.find(env, first.token)).toEqual({
        ...first,
        description: 'changed',
        sandbox: true,
        sealed: { credentials: null },
        updatedAt: later,
      });
      expect(await repos.gateways.find(env, second.token)).toEqual(second);

      // A redacted gateway is never updated again (a redact that wins a race stays redacted).
      await repos.gateways.updateUnlessRedacted(env, second.token, { state: 'redacted', sealed: { credentials: null }, updatedAt: later });
      expect(await repos.gateways.updateUnlessRedacted(env, second.token, { description: 'revived', updatedAt: later })).toBe(false);
      expect((await repos.gateways.find(env, second.token))?.description).not.toBe('revived');
    });

    it('payment methods: the domain shape round-trips (booleans, parsed JSON, sealed group, no seq); conditional updates; the repository records no event', async () => {
      const later = '2024-12-31T23:59:59.999Z';
      const card: CardDetails = {
        first_name: 'Ada',
        last_name: 'Lovelace',
        card_type: 'visa',
        month: 6,
        year: 2041,
        first_six_digits: '411111',
        last_four_digits: '1111',
        issuer_identification_number: '41111111',
        eligible_for_card_updater: null,
        address1: null,
        address2: null,
        city: 'London',
        state: null,
        zip: null,
        country: null,
        phone_number: null,
        company: null,
        shipping_address1: null,
        shipping_address2: null,
        shipping_city: null,
        shipping_state: null,
        shipping_zip: null,
        shipping_country: null,
        shipping_phone_number: null,
      };
      const method: NewPaymentMethod = {
        token: uid('pm'),
        environmentKey: envA,
        paymentMethodType: 'credit_card',
        storageState: 'cached',
        test: true,
        singleUse: true,
        email: 'ada@example.com',
        data: { nested: [1, 'two', null] },
        metadata: { customer: 'c-1', vip: true, visits: 3 },
        callbackUrl: null,
        details: card,
        sealed: { number: 'c1.k.number', cvv: 'c1.k.cvv' },
        fingerprint: 'ab12',
        cvvLength: 3,
        cvvExpiresAt: later,
        cacheExpiresAt: later,
        createdAt: now,
        updatedAt: now,
      };
      await repos.paymentMethods.insert(method);

      const found = await repos.paymentMethods.find(envA, method.token);
      const expected: PaymentMethod = { ...method, sealed: { number: 'c1.k.number', cvv: 'c1.k.cvv', routingNumber: null, accountNumber: null } } as PaymentMethod;
      expect(found).toEqual(expected);
      expect(found).not.toHaveProperty('seq');
      expect(typeof found?.test).toBe('boolean');
      expect(typeof found?.singleUse).toBe('boolean');
      const stored = await store.db.selectFrom('payment_methods').selectAll().where('token', '=', method.token).executeTakeFirstOrThrow();
      expect([stored.test, stored.single_use, JSON.parse(stored.details), JSON.parse(stored.data as string), JSON.parse(stored.metadata as string)]).toEqual([1, 1, card, method.data, method.metadata]);
      expect(await repos.paymentMethods.find(envB, method.token)).toBeUndefined();
      expect(await repos.paymentMethods.findMany(envA, [method.token, 'nope'])).toEqual([expected]);
      expect(typeof (await repos.paymentMethods.position(envA, method.token))?.seq).toBe('number');
      expect(await repos.paymentMethods.position(envB, method.token)).toBeUndefined();

      // Conditional on the state: a method in none of `fromStates` is left as it is.
      expect(await repos.paymentMethods.updateIfState(envA, method.token, ['retained'], { email: 'x@example.com', updatedAt: later })).toBe(false);
      expect(await repos.paymentMethods.updateIfStateReturning(envB, method.token, ['cached'], { email: 'x@example.com', updatedAt: later })).toBeUndefined();
      const used = await repos.paymentMethods.updateIfStateReturning(envA, method.token, ['cached', 'retained'], {
        storageState: 'used',
        sealed: { cvv: null },
        cvvLength: null,
        cvvExpiresAt: null,
        updatedAt: later,
      });
      expect(used).toEqual({ ...expected, storageState: 'used', sealed: { ...expected.sealed, cvv: null }, cvvLength: null, cvvExpiresAt: null, updatedAt: later });
      expect(await repos.paymentMethods.find(envA, method.token)).toEqual(used);

      // Conditional on the read: a stale read (an older updatedAt) changes nothing.
      expect(await repos.paymentMethods.updateIfUnchanged(found as PaymentMethod, ['used'], { email: null, updatedAt: later })).toBe(false);
      expect(await repos.paymentMethods.updateIfUnchanged(used as PaymentMethod, ['used'], { email: null, data: null, metadata: null, updatedAt: '2025-01-01T00:00:00.000Z' })).toBe(true);
      expect(await repos.paymentMethods.find(envA, method.token)).toMatchObject({ email: null, data: null, metadata: null, updatedAt: '2025-01-01T00:00:00.000Z' });

      // Events are recorded by the services that decide the changes, not by the repository.
      expect(await store.db.selectFrom('events').select('event_type').where('object_key', '=', method.token).execute()).toEqual([]);
    });

    it('transactions: insert, find and list scoped to the environment', async () => {
      const base: Omit<NewTransaction, 'token'> = {
        environmentKey: envA,
        transactionType: 'RedactGateway',
        state: 'succeeded',
        succeeded: true,
        messageKey: 'messages.transaction_succeeded',
        message: 'Succeeded!',
        gatewayToken: uid('gw'),
        paymentMethodToken: null,
        referenceToken: null,
        amount: null,
        currencyCode: null,
        details: null,
        createdAt: now,
        updatedAt: now,
      };
      const one: NewTransaction = { ...base, token: uid('tx') };
      const two: NewTransaction = {
        ...base,
        token: uid('tx'),
        transactionType: 'Purchase',
        state: 'gateway_processing_failed',
        succeeded: false,
        amount: Number.MAX_SAFE_INTEGER,
        currencyCode: 'USD',
        details: { nested: { ok: true }, text: 'é ✓ 😀', order_id: 'order-7' },
      };
      const insertedOne = await repos.transactions.insert(one);
      const insertedTwo = await repos.transactions.insert(two);

      const foundOne = await repos.transactions.find(envA, one.token);
      const foundTwo = await repos.transactions.find(envA, two.token);
      // The domain shape: real booleans, parsed details, the table's defaults for what was left out.
      expect(foundOne).toMatchObject(one);
      expect(foundTwo).toMatchObject(two);
      expect(foundOne).toEqual(insertedOne);
      expect(foundTwo).toEqual(insertedTwo);
      expect(foundOne).toMatchObject({ callbackUrl: null, callbackFormat: null, receiverToken: null, firstAttemptToken: null, routedBy: null, reconcileAttempts: 0, reconcileNextAt: null, orderId: null });
      expect(foundTwo?.orderId).toBe('order-7');
      expect(typeof foundOne?.position).toBe('number');
      expect(foundOne?.succeeded).toBe(true);
      expect(foundTwo?.succeeded).toBe(false);
      expect(typeof foundTwo?.amount).toBe('number');
      expect(foundTwo?.amount).toBe(Number.MAX_SAFE_INTEGER);
      expect(await repos.transactions.find(envB, one.token)).toBeUndefined();
      expect((await repos.transactions.list(envA, asc(10))).map((t) => t.token)).toEqual([one.token, two.token]);
      expect((await repos.transactions.list(envA, desc(1))).map((t) => t.token)).toEqual([two.token]);
      expect(await repos.transactions.list(envB, asc(10))).toEqual([]);
    });

    it('transactions: list by gateway, states and cursor, in both orders (each filter set is its own compiled statement)', async () => {
      const env = uid('env');
      await repos.environments.insert({ key: env, organizationToken: orgToken, name: 'list filters', production: false, createdAt: now, updatedAt: now });
      const [gatewayOne, gatewayTwo] = [uid('gw'), uid('gw')];
      const made: Transaction[] = [];
      const states = [TransactionState.succeeded, TransactionState.failed, TransactionState.gatewayProcessingFailed, TransactionState.succeeded, TransactionState.failed, TransactionState.succeeded];
      for (const [index, state] of states.entries()) {
        made.push(
          await repos.transactions.insert({
            token: uid('tx'), environmentKey: env, transactionType: 'Purchase', state, succeeded: state === TransactionState.succeeded, messageKey: null, message: null,
            gatewayToken: index % 2 === 0 ? gatewayOne : gatewayTwo, paymentMethodToken: null, referenceToken: null, amount: 100 + index, currencyCode: 'USD',
            details: { order_id: `order-${index}` }, createdAt: now, updatedAt: now,
          }),
        );
      }
      const tokens = (list: Transaction[]) => list.map((transaction) => transaction.token);
      const where = (keep: (transaction: Transaction, index: number) => boolean) => made.filter(keep);
      const at = (index: number) => (made[index] as Transaction).position;
      expect(tokens(await repos.transactions.list(env, asc(20)))).toEqual(tokens(made));
      expect(tokens(await repos.transactions.list(env, desc(2, at(4))))).toEqual(tokens([made[3], made[2]] as Transaction[]));
      expect(tokens(await repos.transactions.list(env, asc(20), { gatewayToken: gatewayTwo }))).toEqual(tokens(where((_, index) => index % 2 === 1)));
      expect(tokens(await repos.transactions.list(env, asc(20), { states: [TransactionState.failed, TransactionState.gatewayProcessingFailed] }))).toEqual(tokens(where((t) => t.state !== TransactionState.succeeded)));
      expect(tokens(await repos.transactions.list(env, asc(20), { states: [TransactionState.succeeded] }))).toEqual(tokens(where((t) => t.state === TransactionState.succeeded)));
      expect(tokens(await repos.transactions.list(env, desc(20, at(5)), { gatewayToken: gatewayOne, states: [TransactionState.succeeded, TransactionState.gatewayProcessingFailed] }))).toEqual(tokens([made[2], made[0]] as Transaction[]));
      expect(tokens(await repos.transactions.list(env, asc(1, at(0)), { gatewayToken: gatewayTwo, states: [TransactionState.failed] }))).toEqual(tokens([made[1]] as Transaction[]));
      // The environment stays the scope whatever the filters.
      expect(await repos.transactions.list(envA, asc(20), { gatewayToken: gatewayOne })).toEqual([]);
    });

    it('transactions: finish returns exactly the transaction a read gives, with its outcome event; a finish that fails lands nothing', async () => {
      const insertProcessing = () =>
        inTransaction(store, (trx) =>
          recordTransaction(trx, {
            token: uid('tx'),
            environmentKey: envA,
            transactionType: 'Purchase',
            state: 'processing',
            succeeded: false,
            messageKey: null,
            message: null,
            gatewayToken: null,
            paymentMethodToken: null,
            referenceToken: null,
            amount: 100,
            currencyCode: 'USD',
            details: { call_deadline: 'x' },
            createdAt: now,
            updatedAt: now,
          }),
        );
      const outcomeEvents = async (token: string) =>
        (await repos.events.list(envA, { objectKey: token }, asc(10))).map((event) => event.eventType).filter((type) => type !== 'TransactionCreated');
      const at = new Date(Date.parse(now) + 5).toISOString();

      const succeeded = await insertProcessing();
      const finished = await inTransaction(store, (trx) =>
        finishTransactionRecord(trx, succeeded, { state: 'succeeded', succeeded: true, messageKey: 'messages.transaction_succeeded', message: 'Succeeded!', details: {}, transcript: 'a', updatedAt: at }),
      );
      expect(finished).toEqual(await repos.transactions.find(envA, succeeded.token));
      expect(finished).toMatchObject({ state: 'succeeded', succeeded: true, currencyCode: 'USD', position: succeeded.position });
      expect(await outcomeEvents(succeeded.token)).toEqual(['TransactionSucceeded']);

      // An unknown outcome is due for reconciliation at once: a field the patch did not name.
      const unknown = await insertProcessing();
      const pending = await repos.transactions.finish(unknown, { state: 'gateway_processing_result_unknown', succeeded: false, message: 'Timed out', updatedAt: at });
      expect(pending.reconcileNextAt).toBe(at);
      expect(pending).toEqual(await repos.transactions.find(envA, unknown.token));

      // A failing update (state is NOT NULL) fails the transaction, on PostgreSQL at its commit.
      const failing = await insertProcessing();
      await expect(inTransaction(store, (trx) => trx.transactions.finish(failing, { state: null as unknown as TransactionState, updatedAt: at }))).rejects.toThrow();
      expect(await repos.transactions.find(envA, failing.token)).toEqual(failing);
      expect(await outcomeEvents(failing.token)).toEqual([]);
    });

    it('types: booleans are booleans, positions are integers, timestamps round-trip as the same ISO string', async () => {
      const stamps = ['1970-01-01T00:00:00.000Z', '2024-02-29T23:59:59.999Z', new Date().toISOString(), '9999-12-31T23:59:59.999Z'];
      for (const stamp of stamps) {
        const token = uid('org');
        await repos.organizations.insert({ token, name: 't', active: false, createdAt: stamp, updatedAt: stamp });
        const row = await repos.organizations.find(token);
        expect(row?.createdAt).toBe(stamp);
        expect(row?.updatedAt).toBe(stamp);
        expect(row?.active).toBe(false);
        expect(new Date(row?.createdAt as string).toISOString()).toBe(stamp);

        const envKey = uid('env');
        await repos.environments.insert({ key: envKey, organizationToken: token, name: 'n', production: true, createdAt: stamp, updatedAt: stamp });
        const env = await repos.environments.find(envKey);
        expect(env?.production).toBe(true);
        expect(env?.enhancedIframeSecurity).toBe(false);
        expect(env?.createdAt).toBe(stamp);
        expect(Number.isSafeInteger(await repos.environments.positionIn(token, envKey))).toBe(true);
      }
    });

    it('records of the domain: certificates, receivers, workflows and events come back as written, with real booleans and parsed lists', async () => {
      const stamp = '2024-02-29T23:59:59.999Z';
      const later = '2024-03-01T00:00:00.000Z';
      const certificate = {
        token: uid('cert'),
        environmentKey: envA,
        level: 'organization' as const,
        algorithm: 'ec-prime256v1' as const,
        cn: 'cn',
        o: null,
        ou: null,
        c: 'US',
        st: null,
        l: null,
        emailAddress: 'a@b.example',
        publicKey: 'spki',
        publicKeyHash: 'hash',
        csr: 'csr',
        pem: null,
        sealedPrivateKey: 'c1.k.x',
        createdAt: stamp,
        updatedAt: stamp,
      };
      await repos.certificates.insert(certificate);
      expect(await repos.certificates.find(envA, certificate.token)).toEqual({ ...certificate, redactedAt: null });
      expect(await repos.certificates.find(envB, certificate.token)).toBeUndefined();
      expect(await repos.certificates.redact(envA, certificate.token, later)).toBe(true);
      expect(await repos.certificates.redact(envA, certificate.token, later)).toBe(false);
      expect(await repos.certificates.find(envA, certificate.token)).toMatchObject({ redactedAt: later, sealedPrivateKey: '', csr: null, updatedAt: later });

      const receiver = {
        token: uid('rc'),
        environmentKey: envA,
        receiverType: 'test',
        hostnames: ['https://a.example', 'https://b.example:8443'],
        state: 'retained' as const,
        companyName: null,
        subMerchantKey: 'sub',
        credentials: [{ name: 'user', safe: true, value: 'u' }, { name: 'key', safe: false }],
        protocolUser: null,
        hostKey: null,
        certificateToken: certificate.token,
        createdAt: stamp,
        updatedAt: stamp,
        sealed: { credentials: 'c1.k.y', protocol: null },
      };
      await repos.receivers.insert(receiver);
      expect(await repos.receivers.find(envA, receiver.token)).toEqual(receiver);
      expect(await repos.receivers.updateUnlessRedacted(envA, receiver.token, { hostnames: ['https://c.example'], updatedAt: later })).toBe(true);
      expect(await repos.receivers.find(envA, receiver.token)).toEqual({ ...receiver, hostnames: ['https://c.example'], updatedAt: later });
      const redacted = { state: 'redacted' as const, credentials: [], sealed: { credentials: null, protocol: null }, updatedAt: later };
      expect(await repos.receivers.updateUnlessRedacted(envA, receiver.token, redacted)).toBe(true);
      expect(await repos.receivers.updateUnlessRedacted(envA, receiver.token, redacted)).toBe(false);
      expect(await repos.receivers.find(envA, receiver.token)).toMatchObject({ state: 'redacted', credentials: [], sealed: { credentials: null, protocol: null } });

      const stored = {
        key: uid('wf'),
        name: 'main',
        rules: [{ name: 'eur', condition: { currencies: ['EUR'] }, target: { split: [{ gateway_token: 'GA', weight: 1 }] } }],
        defaultTarget: { gateway_token: 'GB' },
        backupGatewayTokens: ['GC'],
        retryMode: 'standard' as const,
        successRateRouting: true,
        isDefault: true,
        createdAt: stamp,
        updatedAt: stamp,
      };
      const workflow = { ...stored, environmentKey: envA };
      expect(await repos.workflows.insert(workflow)).toBe(true);
      expect(await repos.workflows.insert(workflow)).toBe(false);
      expect(await repos.workflows.find(envA, workflow.key)).toEqual(stored);
      expect(await repos.workflows.findDefault(envA)).toEqual(stored);
      expect(await repos.workflows.update(envA, workflow.key, { isDefault: false, successRateRouting: false, updatedAt: later })).toBe(true);
      expect(await repos.workflows.find(envA, workflow.key)).toEqual({ ...stored, isDefault: false, successRateRouting: false, updatedAt: later });
      expect(await repos.workflows.findDefault(envA)).toBeUndefined();
      expect(await repos.workflows.remove(envA, workflow.key)).toBe(true);
      expect(await repos.workflows.remove(envA, workflow.key)).toBe(false);

      const event = await inTransaction(store, (trx) => trx.events.record({ environmentKey: envA, eventType: 'AddReceiver', objectType: 'receiver', objectKey: receiver.token, at: stamp, requestId: 'req-1' }));
      expect(await repos.events.find(envA, event.token)).toEqual({ token: event.token, environmentKey: envA, requestId: 'req-1', eventType: 'AddReceiver', objectType: 'receiver', objectKey: receiver.token, createdAt: stamp });
      expect(await repos.events.find(envB, event.token)).toBeUndefined();
    });

    it('wallets: usable certificates (not redacted, oldest first, scoped), a token digest claimed once per environment, the Google merchant id', async () => {
      const base = { level: 'environment' as const, algorithm: 'ec-prime256v1' as const, cn: 'w', o: null, ou: null, c: null, st: null, l: null, emailAddress: null, publicKey: 'spki', publicKeyHash: 'h', csr: null, pem: null, sealedPrivateKey: 'k', createdAt: now, updatedAt: now };
      const env = uid('envW');
      await repos.environments.insert({ key: env, organizationToken: orgToken, name: 'W', production: false, createdAt: now, updatedAt: now });
      const [first, second, third] = [uid('wc1'), uid('wc2'), uid('wc3')];
      for (const token of [first, second, third]) await repos.certificates.insert({ ...base, token, environmentKey: env });
      await repos.certificates.insert({ ...base, token: uid('wcB'), environmentKey: envB });
      await repos.certificates.redact(env, second, now);
      expect((await repos.certificates.usable(env, 10)).map((row) => row.token)).toEqual([first, third]);
      expect((await repos.certificates.usable(env, 1)).map((row) => row.token)).toEqual([first]);

      expect(await repos.walletTokenUses.claim(env, 'digest-1', now)).toBe(true);
      expect(await repos.walletTokenUses.claim(env, 'digest-1', now)).toBe(false);
      expect(await repos.walletTokenUses.claim(envB, 'digest-1', now)).toBe(true);

      expect((await repos.environments.find(env))?.googlePayMerchantId).toBeNull();
      await repos.environments.update(env, { googlePayMerchantId: '01234567890123456789', updatedAt: now });
      expect((await repos.environments.find(env))?.googlePayMerchantId).toBe('01234567890123456789');
    });

    it('master key rotations: recorded with their lists parsed, newest first', async () => {
      const run = { kind: 'move' as const, toProvider: 'pkcs11', toMasterKeyId: 'mk-hsm', fromMasterKeyIds: ['mk-a', 'mk-b'], rewrapped: 3, remaining: 2, outcome: 'interrupted' as const, problem: 'token removed', startedAt: '2999-01-01T00:00:00.000Z', finishedAt: '2999-01-01T00:00:01.000Z' };
      const older = { ...run, id: uid('mkr') };
      const newer = { ...run, id: uid('mkr'), fromMasterKeyIds: [], rewrapped: 2, remaining: 0, outcome: 'completed' as const, problem: null, finishedAt: '2999-01-01T00:00:09.000Z' };
      await repos.masterKeyRotations.insert(older);
      await repos.masterKeyRotations.insert(newer);
      expect(await repos.masterKeyRotations.latest(2)).toEqual([newer, older]);
      expect(await repos.masterKeyRotations.latest(1)).toEqual([newer]);
      await expect(repos.masterKeyRotations.insert(newer)).rejects.toThrow();
    });

    it('payment method exports: insert, find and list scoped to the environment; transitions only from their state and before the deadline', async () => {
      const job: PaymentMethodExport = {
        token: uid('export'),
        environmentKey: envA,
        state: 'pending',
        filter: { storageStates: ['retained'], createdFrom: '2024-01-01T00:00:00.000Z', createdTo: null, metadata: { customer: '42' } },
        recipientPublicKey: '-----BEGIN PGP PUBLIC KEY BLOCK-----\n…',
        recipientFingerprint: 'ab12',
        recipientUserIds: ['Ops <ops@example.com>'],
        requestedBy: { type: 'user', id: 'alice@example.com' },
        approvedBy: null,
        downloadedBy: null,
        closedBy: null,
        paymentMethods: null,
        error: null,
        expiresAt: '2024-03-01T23:59:59.999Z',
        createdAt: now,
        approvedAt: null,
        downloadedAt: null,
        closedAt: null,
        updatedAt: now,
      };
      await repos.paymentMethodExports.insert(job);
      expect(await repos.paymentMethodExports.find(envA, job.token)).toEqual(job);
      expect(await repos.paymentMethodExports.find(envB, job.token)).toBeUndefined();
      expect((await repos.paymentMethodExports.list(envA, 10)).map((item) => item.token)).toContain(job.token);
      const at = '2024-03-01T00:00:00.000Z';
      // Not from another state, not past the deadline.
      expect(await repos.paymentMethodExports.transition(envA, job.token, { from: 'approved', to: 'downloading', at })).toBeUndefined();
      expect(await repos.paymentMethodExports.transition(envA, job.token, { from: 'pending', to: 'approved', unexpiredAt: '2024-03-02T00:00:00.000Z', at })).toBeUndefined();
      expect(await repos.paymentMethodExports.transition(envB, job.token, { from: 'pending', to: 'approved', at })).toBeUndefined();
      const approved = await repos.paymentMethodExports.transition(envA, job.token, { from: 'pending', to: 'approved', unexpiredAt: at, approvedBy: { type: 'access_secret', id: 'SecretKey1' }, expiresAt: '2024-03-02T00:00:00.000Z', at });
      expect(approved).toEqual({ ...job, state: 'approved', approvedBy: { type: 'access_secret', id: 'SecretKey1' }, approvedAt: at, expiresAt: '2024-03-02T00:00:00.000Z', updatedAt: at });
      const racing = await Promise.all([1, 2].map(() => repos.paymentMethodExports.transition(envA, job.token, { from: 'approved', to: 'downloading', downloadedBy: { type: 'user', id: 'bob@example.com' }, at })));
      expect(racing.filter((won) => won !== undefined)).toHaveLength(1);
      const ended = await repos.paymentMethodExports.transition(envA, job.token, { from: 'downloading', to: 'downloaded', paymentMethods: 1234567, at });
      expect(ended).toMatchObject({ state: 'downloaded', paymentMethods: 1234567, downloadedBy: { type: 'user', id: 'bob@example.com' }, downloadedAt: at });
      expect(typeof ended?.paymentMethods).toBe('number');

      // Cancelled or rejected while pending: who and when are kept; nothing moves it on afterwards.
      const other = { ...job, token: uid('export'), approvedBy: null, approvedAt: null };
      await repos.paymentMethodExports.insert(other);
      const rejected = await repos.paymentMethodExports.transition(envA, other.token, { from: 'pending', to: 'rejected', unexpiredAt: at, closedBy: { type: 'access_secret', id: 'SecretKey2' }, at });
      expect(rejected).toEqual({ ...other, state: 'rejected', closedBy: { type: 'access_secret', id: 'SecretKey2' }, closedAt: at, updatedAt: at });
      expect(await repos.paymentMethodExports.find(envA, other.token)).toEqual(rejected);
      expect(await repos.paymentMethodExports.transition(envA, other.token, { from: 'pending', to: 'approved', unexpiredAt: at, approvedBy: { type: 'user', id: 'bob@example.com' }, at })).toBeUndefined();
    });

    it('foreign keys: rows pointing at a missing parent reject', async () => {
      await expect(repos.gateways.insert(newGateway('no-such-environment'))).rejects.toThrow();
      await expect(
        repos.environments.insert({ key: uid('env'), organizationToken: 'no-such-org', name: 'x', production: false, createdAt: now, updatedAt: now }),
      ).rejects.toThrow();
      await expect(
        repos.accessSecrets.insert({
          key: uid('as'),
          organizationToken: 'no-such-org',
          name: 'x',
          role: 'admin',
          environmentKeys: null,
          secretHash: randomBytes(32).toString('hex'),
          createdAt: now,
          updatedAt: now,
        }),
      ).rejects.toThrow();
      await expect(
        repos.transactions.insert({
          token: uid('tx'),
          environmentKey: 'no-such-environment',
          transactionType: 'Purchase',
          state: 'succeeded',
          succeeded: true,
          messageKey: null,
          message: null,
          gatewayToken: null,
          paymentMethodToken: null,
          referenceToken: null,
          amount: 1,
          currencyCode: 'USD',
          details: null,
          createdAt: now,
          updatedAt: now,
        }),
      ).rejects.toThrow();
      expect(await repos.gateways.list('no-such-environment', asc(10))).toEqual([]);
    });

    it('inTransaction rolls back every write when the callback throws', async () => {
      const org = uid('org');
      const env = uid('env');
      const boom = new Error('boom');
      const outcome = inTransaction(store, async (trx) => {
        await trx.organizations.insert({ token: org, name: 'rolled back', active: true, createdAt: now, updatedAt: now });
        await trx.environments.insert({ key: env, organizationToken: org, name: 'rolled back', production: false, createdAt: now, updatedAt: now });
        // Visible inside the transaction...
        expect(await trx.environments.find(env)).toBeDefined();
        throw boom;
      });
      await expect(outcome).rejects.toBe(boom);
      // ...and gone after it.
      expect(await repos.organizations.find(org)).toBeUndefined();
      expect(await repos.environments.find(env)).toBeUndefined();
    });

    it('inTransaction rolls back when a statement inside it fails', async () => {
      const org = uid('org');
      const outcome = inTransaction(store, async (trx) => {
        await trx.organizations.insert({ token: org, name: 'rolled back', active: true, createdAt: now, updatedAt: now });
        await trx.gateways.insert(newGateway('no-such-environment'));
      });
      await expect(outcome).rejects.toThrow();
      expect(await repos.organizations.find(org)).toBeUndefined();
    });

    it('inTransaction commits when the callback returns', async () => {
      const org = uid('org');
      const env = uid('env');
      const result = await inTransaction(store, async (trx) => {
        await trx.organizations.insert({ token: org, name: 'kept', active: true, createdAt: now, updatedAt: now });
        await trx.environments.insert({ key: env, organizationToken: org, name: 'kept', production: false, createdAt: now, updatedAt: now });
        return 'done';
      });
      expect(result).toBe('done');
      expect(await repos.organizations.find(org)).toMatchObject({ name: 'kept' });
      expect(await repos.environments.find(env)).toMatchObject({ organizationToken: org });
    });
  });

  it('storeIsReachable: true while open, false after close', async () => {
    const target = await freshTarget();
    const store = target.open();
    expect(await storeIsReachable(store)).toBe(true);
    await store.close();
    expect(await storeIsReachable(store)).toBe(false);
  });

  // One database for the whole block: the tests run in order and build on each other
  // (init → environments → secrets → gateways), as an operator would.
  describe('services', () => {
    let store: StoreHandle;
    let keyring: Keyring;
    let tenancy: TenancyService;
    let gateways: GatewayService;
    let organization: string;
    let sandbox: Environment;
    let production: Environment;
    const clock = steppingClock();
    const LOGIN = 'sk_live_do_not_leak_4eC39HqLyjWDarjtT1zdp7dc';
    const masterKey = randomBytes(32);

    beforeAll(async () => {
      store = await migratedStore();
      keyring = new Keyring(new WrappedKeysRepo(store.db), masterKey, () => clock.now());
      tenancy = new TenancyService(storeAccess(store), keyring, clock);
      gateways = new GatewayService(storeAccess(store), keyring, clock, new DefinitionCache(store));
    });

    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('TenancyService.init creates org, sandbox environment and a working admin secret, once', async () => {
      expect(await tenancy.isEmpty()).toBe(true);
      const result = await tenancy.init();
      expect(await tenancy.isEmpty()).toBe(false);
      organization = result.organization_token;
      sandbox = await tenancy.findEnvironment(organization, result.environment_key);
      expect(sandbox).toMatchObject({ name: 'sandbox', production: false });

      const secret = await tenancy.findAccessSecret(result.access_secret_key);
      expect(secret).toMatchObject({ role: 'admin', environmentKeys: null, revokedAt: null, organizationToken: organization });
      expect(secret?.secretHash).not.toContain(result.access_secret);
      const live = await repositories(store.db, store.dialect).accessSecrets.findLiveByHash(await keyring.hashSecret(result.access_secret));
      expect(live?.key).toBe(result.access_secret_key);

      await expect(tenancy.init()).rejects.toBeInstanceOf(NotEmptyError);
      expect(await tenancy.listOrganizations()).toHaveLength(1);
    });

    it('createEnvironment and listEnvironments with since_token', async () => {
      production = await tenancy.createEnvironment(organization, 'production', true);
      expect(production).toMatchObject({ name: 'production', production: true, organizationToken: organization });
      const third = await tenancy.createEnvironment(organization, 'third', false);

      const all = await tenancy.listEnvironments(organization, query(null));
      expect(all.map((e) => e.key)).toEqual([sandbox.key, production.key, third.key]);
      expect((await tenancy.listEnvironments(organization, query(sandbox.key))).map((e) => e.key)).toEqual([production.key, third.key]);
      expect((await tenancy.listEnvironments(organization, query(third.key, 'desc'))).map((e) => e.key)).toEqual([production.key, sandbox.key]);
      expect((await tenancy.listEnvironments(organization, query(null, 'desc', 1))).map((e) => e.key)).toEqual([third.key]);

      await expectAppError(tenancy.listEnvironments(organization, query('unknown-token')), {
        key: 'errors.invalid',
        status: 422,
        attribute: 'since_token',
      });
      // Another organization's environment is not a valid since_token either.
      const foreign = await tenancy.createOrganization('foreign');
      const foreignEnv = await tenancy.createEnvironment(foreign.token, 'elsewhere', false);
      await expectAppError(tenancy.listEnvironments(organization, query(foreignEnv.key)), {
        key: 'errors.invalid',
        status: 422,
        attribute: 'since_token',
      });
      await expectAppError(tenancy.findEnvironment(organization, foreignEnv.key), { key: 'errors.environment_not_found', status: 404 });
      await expect(tenancy.createEnvironment('no-such-org', 'x', false)).rejects.toThrow(/no organization/);
    });

    it('createAccessSecret and revokeAccessSecret', async () => {
      const created = await tenancy.createAccessSecret(organization, { name: 'scoped', role: 'transact', environmentKeys: [sandbox.key] });
      expect(created.accessSecret).toMatchObject({ name: 'scoped', role: 'transact', environmentKeys: [sandbox.key], revokedAt: null });
      expect(JSON.stringify(created.accessSecret)).not.toContain(created.secret);
      const hash = await keyring.hashSecret(created.secret);
      expect(Keyring.sameHash(created.accessSecret.secretHash, hash)).toBe(true);
      const secrets = repositories(store.db, store.dialect).accessSecrets;
      expect((await secrets.findLiveByHash(hash))?.key).toBe(created.accessSecret.key);
      expect((await tenancy.listSecretsForEnvironment(organization, sandbox.key)).map((s) => s.key)).toContain(created.accessSecret.key);
      expect((await tenancy.listSecretsForEnvironment(organization, production.key)).map((s) => s.key)).not.toContain(created.accessSecret.key);

      expect(await tenancy.revokeAccessSecret(created.accessSecret.key)).toBe(true);
      expect(await secrets.findLiveByHash(hash)).toBeUndefined();
      expect(await tenancy.revokeAccessSecret(created.accessSecret.key)).toBe(false);
      expect((await tenancy.findAccessSecret(created.accessSecret.key))?.revokedAt).not.toBeNull();

      const foreign = await tenancy.createOrganization('foreign-2');
      const foreignEnv = await tenancy.createEnvironment(foreign.token, 'elsewhere', false);
      await expectAppError(tenancy.createAccessSecret(organization, { name: 'bad', role: 'read', environmentKeys: [foreignEnv.key] }), {
        key: 'errors.invalid',
        status: 422,
        attribute: 'environment_key',
      });
    });

    it('gateway create: stripe needs a production environment and a login', async () => {
      await expectAppError(gateways.create(sandbox, 'stripe', { credentials: { login: LOGIN } }), { key: 'errors.account_inactive', status: 402 });
      const blank = await expectAppError(gateways.create(production, 'stripe', { credentials: {} }), {
        key: 'errors.blank',
        status: 422,
        attribute: 'login',
      });
      expect(blank.entries).toHaveLength(1);
      await expectAppError(gateways.create(production, 'nonsense', { credentials: {} }), { key: 'errors.invalid_gateway_type', status: 422 });
      await expectAppError(gateways.create(production, undefined, { credentials: {} }), { key: 'errors.invalid_gateway_type', status: 422 });
      expect(await gateways.list(production, query(null))).toEqual([]);
    });

    it('gateway create seals credentials: never stored in clear, opened back by openCredentials', async () => {
      const record = await gateways.create(production, 'stripe', { description: 'live', credentials: { login: LOGIN } });
      expect(record.definition.gatewayType).toBe('stripe');
      expect(record).toMatchObject({ environmentKey: production.key, gatewayType: 'stripe', description: 'live', state: 'retained', sandbox: false, safeCredentials: {} });
      const stored = await store.db.selectFrom('gateways').selectAll().where('token', '=', record.token).executeTakeFirstOrThrow();
      expect(stored.sealed_credentials).toMatch(/^c1\./);
      expect(stored.sealed_credentials).not.toContain(LOGIN);
      expect(JSON.stringify(stored)).not.toContain(LOGIN);
      expect(JSON.stringify(stored)).not.toContain(Buffer.from(LOGIN).toString('base64'));
      expect(await gateways.openCredentials(gatewayOf(stored))).toEqual({ login: LOGIN });
      // Another process (fresh Keyring, empty cache) with the same master key opens it too.
      const elsewhere = new GatewayService(storeAccess(store), new Keyring(new WrappedKeysRepo(store.db), masterKey), clock, new DefinitionCache(store));
      expect(await elsewhere.openCredentials(record)).toEqual({ login: LOGIN });
      // A different master key does not.
      const foreign = new GatewayService(storeAccess(store), new Keyring(new WrappedKeysRepo(store.db), randomBytes(32)), clock, new DefinitionCache(store));
      await expect(foreign.openCredentials(record)).rejects.toThrow(/COFFER_MASTER_KEY/);

      // The test gateway declares no credentials: supplied ones are ignored, nothing is sealed.
      const test = await gateways.create(sandbox, 'test', { sandbox: true, credentials: { login: 'ignored' } });
      expect(test).toMatchObject({ gatewayType: 'test', sandbox: true, safeCredentials: {}, sealed: { credentials: null } });
      expect(await gateways.openCredentials(test)).toEqual({});
    });

    it('gateway list, show and since_token', async () => {
      const env = await tenancy.createEnvironment(organization, 'listing', false);
      const tokens: string[] = [];
      for (let i = 0; i < 4; i += 1) tokens.push((await gateways.create(env, 'test', { description: `g${i}`, credentials: {} })).token);

      expect((await gateways.list(env, query(null))).map((g) => g.token)).toEqual(tokens);
      expect((await gateways.list(env, query(tokens[1] as string))).map((g) => g.token)).toEqual(tokens.slice(2));
      expect((await gateways.list(env, query(tokens[2] as string, 'desc'))).map((g) => g.token)).toEqual([tokens[1], tokens[0]]);
      expect((await gateways.list(env, query(null, 'asc', 2))).map((g) => g.token)).toEqual(tokens.slice(0, 2));
      await expectAppError(gateways.list(env, query('no-such-gateway')), { key: 'errors.invalid', status: 422, attribute: 'since_token' });
      // A gateway of another environment is unknown here, as a since_token too.
      const elsewhere = await gateways.create(sandbox, 'test', { credentials: {} });
      await expectAppError(gateways.list(env, query(elsewhere.token)), { key: 'errors.invalid', status: 422, attribute: 'since_token' });

      const shown = await gateways.show(env, tokens[0] as string);
      expect(shown).toMatchObject({ token: tokens[0], description: 'g0' });
      await expectAppError(gateways.show(env, 'no-such-gateway'), { key: 'errors.gateway_not_found', status: 404 });
      await expectAppError(gateways.show(sandbox, tokens[0] as string), { key: 'errors.gateway_not_found', status: 404 });
    });

    it('gateway update: fields, credentials, and gateway_type cannot change', async () => {
      const record = await gateways.create(production, 'stripe', { credentials: { login: 'sk_first' } });
      const token = record.token;
      await expectAppError(gateways.update(production, token, 'test', { credentials: {} }), {
        key: 'errors.gateway_gateway_type_cannot_be_changed',
        status: 422,
      });
      await expectAppError(gateways.update(production, 'no-such-gateway', undefined, { credentials: {} }), {
        key: 'errors.gateway_not_found',
        status: 404,
      });
      await expectAppError(gateways.update(sandbox, token, undefined, { credentials: {} }), { key: 'errors.gateway_not_found', status: 404 });

      const updated = await gateways.update(production, token, 'stripe', {
        description: 'renamed',
        merchantProfileKey: 'mp',
        subMerchantKey: 'sm',
        sandbox: true,
        credentials: { login: 'sk_second' },
      });
      expect(updated).toMatchObject({ description: 'renamed', merchantProfileKey: 'mp', subMerchantKey: 'sm', sandbox: true, gatewayType: 'stripe' });
      expect(updated.sealed.credentials).not.toBe(record.sealed.credentials);
      expect(updated.sealed.credentials).not.toContain('sk_second');
      expect(await gateways.openCredentials(updated)).toEqual({ login: 'sk_second' });
      expect(updated.updatedAt > record.updatedAt).toBe(true);
      expect(updated.createdAt).toBe(record.createdAt);

      // No credentials supplied: the sealed ones are kept as they are.
      const again = await gateways.update(production, token, undefined, { description: 'again', credentials: {} });
      expect(again.sealed.credentials).toBe(updated.sealed.credentials);
      expect(again.description).toBe('again');

      // A sealed blob copied onto another gateway does not open there (bound to its token).
      const other = await gateways.create(production, 'stripe', { credentials: { login: 'sk_other' } });
      await expect(gateways.openCredentials({ ...other, sealed: { credentials: updated.sealed.credentials } })).rejects.toThrow();
    });

    it('gateway retain and redact: clears credentials, records RedactGateway, then refuses use', async () => {
      const record = await gateways.create(production, 'stripe', { credentials: { login: LOGIN } });
      const token = record.token;
      expect(await gateways.retain(production, token)).toEqual(record);
      await expectAppError(gateways.retain(sandbox, token), { key: 'errors.gateway_not_found', status: 404 });

      const redacted = await gateways.redact(production, token);
      expect(redacted.gateway).toMatchObject({ token, state: 'redacted', safeCredentials: {}, sealed: { credentials: null } });
      expect(redacted.transaction).toMatchObject({
        environmentKey: production.key,
        transactionType: 'RedactGateway',
        state: 'succeeded',
        succeeded: true,
        messageKey: 'messages.transaction_succeeded',
        gatewayToken: token,
      });
      expect(typeof redacted.transaction.succeeded).toBe('boolean');
      expect(typeof redacted.transaction.position).toBe('number');
      const stored = await repositories(store.db, store.dialect).transactions.find(production.key, redacted.transaction.token);
      expect(stored).toEqual(redacted.transaction);
      expect(await gateways.openCredentials(redacted.gateway)).toEqual({});

      await expectAppError(gateways.retain(production, token), { key: 'errors.gateway_redacted', status: 422 });
      await expectAppError(gateways.update(production, token, undefined, { credentials: {} }), { key: 'errors.gateway_redacted', status: 422 });
      await expectAppError(gateways.redact(production, 'no-such-gateway'), { key: 'errors.gateway_not_found', status: 404 });
      await expectAppError(gateways.redact(sandbox, token), { key: 'errors.gateway_not_found', status: 404 });
    });

    it('gateway redact is atomic: a failure recording the transaction leaves the gateway intact', async () => {
      const record = await gateways.create(production, 'stripe', { credentials: { login: LOGIN } });
      const token = record.token;
      const before = await repositories(store.db, store.dialect).transactions.list(production.key, asc(1000));
      vi.spyOn(TransactionsRepo.prototype, 'insert').mockRejectedValueOnce(new Error('disk full'));

      await expect(gateways.redact(production, token)).rejects.toThrow('disk full');

      const after = await gateways.show(production, token);
      expect(after).toEqual(record);
      expect(await gateways.openCredentials(after)).toEqual({ login: LOGIN });
      expect(await repositories(store.db, store.dialect).transactions.list(production.key, asc(1000))).toEqual(before);

      // And once the failure is gone, redact goes through.
      vi.restoreAllMocks();
      expect((await gateways.redact(production, token)).gateway.state).toBe('redacted');
    });
  });
});
