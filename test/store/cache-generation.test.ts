import { storeAccess } from '../../src/store/store-access.js';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DefinitionCache } from '../../src/cache/definition-cache.js';
import { systemClock } from '../../src/domain/clock.js';
import { GatewayService } from '../../src/services/gateway.service.js';
import { TenancyService } from '../../src/services/tenancy.service.js';
import { migrateStore, openStore, type StoreHandle } from '../../src/store/database.js';
import { ACCESS_SECRET_CACHED_COLUMNS, CACHED_TABLES } from '../../src/store/migrations/015-cache-generation.js';
import { inTransaction, repositories } from '../../src/store/repositories.js';
import { CacheGenerationRepo } from '../../src/store/repositories/cache-generation.repo.js';
import { WrappedKeysRepo } from '../../src/store/repositories/wrapped-keys.repo.js';
import { Keyring } from '../../src/vault/keyring.js';
import { createPostgresDatabase, storeKinds } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

/*
 * Migration 015: every write that can change what a node caches moves the store's cache
 * generation in its own transaction (by trigger, so the CLI, the portal and the API alike), and
 * nothing else does: the `last_used_at` touch of every authentication must not empty the caches.
 */
describe.each(storeKinds)('cache generation on %s', (kind) => {
  let store: StoreHandle;
  let cleanup: () => Promise<void>;
  let generation: CacheGenerationRepo;

  beforeAll(async () => {
    if (kind === 'sqlite') {
      const temp = tempDir('coffer-generation-');
      store = openStore({ kind: 'sqlite', path: path.join(temp.dir, 'coffer.sqlite') });
      cleanup = async () => temp.cleanup();
    } else {
      const database = await createPostgresDatabase();
      store = openStore({ kind: 'postgres', url: database.url });
      cleanup = database.drop;
    }
    await migrateStore(store);
    generation = new CacheGenerationRepo(store.db);
  });
  afterAll(async () => {
    await store.close();
    await cleanup();
  });

  /** Whether `write` moved the generation. */
  async function moves(write: () => Promise<unknown>): Promise<boolean> {
    const before = await generation.read();
    await write();
    const after = await generation.read();
    expect(after).toBeGreaterThanOrEqual(before);
    return after > before;
  }

  it('moves with every write to organizations, environments, access secrets, gateways and keys; not with a touch', async () => {
    const keyring = new Keyring(new WrappedKeysRepo(store.db), randomBytes(32));
    const tenancy = new TenancyService(storeAccess(store), keyring, systemClock);
    const gateways = new GatewayService(storeAccess(store), keyring, systemClock, new DefinitionCache(store));
    const repos = repositories(store.db, store.dialect);
    expect(await generation.read()).toBe(0);

    expect(await moves(() => keyring.hashSecret('creates the secret-hash key'))).toBe(true);
    let init!: Awaited<ReturnType<TenancyService['init']>>;
    expect(await moves(async () => (init = await tenancy.init()))).toBe(true);
    const organization = init.organization_token;
    expect(await moves(() => tenancy.setOrganizationActive(organization, false))).toBe(true);
    expect(await moves(() => tenancy.setOrganizationActive(organization, true))).toBe(true);
    const environment = await tenancy.requireEnvironment(init.environment_key);
    expect(await moves(() => tenancy.renameEnvironment(organization, environment.key, 'renamed'))).toBe(true);
    expect(await moves(() => tenancy.updateCardCapture(organization, environment.key, { enhancedIframeSecurity: true }))).toBe(true);

    let secretKey = '';
    expect(await moves(async () => (secretKey = (await tenancy.createAccessSecret(organization, { name: 's', role: 'read', environmentKeys: null })).accessSecret.key))).toBe(true);
    expect(await moves(() => repos.accessSecrets.touch(secretKey, new Date().toISOString()))).toBe(false);
    expect(await moves(() => tenancy.revokeAccessSecret(secretKey))).toBe(true);

    let token = '';
    expect(await moves(async () => (token = (await gateways.create(environment, 'test', { credentials: {} })).token))).toBe(true);
    expect(await moves(() => gateways.update(environment, token, undefined, { description: 'changed', credentials: {} }))).toBe(true);
    expect(await moves(() => gateways.redact(environment, token))).toBe(true);
    // A data key for the environment, then a new current one (rotation).
    expect(await moves(() => keyring.rotateDataKey(environment.key))).toBe(true);
  });

  it('does not move when the write is rolled back', async () => {
    const repos = repositories(store.db, store.dialect);
    const [organization] = await repos.organizations.list();
    const before = await generation.read();
    const failed = inTransaction(store, async (repos) => {
      await repos.organizations.setActive(organization!.token, false, new Date().toISOString());
      throw new Error('rolled back');
    });
    await expect(failed).rejects.toThrow('rolled back');
    expect(await generation.read()).toBe(before);
    // The same write committed does move it.
    expect(await moves(() => repos.organizations.setActive(organization!.token, false, new Date().toISOString()))).toBe(true);
  });

  it('covers every access_secrets column but last_used_at (a new column must be classified)', async () => {
    const tables = await store.db.introspection.getTables();
    const columns = tables.find((t) => t.name === 'access_secrets')!.columns.map((c) => c.name);
    expect([...columns].sort()).toEqual([...ACCESS_SECRET_CACHED_COLUMNS, 'last_used_at'].sort());
    for (const table of CACHED_TABLES) expect(tables.map((t) => t.name)).toContain(table);
  });
});
