import type pg from 'pg';
import { PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type DatabaseIntrospector, type Dialect, type DialectAdapter, type Driver, type Kysely, type QueryCompiler } from 'kysely';
import type { CommitFeed } from './commit-feed.js';
import { CofferPostgresDriver } from './postgres-driver.js';

/**
 * Kysely's PostgreSQL dialect with Coffer's driver (postgres-driver.ts: named prepared statements,
 * pipelined transactions, timed commits); Kysely's own SQL compiler, adapter and introspector.
 */
export class CofferPostgresDialect implements Dialect {
  constructor(
    private readonly pool: pg.Pool,
    private readonly commits: CommitFeed,
  ) {}

  createDriver(): Driver {
    return new CofferPostgresDriver(this.pool, this.commits);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Dialect signature
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}
