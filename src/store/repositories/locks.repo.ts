import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Database } from '../schema.js';

/** Named locks held until the surrounding database transaction ends. */
export class LocksRepo {
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
    if (this.dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(this.db);
  }
}
