import type { FigureRollup, GatewayCall, PaymentCell } from '../../domain/rollup.js';

/**
 * The overview's figures (src/domain/rollup.ts): the aggregates read from `transactions` for a
 * time range, and `overview_rollups` with their completion mark, where ended hours are kept.
 */
export interface RollupsRepository {
  /** Every hour before this (an hour boundary, ISO text) has its rollups; null: none yet. */
  completeUntil(environmentKey: string): Promise<string | null>;
  /**
   * Stores the rollups of some ended hours and moves the mark. Two nodes filling the same hours
   * write the same counts: the first write wins, the other is ignored.
   */
  store(environmentKey: string, rows: FigureRollup[], completeUntil: string): Promise<void>;
  list(environmentKey: string, fromHour: string): Promise<FigureRollup[]>;
  /** Drops rollups older than the overview ever shows. */
  prune(environmentKey: string, beforeHour: string): Promise<void>;
  /** Payment attempts created in [since, until) grouped as `PaymentCell`s (one range walk of `transactions_by_env_created_seq`). */
  paymentCells(environmentKey: string, since: string, until: string | null): Promise<PaymentCell[]>;
  /** Gateway calls (every gateway transaction type) created in [since, until), oldest first (by `created_at`, then position). */
  gatewayCalls(environmentKey: string, since: string, until: string | null): Promise<GatewayCall[]>;
  /**
   * When the transaction at position `offset` (0 = the first) among those created in [since, until)
   * was created, in the index's order; null when there are no more than `offset` of them. Walks at
   * most `offset + 1` entries of `transactions_by_env_created_seq`, so the overview can cut a long
   * backlog into bounded chunks without counting it first.
   */
  createdAtPosition(environmentKey: string, since: string, until: string, offset: number): Promise<string | null>;
  /** A gateway's last `count` calls created before `before`, newest first (the breaker's run leading into a range). */
  callsBefore(gatewayToken: string, before: string, count: number): Promise<GatewayCall[]>;
}
