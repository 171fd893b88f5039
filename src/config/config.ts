import type { RateLimitRules } from '../limits/rate-limit-policy.js';
import { configSchema } from './env-schema.js';
import type { MasterKeyProviderKind } from '../vault/master-key-providers/provider.js';
import type { Pkcs11Settings } from '../vault/master-key-providers/pkcs11-settings.js';

/** Where the relational store lives. */
export type StoreConfig =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string };

/** How the HTTP listener speaks TLS. */
export type TlsConfig =
  | { mode: 'auto' }
  | { mode: 'off' }
  | { mode: 'files'; certPath: string; keyPath: string };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** The whole deployment configuration, parsed once at start-up. */
export interface Config {
  dataDir: string;
  store: StoreConfig;
  host: string;
  port: number;
  tls: TlsConfig;
  /** 32 raw bytes, or null when the operator supplied none (a local one is generated). */
  masterKey: Buffer | null;
  /** Older master keys, for unwrapping only while a master-key rotation runs. */
  previousMasterKeys: Buffer[];
  /** Where the master key lives (COFFER_MASTER_KEY_PROVIDER; docs/key-custody.md). */
  masterKeyProvider: MasterKeyProviderKind;
  /** A provider accepted for unwrapping only while a move between providers runs (COFFER_MASTER_KEY_PREVIOUS_PROVIDER), or null. */
  previousMasterKeyProvider: MasterKeyProviderKind | null;
  /** The HSM (COFFER_PKCS11_*), or null when no PIN is configured. */
  pkcs11: Pkcs11Settings | null;
  /** The admin-only listener a sealed node takes key shares on (COFFER_UNSEAL_HOST, COFFER_UNSEAL_PORT). */
  unseal: { host: string; port: number };
  /** Seconds a cached payment method (and a supplied CVV) is kept before it is redacted (dropped). */
  cacheTtlSeconds: number;
  /** How often `serve` sweeps ended caching windows, in ms (COFFER_SWEEP_INTERVAL; default 15 s). */
  sweepIntervalMs: number;
  redisUrl: string | null;
  logLevel: LogLevel;
  gateways: GatewayCallConfig;
  /** Effective rate limits (API.md §7 defaults with COFFER_RATE_LIMITS applied). */
  rateLimits: RateLimitRules;
  /** Proxies (IPs or CIDRs) whose X-Forwarded-For is believed (COFFER_TRUST_PROXY); empty: the socket's address. */
  trustProxy: string[];
  /** Extra destinations user-supplied URLs may reach (COFFER_EGRESS_ALLOW: CIDRs or host names). */
  egressAllow: string[];
  /** The operator's catalog of named receiver types (COFFER_RECEIVER_CATALOG), or null. */
  receiverCatalogPath: string | null;
  /** Timeout of one delivery, export upload or export callback, in ms (COFFER_RECEIVER_TIMEOUT, seconds). */
  receiverTimeoutMs: number;
  /** Extra CAs (PEM file, COFFER_OUTBOUND_CA_FILE) trusted for calls to receivers, besides Node's roots. */
  outboundCaPath: string | null;
  /** Apple Pay and Google Pay roots and the signing-time window (docs/wallets.md, "Configuration"). */
  wallets: WalletConfig;
  /** The merchant portal at /portal/ (COFFER_PORTAL=off turns it off). */
  portal: boolean;
  /** Days events are kept before the sweep deletes them (COFFER_EVENT_RETENTION_DAYS; default 90). */
  eventRetentionDays: number;
  /** How often each node looks for due callbacks, in ms (COFFER_CALLBACK_POLL_MS; default 1000). */
  callbackPollMs: number;
  /** How long after an unknown result the gateway is asked, in minutes (COFFER_RECONCILE_WINDOW_MINUTES; default 1440). */
  reconcileWindowMinutes: number;
  /** After how many seconds "not found" at the gateway means never received (COFFER_RECONCILE_NOT_FOUND_AFTER; default 600). */
  reconcileNotFoundAfterSeconds: number;
  /** The Prometheus endpoint (docs/metrics.md): off unless COFFER_METRICS_PORT or COFFER_METRICS_TOKEN is set. */
  metrics: MetricsConfig;
  /** The audit chain's upkeep and retention (docs/audit.md; COFFER_AUDIT_*). */
  audit: AuditConfig;
  /** The portal's PCI 8 people policies (docs/compliance.md, "People"; COFFER_PORTAL_*). */
  people: PeopleConfig;
}

