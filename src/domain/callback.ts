/**
 * Callbacks and their delivery log (docs/events.md, "Delivery"). Timestamps are ISO-8601 UTC
 * strings, the wire format; they sort as text.
 */

/** `event`: the environment's subscription; `transaction`: the transaction's own callback_url. */
export const CALLBACK_KINDS = ['event', 'transaction'] as const;
export type CallbackKind = (typeof CALLBACK_KINDS)[number];

/** A delivery waits (`queued`) until it is delivered, or abandoned once its 24 hours are over. */
export const DELIVERY_STATES = ['queued', 'delivered', 'abandoned'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** The payload formats a callback is sent in. */
export type CallbackFormat = 'xml' | 'json';

/** One callback to deliver: an entry of the queue. */
export interface CallbackDelivery {
  token: string;
  environmentKey: string;
  eventToken: string;
  kind: CallbackKind;
  url: string;
  format: CallbackFormat;
  state: DeliveryState;
  /** Attempts made so far. */
  attempts: number;
  nextAttemptAt: string;
  /** A node's claim holds the delivery until then; null when nobody holds it. */
  claimedUntil: string | null;
  /** Who claimed the delivery for its current attempt; only they record the attempt's result. */
  claimId: string | null;
  giveUpAt: string;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  /** The key its destination's failures are counted under (the URL's first 200 characters). */
  destination: string | null;
}

/** One attempt of a delivery: an entry of the delivery log (never a body). */
export interface CallbackAttempt {
  deliveryToken: string;
  attempt: number;
  status: number | null;
  latencyMs: number;
  error: string | null;
  createdAt: string;
}

/** A destination of an environment whose last attempt failed, and its back-off. */
export interface CallbackDestination {
  environmentKey: string;
  destination: string;
  /** Consecutive failed attempts; forgotten at the next delivered one. */
  failures: number;
  /** Past the threshold: nothing is sent to it before then. */
  blockedUntil: string | null;
  updatedAt: string;
}
