import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateStore, openStore, type StoreHandle } from '../../src/store/database.js';
import { repositories } from '../../src/store/repositories.js';
import { createPostgresDatabase, storeKinds } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

/* Spent nonces of signed browser tokenizations, on both stores: once per environment, even across nodes. */

describe.each(storeKinds)('used nonces (%s)', (kind) => {
  let first: StoreHandle;
  let second: StoreHandle;
  let cleanup: () => Promise<void> | void;

  beforeAll(async () => {
    if (kind === 'sqlite') {
      const temp = tempDir();
      const file = path.join(temp.dir, 'coffer.db');
      first = openStore({ kind: 'sqlite', path: file });
      await migrateStore(first);
      second = openStore({ kind: 'sqlite', path: file });
      cleanup = temp.cleanup;
    } else {
      const database = await createPostgresDatabase();
      first = openStore({ kind: 'postgres', url: database.url });
      await migrateStore(first);
      second = openStore({ kind: 'postgres', url: database.url });
      cleanup = database.drop;
    }
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await cleanup();
  });

  it('two nodes claiming one nonce at once: exactly one wins; other environments are separate', async () => {
    const a = repositories(first.db, first.dialect).usedNonces;
    const b = repositories(second.db, second.dialect).usedNonces;
    const results = await Promise.all([a.claim('env1', 'n-1', '2030-01-01T00:00:00.000Z'), b.claim('env1', 'n-1', '2030-01-01T00:00:00.000Z')]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await a.claim('env2', 'n-1', '2030-01-01T00:00:00.000Z')).toBe(true);
  });

  it('release gives a nonce back; purge forgets only expired ones', async () => {
    const nonces = repositories(first.db, first.dialect).usedNonces;
    expect(await nonces.claim('env1', 'n-2', '2030-01-01T00:00:00.000Z')).toBe(true);
    await nonces.release('env1', 'n-2');
    expect(await nonces.claim('env1', 'n-2', '2030-01-01T00:00:00.000Z')).toBe(true);
    expect(await nonces.claim('env1', 'old', '2020-01-01T00:00:00.000Z')).toBe(true);
    expect(await nonces.purgeExpired('2025-01-01T00:00:00.000Z')).toBe(1);
    expect(await nonces.claim('env1', 'old', '2020-01-01T00:00:00.000Z')).toBe(true);
    expect(await nonces.claim('env1', 'n-2', '2030-01-01T00:00:00.000Z')).toBe(false);
  });
});
