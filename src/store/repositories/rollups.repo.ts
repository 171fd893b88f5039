import type { RollupsRepository } from '../interfaces/rollups.js';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { FAILED_STATES, GATEWAY_TRANSACTION_TYPES, TransactionState } from '../../domain/transaction.js';
import { LATENCY_BUCKETS_MS, PAYMENT_TRANSACTION_TYPES, type FigureRollup, type GatewayCall, type OverviewFigure, type PaymentCell } from '../../domain/rollup.js';
import type { Database } from '../schema.js';
import type { Dialect } from '../dialect.js';

/** JSON fields read in SQL, so that a range's details are never parsed in the process. */
function jsonText(dialect: Dialect, column: 'details' | 'routed_by', path: readonly string[]): RawBuilder<string | null> {
  if (dialect === 'postgres') return sql<string | null>`(${sql.ref(column)}::jsonb #>> ${sql.lit(`{${path.join(',')}}`)})`;
  return sql<string | null>`json_extract(${sql.ref(column)}, ${sql.lit(`$.${path.join('.')}`)})`;
}

/** The `LATENCY_BUCKETS_MS` index of `details.gateway_latency_ms`, computed in SQL; null when none was measured. */
function latencyBucket(dialect: Dialect): RawBuilder<number | null> {
  const ms = dialect === 'postgres' ? sql`(${jsonText(dialect, 'details', ['gateway_latency_ms'])})::numeric` : sql`json_extract(details, '$.gateway_latency_ms')`;
  const arms = LATENCY_BUCKETS_MS.map((bound, index) => sql`when ${ms} <= ${sql.lit(bound)} then ${sql.lit(index)}`);
  return sql<number | null>`case when ${ms} is null then null ${sql.join(arms, sql` `)} else ${sql.lit(LATENCY_BUCKETS_MS.length)} end`;
}

/** `GatewayCall.fault` in SQL: 1 a fault, 0 an answer, null neither (a refusal, a call in flight). */
function faultOf(dialect: Dialect): RawBuilder<number | null> {
  const code = jsonText(dialect, 'details', ['response', 'error_code']);
  return sql<number | null>`case when state = ${sql.lit(TransactionState.resultUnknown)} then 1
    when state = ${sql.lit(TransactionState.gatewayProcessingFailed)} then (case when ${code} = 'processing_error' then 1 else 0 end)
    when state in (${sql.lit(TransactionState.succeeded)}, ${sql.lit(TransactionState.pending)}) then 0 else null end`;
}

function callOf(row: { gateway_token: string | null; fault: number | null; created_at: string }): GatewayCall {
  return { gatewayToken: row.gateway_token as string, fault: row.fault === null ? null : Number(row.fault) === 1, createdAt: row.created_at };
}

