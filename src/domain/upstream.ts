/**
 * An environment's upstream (docs/portability.md, "Live migration"): a Spreedly-compatible vault
 * this environment pulls the payment methods it does not hold from, by their own tokens.
 * The upstream's access secret is sealed under the environment's data key and never shown again.
 */
export interface Upstream {
  environmentKey: string;
  /** The upstream's base URL (scheme, host, port), e.g. https://core.spreedly.com. */
  url: string;
  /** The environment key at the upstream (the user name of its HTTP Basic). */
  upstreamEnvironmentKey: string;
  /** Sealed: the upstream access secret. */
  sealedAccessSecret: string;
  /** Where the upstream can reach this Coffer's intake. */
  publicUrl: string;
  /** The receiver at the upstream that delivers to the intake; null until one is created (or named). */
  receiverToken: string | null;
  pulledOnDemand: number;
  backfill: BackfillProgress;
  createdAt: string;
  updatedAt: string;
}

/** Where a backfill stands. */
export type BackfillState = 'idle' | 'running' | 'done' | 'interrupted';

/** A backfill's progress: the upstream lists no totals, so `seen` counts what it has listed so far. */
export interface BackfillProgress {
  state: BackfillState;
  /** The last upstream token fully handled (the `since_token` a resumed walk starts after). */
  cursor: string | null;
  seen: number;
  backfilled: number;
  /** Listed tokens this environment already held (pulled on demand before, or present since). */
  alreadyHere: number;
  failed: number;
  startedAt: string | null;
  finishedAt: string | null;
  /** When the upstream last answered 429: the walk waits its Retry-After. */
  throttledUntil: string | null;
}

export const IDLE_BACKFILL: BackfillProgress = { state: 'idle', cursor: null, seen: 0, backfilled: 0, alreadyHere: 0, failed: 0, startedAt: null, finishedAt: null, throttledUntil: null };

/** What setting an upstream decides (the secret already sealed). */
export type UpstreamSettings = Pick<Upstream, 'environmentKey' | 'url' | 'upstreamEnvironmentKey' | 'sealedAccessSecret' | 'publicUrl' | 'receiverToken'>;

/** A token that could not be pulled, and why (no card data, ever: a reason a person can act on). */
export interface UpstreamFailure {
  paymentMethodToken: string;
  reason: string;
  at: string;
}

/**
 * A one-time intake credential, stored by its hash: it admits one delivery of one token into one
 * environment before `expiresAt`. `fields` are the upstream's non-sensitive fields of that token.
 */
export interface IntakeGrant {
  environmentKey: string;
  credentialHash: string;
  paymentMethodToken: string;
  fields: UpstreamPaymentMethodFields;
  /** on_demand or backfill: which counter a successful intake moves. */
  purpose: 'on_demand' | 'backfill';
  expiresAt: string;
  /**
   * The X-Request-Id of the API request that caused the pull (the one naming the missing token,
   * or the one that started the backfill): the intake is another request, made by the upstream,
   * and stamps this id on the events it records (docs/events.md). Null outside a request.
   */
  requestId: string | null;
}

/** The non-sensitive fields of a payment method as the upstream shows it (GET payment_methods/<t>). */
export interface UpstreamPaymentMethodFields {
  token: string;
  paymentMethodType: string;
  storageState: string;
  email: string | null;
  createdAt: string | null;
  metadata: Record<string, unknown> | null;
  data: unknown;
  firstName: string | null;
  lastName: string | null;
  month: number | null;
  year: number | null;
  address: Record<string, string | null>;
  eligibleForCardUpdater: boolean | null;
  /** Bank account fields that are not sensitive. */
  bankName: string | null;
  accountType: string | null;
  accountHolderType: string | null;
  /** Fields of third-party tokens (nothing sensitive: copied without a delivery). */
  thirdPartyToken: string | null;
  gatewayType: string | null;
}
