import type { StoreHandle } from './database.js';
import { inTransaction, repositories, type Repositories, type WorkScope } from './repositories.js';

/**
 * What a service may touch in the store, and nothing more (docs/architecture.md, "Dependencies"):
 * the repositories it names, bound to the pool for reads and single statements, and a unit of work
 * that hands the same repositories bound to one database transaction. A service declares
 * `StoreAccess<'paymentMethods' | 'journal'>`; `buildCore` gives every service the one full access,
 * which TypeScript narrows to what each declares, and a test may give a fake of just those.
 */
export interface StoreAccess<K extends keyof Repositories = keyof Repositories> {
  readonly repos: Pick<Repositories, K>;
  unitOfWork<T>(work: (repos: Pick<Repositories, K>) => Promise<T>, scope?: WorkScope): Promise<T>;
}

/** The full access over one store; services receive it narrowed to the repositories they declare. */
export function storeAccess(store: StoreHandle): StoreAccess {
  return {
    repos: repositories(store.db, store.dialect),
    unitOfWork: (work, scope) => inTransaction(store, work, scope),
  };
}