/** The overview's aggregates over `transactions`, and `overview_rollups` where ended hours are kept. */
export class RollupsRepo implements RollupsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async completeUntil(environmentKey: string): Promise<string | null> {
    const row = await this.db.selectFrom('overview_rollup_marks').select('complete_until').where('environment_key', '=', environmentKey).executeTakeFirst();
    return row?.complete_until ?? null;
  }

  async store(environmentKey: string, rows: FigureRollup[], completeUntil: string): Promise<void> {
    for (let at = 0; at < rows.length; at += 500) {
      const values = rows.slice(at, at + 500).map((r) => ({ environment_key: environmentKey, hour: r.hour, figure: r.figure, gateway_token: r.gatewayToken, label: r.label, count: r.count }));
      await this.db
        .insertInto('overview_rollups')
        .values(values)
        .onConflict((oc) => oc.columns(['environment_key', 'hour', 'figure', 'gateway_token', 'label']).doNothing())
        .execute();
    }
    await this.db
      .insertInto('overview_rollup_marks')
      .values({ environment_key: environmentKey, complete_until: completeUntil })
      // The mark only moves forward: a slower pass (another node, the background) never takes it back.
      .onConflict((oc) => oc.column('environment_key').doUpdateSet({ complete_until: completeUntil }).where('overview_rollup_marks.complete_until', '<', completeUntil))
      .execute();
  }

  async list(environmentKey: string, fromHour: string): Promise<FigureRollup[]> {
    const rows = await this.db
      .selectFrom('overview_rollups')
      .select(['hour', 'figure', 'gateway_token', 'label', 'count'])
      .where('environment_key', '=', environmentKey)
      .where('hour', '>=', fromHour)
      .execute();
    return rows.map((row) => ({ hour: row.hour, figure: row.figure as OverviewFigure, gatewayToken: row.gateway_token, label: row.label, count: Number(row.count) }));
  }

  async prune(environmentKey: string, beforeHour: string): Promise<void> {
    await this.db.deleteFrom('overview_rollups').where('environment_key', '=', environmentKey).where('hour', '<', beforeHour).execute();
  }

  async paymentCells(environmentKey: string, since: string, until: string | null): Promise<PaymentCell[]> {
    const d = this.dialect;
    const hour = sql<string>`substr(created_at, 1, 13)`;
    const unsuccessful = sql.join(FAILED_STATES.map((state) => sql.lit(state)));
    const declineCode = sql<string | null>`case when state in (${unsuccessful}) then coalesce(${jsonText(d, 'details', ['response', 'error_code'])}, message_key, 'unknown') else null end`;
    const latency = latencyBucket(d);
    const failoverReason = jsonText(d, 'details', ['failover', 'reason']);
    const rescued = sql<number>`case when succeeded = 1 and ${failoverReason} is not null then 1 else 0 end`;
    const decision = sql<number>`routed_by is not null and (first_attempt_token is null or first_attempt_token = token)`;
    const routedWorkflow = sql<string | null>`case when ${decision} then ${jsonText(d, 'routed_by', ['workflow_key'])} else null end`;
    const routedRule = sql<string | null>`case when ${decision} then ${jsonText(d, 'routed_by', ['rule'])} else null end`;
    const routedGateway = sql<string | null>`case when ${decision} then ${jsonText(d, 'routed_by', ['gateway_token'])} else null end`;
    let query = this.db
      .selectFrom('transactions')
      .select((eb) => [
        'gateway_token',
        hour.as('hour'),
        'succeeded',
        declineCode.as('decline_code'),
        latency.as('latency_bucket'),
        failoverReason.as('failover_reason'),
        rescued.as('rescued'),
        routedWorkflow.as('routed_workflow'),
        routedRule.as('routed_rule'),
        routedGateway.as('routed_gateway'),
        eb.fn.countAll<number>().as('n'),
      ])
      .where('environment_key', '=', environmentKey)
      .where('created_at', '>=', since);
    if (until !== null) query = query.where('created_at', '<', until);
    const rows = await query
      .where('transaction_type', 'in', [...PAYMENT_TRANSACTION_TYPES])
      .where('gateway_token', 'is not', null)
      .groupBy([sql`1`, sql`2`, sql`3`, sql`4`, sql`5`, sql`6`, sql`7`, sql`8`, sql`9`, sql`10`])
      .execute();
    return rows.map((row) => ({
      gatewayToken: row.gateway_token as string,
      hour: row.hour,
      succeeded: Number(row.succeeded) === 1,
      declineCode: row.decline_code,
      latencyBucket: row.latency_bucket === null ? null : Number(row.latency_bucket),
      failoverReason: row.failover_reason,
      rescued: Number(row.rescued) === 1,
      routedWorkflow: row.routed_workflow,
      routedRule: row.routed_rule,
      routedGateway: row.routed_gateway,
      count: Number(row.n),
    }));
  }

  async gatewayCalls(environmentKey: string, since: string, until: string | null): Promise<GatewayCall[]> {
    let query = this.db
      .selectFrom('transactions')
      .select(['gateway_token', faultOf(this.dialect).as('fault'), 'created_at'])
      .where('environment_key', '=', environmentKey)
      .where('created_at', '>=', since);
    if (until !== null) query = query.where('created_at', '<', until);
    const rows = await query
      .where('transaction_type', 'in', [...GATEWAY_TRANSACTION_TYPES])
      .where('gateway_token', 'is not', null)
      // The index's order (transactions_by_env_created_seq): no sort of the range.
      .orderBy('created_at')
      .orderBy('seq')
      .execute();
    return rows.map(callOf);
  }

  async createdAtPosition(environmentKey: string, since: string, until: string, offset: number): Promise<string | null> {
    const row = await this.db
      .selectFrom('transactions')
      .select('created_at')
      .where('environment_key', '=', environmentKey)
      .where('created_at', '>=', since)
      .where('created_at', '<', until)
      // The index's order (transactions_by_env_created_seq): the walk stops after `offset + 1` entries.
      .orderBy('created_at')
      .orderBy('seq')
      .limit(1)
      .offset(offset)
      .executeTakeFirst();
    return row?.created_at ?? null;
  }

  async callsBefore(gatewayToken: string, before: string, count: number): Promise<GatewayCall[]> {
    const rows = await this.db
      .selectFrom('transactions')
      .select(['gateway_token', faultOf(this.dialect).as('fault'), 'created_at'])
      .where('gateway_token', '=', gatewayToken)
      .where('created_at', '<', before)
      .where('transaction_type', 'in', [...GATEWAY_TRANSACTION_TYPES])
      .orderBy('seq', 'desc')
      .limit(count)
      .execute();
    return rows.map(callOf);
  }
}
