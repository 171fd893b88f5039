import { detailsOf } from '../../services/transactions/transaction-details.js';
import { WireList, WireMessage, type Wire, type WireObject } from '../format/wire.js';
import { storedDate } from './time.js';
import type { Transaction } from '../../domain/transaction.js';

/** The attempts of the retry chain a transaction belongs to, oldest first; empty outside a chain. */
export type AttemptsLookup = (row: Transaction) => Transaction[];

export const NO_ATTEMPTS: AttemptsLookup = () => [];

/** Where a transaction is shown (relative to the API's origin: Coffer does not know the name it is reached by). */
function transactionUrl(token: string): string {
  return `/v1/transactions/${token}`;
}

/** One attempt of a retry chain as the `attempts` list shows it (docs/routing-retry.md). */
function attemptView(row: Transaction): WireObject {
  const details = detailsOf(row);
  const failover = details?.failover;
  return {
    token: row.token,
    state: row.state,
    succeeded: row.succeeded,
    gateway_token: row.gatewayToken,
    gateway_type: details?.gateway_type ?? null,
    message: new WireMessage(row.messageKey, row.message),
    error_code: details?.response?.error_code ?? null,
    // Why the chain came to this attempt (null on the first).
    failover_reason: failover?.reason ?? null,
    skipped_gateways: new WireList('skipped_gateway', (failover?.skipped ?? []).map((skip) => ({ gateway_token: skip.gateway_token, reason: skip.reason }))),
    created_at: storedDate(row.createdAt),
  };
}

/** `attempts` of a chain member; undefined outside a chain (the field is then left out). */
export function attemptsField(attempts: Transaction[]): Wire | undefined {
  return attempts.length === 0 ? undefined : new WireList('attempt', attempts.map(attemptView));
}

/**
 * Spreedly's `api_urls`: on an attempt a chain moved on from, `failover_transaction` names the
 * attempt that came next (JSON `[{"failover_transaction":["/v1/transactions/<t>"]}]`); empty otherwise.
 */
export function apiUrlsField(row: Transaction, attempts: Transaction[]): WireList {
  const index = attempts.findIndex((attempt) => attempt.token === row.token);
  const next = index === -1 ? undefined : attempts[index + 1];
  return new WireList('api_url', next === undefined ? [] : [{ failover_transaction: new WireList('url', [transactionUrl(next.token)]) }]);
}