/** The audit chain (docs/audit.md). */
export interface AuditConfig {
  /** Months entries are kept (COFFER_AUDIT_RETENTION_MONTHS; default 12, at least 12: PCI DSS 10.5.1). */
  retentionMonths: number;
  /** How often pending entries are linked, in ms (COFFER_AUDIT_CHAIN_INTERVAL; default 1 s). */
  chainIntervalMs: number;
  /** How often the head is signed, in ms (COFFER_AUDIT_CHECKPOINT_INTERVAL; default 15 min). */
  checkpointIntervalMs: number;
}

/** The portal's people policies, each within what PCI DSS v4.0.1 requirement 8 allows. */
export interface PeopleConfig {
  /** COFFER_PORTAL_PASSWORD_MIN_LENGTH: 12 to 128, default 12 (8.3.6). */
  passwordMinLength: number;
  /** COFFER_PORTAL_LOCKOUT_FAILURES: 1 to 10, default 10 (8.3.4). */
  lockoutFailures: number;
  /** COFFER_PORTAL_LOCKOUT_DURATION: 30 min to 24 h, default 30 min (8.3.4). */
  lockoutMs: number;
  /** COFFER_PORTAL_IDLE_TIMEOUT: 1 to 15 min, default 15 min (8.2.8). */
  idleTimeoutMs: number;
  /** COFFER_PORTAL_INACTIVE_DAYS: members not signed in for this long are disabled; 1 to 90, default 90 (8.2.6). */
  inactiveDays: number;
}

/** What wallet tokens are verified against (docs/wallets.md, "Configuration"). */
export interface WalletConfig {
  /** A PEM file of Apple Pay roots trusted instead of the shipped Apple Root CA - G3 (COFFER_APPLE_PAY_ROOT_CA). */
  applePayRootCaPath: string | null;
  /** Google's root signing keys in its published JSON format, used instead of the shipped set (COFFER_GOOGLE_PAY_ROOT_KEYS). */
  googlePayRootKeysPath: string | null;
  /** How far an Apple Pay token's signing time may be from now, either way, in ms (COFFER_WALLET_SIGNING_WINDOW; default 5 minutes). */
  signingTimeWindowMs: number;
}

/** Where GET /metrics is served, and what guards it (docs/metrics.md). */
export interface MetricsConfig {
  /** A separate listener serving only /metrics (COFFER_METRICS_PORT), or null. */
  port: number | null;
  /** That listener's address (COFFER_METRICS_HOST; default 127.0.0.1). */
  host: string;
  /**
   * Bearer token (COFFER_METRICS_TOKEN): /metrics is then served on the main port too, and every
   * /metrics (either port) needs `Authorization: Bearer <token>`. Null: no token.
   */
  token: string | null;
}

/** True when this node serves metrics at all (otherwise nothing is collected and /metrics is 404). */
export function metricsEnabled(config: MetricsConfig): boolean {
  return config.port !== null || config.token !== null;
}

/** How Coffer calls gateways. */
export interface GatewayCallConfig {
  /** Default timeout of one gateway call, in ms (API.md §8: 60 s). */
  timeoutMs: number;
  /** Per gateway type overrides, in ms (COFFER_GATEWAY_TIMEOUTS). */
  timeoutMsByType: Record<string, number>;
  /** Base URL per gateway type (COFFER_GATEWAY_ENDPOINTS), for fakes and regional endpoints. */
  endpoints: Record<string, string>;
  /** Calls in flight to one gateway from one node before more are refused. */
  maxInFlight: number;
}

/** Thrown for invalid configuration; the message is one line naming the variable. */
export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Reads the deployment configuration, as declared by the one schema in `env-schema.ts`. This module
 * is the only reader of the process environment: everything else receives a typed `Config`.
 */
export function loadConfig(env: Env = process.env): Config {
  const result = configSchema.safeParse(env);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  throw new ConfigError(String(issue?.path[0]), issue?.message ?? 'is invalid');
}
