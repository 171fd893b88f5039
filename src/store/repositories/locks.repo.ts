import type { LocksRepository } from '../interfaces/locks.js';
import { CompiledQuery, type Kysely } from 'kysely';
import { deferrable } from '../deferrable-query.js';
import type { Dialect } from '../dialect.js';
import type { Database } from '../schema.js';

/** A transaction-scoped advisory lock; its result is never read, so it is sent with what follows it. */
const ADVISORY_LOCK = 'select pg_advisory_xact_lock(hashtext($1))';

/** Named locks held until the surrounding database transaction ends. */
export class LocksRepo implements LocksRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Serializes every transaction that takes the same named lock. PostgreSQL: a transaction-scoped
   * advisory lock. SQLite needs nothing: write transactions begin IMMEDIATE and so already run
   * one at a time.
   */
  async serialize(name: string): Promise<void> {
    if (this.dialect === 'postgres') await this.db.executeQuery(deferrable(CompiledQuery.raw(ADVISORY_LOCK, [name])));
  }
}
