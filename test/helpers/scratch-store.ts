import path from 'node:path';
import { migrateStore, openStore, type StoreHandle } from '../../src/store/database.js';
import { repositories } from '../../src/store/repositories.js';
import { createPostgresDatabase } from './postgres.js';
import { tempDir } from './temp.js';

/**
 * A migrated store of `kind` of its own (a SQLite file in a temporary directory, or a PostgreSQL
 * database), holding organization `org` and its environment `env`; `cleanup` after `store.close()`.
 */
export async function scratchStore(kind: 'sqlite' | 'postgres'): Promise<{ store: StoreHandle; cleanup: () => Promise<void> | void }> {
  let store: StoreHandle;
  let cleanup: () => Promise<void> | void;
  if (kind === 'sqlite') {
    const temp = tempDir();
    store = openStore({ kind: 'sqlite', path: path.join(temp.dir, 'coffer.db') });
    cleanup = temp.cleanup;
  } else {
    const database = await createPostgresDatabase();
    store = openStore({ kind: 'postgres', url: database.url });
    cleanup = database.drop;
  }
  await migrateStore(store);
  const repos = repositories(store.db, store.dialect);
  const now = '2026-03-01T00:00:00.000Z';
  await repos.organizations.insert({ token: 'org', name: 'org', active: true, createdAt: now, updatedAt: now });
  await repos.environments.insert({ key: 'env', organizationToken: 'org', name: 'env', production: false, createdAt: now, updatedAt: now });
  return { store, cleanup };
}
