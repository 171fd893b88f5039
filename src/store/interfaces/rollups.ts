import type { GatewayHourRollup } from '../../domain/rollup.js';

/** Single-query primitives over `transaction_rollups` and their completion mark. */
export interface RollupsRepository {
  completeUntil(environmentKey: string): Promise<string | null>;
  /**
   * Stores the rollups of some ended hours and moves the mark. Two nodes filling the same hours
   * write the same counts: the first write wins, the other is ignored.
   */
  store(environmentKey: string, rows: GatewayHourRollup[], completeUntil: string): Promise<void>;
  list(environmentKey: string, fromHour: string): Promise<GatewayHourRollup[]>;
  /** Drops rollups older than the overview ever shows. */
  prune(environmentKey: string, beforeHour: string): Promise<void>;
}
