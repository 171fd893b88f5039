import { blankResponse } from '../../gateways/kit/index.js';
import { detailsOf, responseRecord } from './transaction-details.js';
import { isGatewayTransactionType, TransactionState, type Transaction, type TransactionPatch } from '../../domain/transaction.js';
import type { GatewayTransactionDetails } from '../../domain/transaction-details.js';

/**
 * A gateway transaction is committed `processing` before its call and gets its outcome after.
 * If the process dies in between (kill -9, a crash, a database outage at the second commit) the
 * outcome is never written. Such a transaction is *abandoned* once the call can no longer be
 * running anywhere: its deadline is the call's timeout plus this grace (the time between the
 * commit and the call, the outcome's own commit, clocks of several nodes). An abandoned
 * transaction is `gateway_processing_result_unknown`: the gateway may or may not have acted.
 */
export const ABANDONED_CALL_GRACE_MS = 10_000;

/** Rows written before deadlines were recorded: no call ever outlives the largest timeout (600 s). */
const LEGACY_DEADLINE_MS = 600_000 + ABANDONED_CALL_GRACE_MS;

/** The message an abandoned transaction shows (no gateway answer was ever recorded). */
export const ABANDONED_MESSAGE = 'The gateway call was interrupted before its outcome was recorded; the result is unknown.';

/** When a call starting at `now` with `timeoutMs` has certainly ended, as stored in the details. */
export function callDeadline(now: Date, timeoutMs: number): string {
  return new Date(now.getTime() + timeoutMs + ABANDONED_CALL_GRACE_MS).toISOString();
}

/** True when `row` is a gateway transaction still `processing` whose call can no longer be running at `now`. */
export function isAbandoned(row: Transaction, now: Date): boolean {
  if (row.state !== TransactionState.processing || !isGatewayTransactionType(row.transactionType)) return false;
  const deadline = detailsOf(row)?.call_deadline;
  const ends = deadline === undefined || deadline === null ? Date.parse(row.updatedAt) + LEGACY_DEADLINE_MS : Date.parse(deadline);
  return now.getTime() >= ends;
}

/** The write that declares an abandoned call's outcome unknown (as a timeout is recorded). */
export function abandonedPatch(row: Transaction, now: Date): TransactionPatch {
  const at = now.toISOString();
  const details = detailsOf(row) as GatewayTransactionDetails;
  const response = { ...blankResponse(false, ABANDONED_MESSAGE), errorCode: 'processing_error' as const, errorDetail: 'interrupted' };
  const updated: GatewayTransactionDetails = { ...details, response: responseRecord(response, at, { resultUnknown: true }) };
  return {
    state: TransactionState.resultUnknown,
    succeeded: false,
    messageKey: null,
    message: ABANDONED_MESSAGE,
    details: updated,
    updatedAt: at,
  };
}
