/**
 * The overview's figures (docs/portal.md, "Overview"), counted per environment, UTC hour and
 * gateway into `overview_rollups` once an hour has ended. Each row is one count:
 *
 * - `payments`, `approved`: payment attempts on the gateway, and those that succeeded;
 * - `decline`: unsuccessful payment attempts by normalised error code (`label`);
 * - `latency`: payment attempts by gateway latency bucket (`label`: the bucket's upper bound in ms,
 *   `LATENCY_BUCKETS_MS`, or `more`), so p50/p95 of any range come from summed histograms;
 * - `breaker_opening`: times the gateway's breaker rule tripped (five faults in a row, again
 *   after each open window while faults go on);
 * - `retry_rescue`, `failover_rescue`: payments a later attempt of a retry chain saved, on the
 *   gateway that saved them (after a decline; after a fault or a gateway passed over);
 * - `routed`: workflow decisions by rule (`label`: `<workflow key>\n<rule name>`, an empty rule
 *   name for the default target), on the gateway the decision chose first.
 */
export const OVERVIEW_FIGURES = ['payments', 'approved', 'decline', 'latency', 'breaker_opening', 'retry_rescue', 'failover_rescue', 'routed'] as const;
export type OverviewFigure = (typeof OVERVIEW_FIGURES)[number];

/** One count of one figure: a gateway's hour (`YYYY-MM-DDTHH`, sorts as text), with its label. */
export interface FigureRollup {
  hour: string;
  figure: OverviewFigure;
  gatewayToken: string;
  /** The decline code, latency bucket or workflow rule; '' for figures without one. */
  label: string;
  count: number;
}

/**
 * Payments: the transactions that take or reserve money from a card. Captures, voids and credits
 * follow a payment and are not counted again; verifications and stores take nothing.
 */
export const PAYMENT_TRANSACTION_TYPES = ['Purchase', 'Authorization', 'OffsitePurchase', 'OffsiteAuthorization'] as const;

/** Upper bounds (inclusive, ms) of the latency histogram's buckets; above the last is `more`. */
export const LATENCY_BUCKETS_MS = [50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 10000, 30000, 60000] as const;

/** A group of payment attempts of one gateway and hour that share every attribute below. */
export interface PaymentCell {
  gatewayToken: string;
  hour: string;
  succeeded: boolean;
  /** `response.error_code`, else the transaction's `message_key`; null for a success. */
  declineCode: string | null;
  /** `LATENCY_BUCKETS_MS` index of `gateway_latency_ms` (its length: above the last); null when none was measured. */
  latencyBucket: number | null;
  /** Why a retry chain moved on to this attempt (`details.failover.reason`); null for a chain's first call. */
  failoverReason: string | null;
  /** True for a succeeded attempt a chain moved on to (after a decline, a fault, or gateways passed over). */
  rescued: boolean;
  /** The workflow decision taken for this payment (first attempts only), or null. */
  routedWorkflow: string | null;
  routedRule: string | null;
  /** The gateway the decision chose first (`routed_by.gateway_token`): a gateway passed over still counts. */
  routedGateway: string | null;
  count: number;
}

/**
 * A call to a gateway as its breaker saw it (API.md §8): `fault` true for an unknown result or a
 * fault (a failure with the standard code `processing_error`; a decline carries its decline code),
 * false for any answer (an answer, even a decline, closes the breaker), null for what never
 * reached the gateway or has no outcome yet (a refusal by Coffer, a call in flight).
 */
export interface GatewayCall {
  gatewayToken: string;
  fault: boolean | null;
  createdAt: string;
}
