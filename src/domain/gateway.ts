/** A gateway's states: created retained (API.md), redacted for good. */
export const GATEWAY_STATES = ['retained', 'redacted'] as const;
export type GatewayState = (typeof GATEWAY_STATES)[number];

/** Per-gateway settings that are Coffer's, not the gateway's (shown as `gateway_settings`). */
export interface GatewaySettings {
  /** Overrides the deployment's timeout for calls to this gateway (1–600 s). */
  timeout_seconds?: number;
}

/** Credentials sealed with the environment's data key: opaque ciphertext only the gateway service opens. */
export interface SealedGatewayCredentials {
  /** The credentials not declared safe, as one sealed JSON object; null when there are none (or redacted). */
  credentials: string | null;
}

/**
 * A gateway of one environment (API.md, wire-reference §3.3). Timestamps are ISO-8601 UTC text
 * (the wire's format), which sorts as text.
 */
export interface Gateway {
  token: string;
  environmentKey: string;
  /** The registry's type name (`test`, `stripe`, …); the definition is looked up by it. */
  gatewayType: string;
  description: string | null;
  merchantProfileKey: string | null;
  subMerchantKey: string | null;
  sandbox: boolean;
  state: GatewayState;
  /** Credentials the gateway type declares safe, in clear (echoed in views); empty when none. */
  safeCredentials: Record<string, string>;
  sealed: SealedGatewayCredentials;
  /** Coffer-side settings; empty when none were set. */
  settings: GatewaySettings;
  createdAt: string;
  updatedAt: string;
}

/** A change of a stored gateway: the fields given are set. Its type and token never change. */
export type GatewayPatch = Partial<Omit<Gateway, 'token' | 'environmentKey' | 'gatewayType' | 'createdAt'>>;
