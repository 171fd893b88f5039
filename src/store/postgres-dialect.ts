import { PostgresDialect, PostgresDriver, type DatabaseConnection, type Driver, type PostgresDialectConfig } from 'kysely';
import type { CommitFeed } from './commit-feed.js';

/** Publishes each COMMIT's latency to the store's commit feed (one transaction per commit). */
class TimedPostgresDriver extends PostgresDriver {
  constructor(
    config: PostgresDialectConfig,
    private readonly commits: CommitFeed,
  ) {
    super(config);
  }

  override commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.commits.timed(1, () => super.commitTransaction(connection));
  }
}

/** Kysely's PostgreSQL dialect with commits timed (docs/metrics.md, "Store"). */
export class CofferPostgresDialect extends PostgresDialect {
  constructor(
    private readonly config: PostgresDialectConfig,
    private readonly commits: CommitFeed,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new TimedPostgresDriver(this.config, this.commits);
  }
}
