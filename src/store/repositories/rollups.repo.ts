import type { RollupsRepository } from '../interfaces/rollups.js';
import type { Kysely } from 'kysely';
import type { GatewayHourRollup } from '../../domain/rollup.js';
import type { Database } from '../schema.js';

/** Single-query primitives over `transaction_rollups` and their completion mark. */
export class RollupsRepo implements RollupsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async completeUntil(environmentKey: string): Promise<string | null> {
    const row = await this.db.selectFrom('transaction_rollup_marks').select('complete_until').where('environment_key', '=', environmentKey).executeTakeFirst();
    return row?.complete_until ?? null;
  }

  /**
   * Stores the rollups of some ended hours and moves the mark. Two nodes filling the same hours
   * write the same counts: the first write wins, the other is ignored.
   */
  async store(environmentKey: string, rows: GatewayHourRollup[], completeUntil: string): Promise<void> {
    for (let at = 0; at < rows.length; at += 500) {
      const values = rows.slice(at, at + 500).map((r) => ({ environment_key: environmentKey, gateway_token: r.gatewayToken, hour: r.hour, succeeded: r.succeeded, failed: r.failed }));
      await this.db.insertInto('transaction_rollups').values(values).onConflict((oc) => oc.columns(['environment_key', 'gateway_token', 'hour']).doNothing()).execute();
    }
    await this.db
      .insertInto('transaction_rollup_marks')
      .values({ environment_key: environmentKey, complete_until: completeUntil })
      .onConflict((oc) => oc.column('environment_key').doUpdateSet({ complete_until: completeUntil }))
      .execute();
  }

  list(environmentKey: string, fromHour: string): Promise<GatewayHourRollup[]> {
    return this.db
      .selectFrom('transaction_rollups')
      .select(['gateway_token as gatewayToken', 'hour', 'succeeded', 'failed'])
      .where('environment_key', '=', environmentKey)
      .where('hour', '>=', fromHour)
      .execute();
  }

  /** Drops rollups older than the overview ever shows. */
  async prune(environmentKey: string, beforeHour: string): Promise<void> {
    await this.db.deleteFrom('transaction_rollups').where('environment_key', '=', environmentKey).where('hour', '<', beforeHour).execute();
  }
}
