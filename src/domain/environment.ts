import type { EventType } from './event-types.js';

/** How callbacks are rendered (docs/events.md "Signed callbacks"): XML, the default, or JSON. */
export type CallbackFormat = 'xml' | 'json';

/**
 * An environment of an organization (API.md §2 "Authentication and tenancy"): where gateways,
 * payment methods and transactions live, test or activated for production. Timestamps are
 * ISO-8601 UTC strings, as the wire shows them (they sort as text).
 */
export interface Environment {
  /** The public environment key (the user name of HTTP Basic). */
  key: string;
  organizationToken: string;
  name: string;
  /** Activated for production: real cards and gateways; test cards and sandboxes otherwise. */
  production: boolean;
  /** Origins allowed to embed the card form and tokenize from a browser; null = any (docs/card-capture.md "Allowing your origins"). */
  allowedOrigins: string[] | null;
  /** Browser tokenization needs the merchant's signature (nonce, timestamp, certificate token). */
  enhancedIframeSecurity: boolean;
  /** Where the environment's subscribed events are POSTed; null = nowhere (docs/events.md "Signed callbacks"). */
  callbackUrl: string | null;
  callbackFormat: CallbackFormat;
  /** The event types sent to `callbackUrl`; null = every type. */
  callbackEventTypes: EventType[] | null;
  /** Sealed: the callbacks' signing secret, under the environment's data key; null until one is made. */
  sealedSigningSecret: string | null;
  /** The merchant id from Google's console: Google Pay tokens must be signed for `merchant:<id>` (docs/wallets.md); null = none set. */
  googlePayMerchantId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What creating an environment decides; the rest starts empty (no callbacks, any origin). */
export type NewEnvironment = Pick<Environment, 'key' | 'organizationToken' | 'name' | 'production' | 'createdAt' | 'updatedAt'>;

/** A change of an environment's settings; `updatedAt` always moves. */
export type EnvironmentPatch = Partial<Pick<Environment, 'name' | 'production' | 'allowedOrigins' | 'enhancedIframeSecurity' | 'googlePayMerchantId' | 'callbackUrl' | 'callbackFormat' | 'callbackEventTypes'>> &
  Pick<Environment, 'updatedAt'>;

/**
 * Whether events of the environment may call for a callback to its subscription, as the
 * environment was read (by the request's authentication: valid as of the request's start,
 * docs/caching.md). Services pass it as `environmentSubscribed` when they record a change of
 * that environment, so the unit of work skips the look for a subscription that cannot exist.
 */
export function hasCallbackSubscription(environment: Pick<Environment, 'callbackUrl'>): boolean {
  return environment.callbackUrl !== null;
}
