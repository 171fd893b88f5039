import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withSeq } from './columns.js';

/**
 * Routing workflows (docs/routing.md), one table per environment's workflows (rules, default target and
 * backups as JSON; `is_default` marks the one a routed transaction without `workflow_key` uses),
 * and the routing decision recorded on the transaction it produced (`routed_by`, JSON).
 */
export function workflows(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withSeq(db.schema.createTable('workflows'), dialect)
        .addColumn('environment_key', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        // JSON array of {name, condition, target}, evaluated in order.
        .addColumn('rules', 'text', (c) => c.notNull())
        // JSON target used when no rule matches.
        .addColumn('default_target', 'text', (c) => c.notNull())
        // JSON array of gateway tokens tried after the chosen target.
        .addColumn('backup_gateway_tokens', 'text', (c) => c.notNull())
        .addColumn('retry_mode', 'text', (c) => c.notNull())
        .addColumn('success_rate_routing', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('workflows_environment_key', ['environment_key', 'key'])
        .execute();
      await db.schema.alterTable('transactions').addColumn('routed_by', 'text').execute();
    },
  };
}
