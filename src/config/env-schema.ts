import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { RATE_LIMIT_DEFAULTS } from '../limits/rate-limit-policy.js';
import type { Config, LogLevel, MetricsConfig, StoreConfig, TlsConfig } from './config.js';
import { MASTER_KEY_PROVIDERS, type MasterKeyProviderKind } from '../vault/master-key-providers/provider.js';
import { DEFAULT_PKCS11_KEY_LABEL, DEFAULT_PKCS11_MODULE, type Pkcs11Settings } from '../vault/master-key-providers/pkcs11-settings.js';
import { rateLimitOverrides } from './rate-limit-overrides.js';
import {
  HOST_NAME,
  absolutePath,
  duration,
  integer,
  invalid,
  isCidrOrAddress,
  jsonObject,
  key,
  keys,
  listOf,
  oneOf,
  port,
  secondsToMs,
  text,
  variable,
} from './values.js';

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const databaseUrl = z.string().transform((url, ctx): StoreConfig => {
  if (/^postgres(ql)?:\/\//i.test(url)) {
    if (!URL.canParse(url)) return invalid(ctx, 'is not a valid postgres:// URL');
    return { kind: 'postgres', url };
  }
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (file === '') return invalid(ctx, 'sqlite: needs a file path, e.g. sqlite:./data/coffer.sqlite');
    return { kind: 'sqlite', path: path.resolve(file) };
  }
  return invalid(ctx, 'must start with postgres:// or sqlite:');
});

const gatewayEndpoints = jsonObject.transform((entries, ctx) => {
  const endpoints: Record<string, string> = {};
  for (const [type, url] of Object.entries(entries)) {
    if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url)) return invalid(ctx, `${type} must map to an http(s) URL`);
    endpoints[type] = url.replace(/\/+$/, '');
  }
  return endpoints;
});

const gatewayTimeouts = jsonObject.transform((entries, ctx) => {
  const timeoutMsByType: Record<string, number> = {};
  for (const [type, seconds] of Object.entries(entries)) {
    if (typeof seconds !== 'number' || !(seconds > 0) || seconds > 600) return invalid(ctx, `${type} must be seconds from 0 to 600`);
    timeoutMsByType[type] = Math.round(seconds * 1000);
  }
  return timeoutMsByType;
});

/** A metrics token is a bearer secret: long, and only characters a header carries as they are. */
const METRICS_TOKEN = /^[\x21-\x7e]{32,256}$/;

/**
 * Every environment variable Coffer reads, with its default and its checks: the single source of
 * the configuration (README.md "Configuration" lists them for operators). A variable unset or blank
 * takes its default. Checks that involve two variables are in `toConfig` below; they run once every
 * variable's own check has passed, so a malformed value is named before a mismatched pair.
 */
const variables = z.object({
  COFFER_DATA_DIR: variable(absolutePath.default(() => path.resolve('./data'))),
  COFFER_MASTER_KEY: variable(key.optional()),
  COFFER_DATABASE_URL: variable(databaseUrl.optional()),
  COFFER_HOST: variable(text.default('127.0.0.1')),
  COFFER_PORT: variable(port.default(8443)),
  // Checked with COFFER_TLS_CERT and COFFER_TLS_KEY in `tlsOf`: with both files the mode is only "not off".
  COFFER_TLS: variable(text.transform((mode) => mode.toLowerCase()).default('auto')),
  COFFER_TLS_CERT: variable(text.optional()),
  COFFER_TLS_KEY: variable(text.optional()),
  COFFER_MASTER_KEY_PREVIOUS: variable(keys.optional()),
  COFFER_MASTER_KEY_PROVIDER: variable(oneOf(MASTER_KEY_PROVIDERS, `must be one of ${MASTER_KEY_PROVIDERS.join(', ')}`).optional()),
  COFFER_MASTER_KEY_PREVIOUS_PROVIDER: variable(oneOf(MASTER_KEY_PROVIDERS, `must be one of ${MASTER_KEY_PROVIDERS.join(', ')}`).optional()),
  COFFER_PKCS11_MODULE: variable(absolutePath.default(DEFAULT_PKCS11_MODULE)),
  COFFER_PKCS11_TOKEN_LABEL: variable(text.refine((label) => label.length <= 32, 'must be at most 32 characters (a PKCS#11 token label)').optional()),
  COFFER_PKCS11_SLOT: variable(text.refine((slot) => /^\d{1,20}$/.test(slot), 'must be a slot id (decimal digits)').transform((slot) => BigInt(slot)).optional()),
  // Read as given: a PIN may have spaces at its ends only by mistake, but the value is never echoed.
  COFFER_PKCS11_PIN: variable(text.optional()),
  COFFER_PKCS11_PIN_FILE: variable(absolutePath.optional()),
  COFFER_PKCS11_KEY_LABEL: variable(text.default(DEFAULT_PKCS11_KEY_LABEL)),
  COFFER_UNSEAL_HOST: variable(text.refine((host) => net.isIP(host) !== 0 || HOST_NAME.test(host), 'must be an IP address or a host name').default('127.0.0.1')),
  COFFER_UNSEAL_PORT: variable(port.default(8444)),
  COFFER_CACHE_TTL: variable(duration(['s', 'm', 'h'], 1000, 7 * 24 * 3_600_000, 'must be a duration such as 600, 600s, 10m or 1h (at most 7 days)').default(600_000)),
  COFFER_SWEEP_INTERVAL: variable(duration(['ms', 's', 'm'], 100, 3_600_000, 'must be a duration such as 15, 15s, 500ms or 1m (100 ms to 1 hour)').default(15_000)),
  COFFER_REDIS_URL: variable(text.refine((url) => /^rediss?:\/\//i.test(url), 'must start with redis:// or rediss://').optional()),
  COFFER_LOG_LEVEL: variable(oneOf(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`).default('info')),
  COFFER_GATEWAY_ENDPOINTS: variable(gatewayEndpoints.default(() => ({}))),
  COFFER_GATEWAY_TIMEOUTS: variable(gatewayTimeouts.default(() => ({}))),
  COFFER_GATEWAY_TIMEOUT: variable(integer(1, 600).transform(secondsToMs).default(60_000)),
  COFFER_GATEWAY_MAX_IN_FLIGHT: variable(integer(1, 10_000).default(64)),
  COFFER_RATE_LIMITS: variable(rateLimitOverrides.default(() => ({ ...RATE_LIMIT_DEFAULTS }))),
  COFFER_TRUST_PROXY: variable(listOf(isCidrOrAddress, (entry) => `${entry} is not an IP address or CIDR`).default(() => [])),
  COFFER_EGRESS_ALLOW: variable(
    listOf((entry) => isCidrOrAddress(entry) || HOST_NAME.test(entry), (entry) => `${entry} is not a CIDR, an IP address or a host name`)
      .transform((entries) => entries.map((entry) => (HOST_NAME.test(entry) ? entry.toLowerCase() : entry)))
      .default(() => []),
  ),
  COFFER_RECEIVER_CATALOG: variable(absolutePath.optional()),
  COFFER_RECEIVER_TIMEOUT: variable(integer(1, 600).transform(secondsToMs).default(30_000)),
  COFFER_OUTBOUND_CA_FILE: variable(absolutePath.optional()),
  COFFER_APPLE_PAY_ROOT_CA: variable(absolutePath.optional()),
  COFFER_GOOGLE_PAY_ROOT_KEYS: variable(absolutePath.optional()),
  COFFER_WALLET_SIGNING_WINDOW: variable(duration(['s', 'm'], 1000, 3_600_000, 'must be a duration such as 300, 300s or 5m (1 second to 1 hour)').default(300_000)),
  COFFER_PORTAL: variable(oneOf(['on', 'off'], 'must be on or off').transform((value) => value === 'on').default(true)),
  COFFER_EVENT_RETENTION_DAYS: variable(integer(1, 3650).default(90)),
  COFFER_CALLBACK_POLL_MS: variable(integer(1, 600_000).default(1000)),
  COFFER_RECONCILE_WINDOW_MINUTES: variable(integer(1, 7 * 1440).default(1440)),
  COFFER_RECONCILE_NOT_FOUND_AFTER: variable(integer(1, 86_400).default(600)),
  COFFER_METRICS_PORT: variable(port.optional()),
  COFFER_METRICS_HOST: variable(text.refine((host) => net.isIP(host) !== 0 || HOST_NAME.test(host), 'must be an IP address or a host name').default('127.0.0.1')),
  COFFER_AUDIT_RETENTION_MONTHS: variable(integer(12, 1200).default(12)),
  COFFER_AUDIT_CHAIN_INTERVAL: variable(duration(['ms', 's', 'm'], 100, 3_600_000, 'must be a duration such as 1s, 500ms or 1m (100 ms to 1 hour)').default(1_000)),
  COFFER_AUDIT_CHECKPOINT_INTERVAL: variable(duration(['s', 'm', 'h'], 1000, 24 * 3_600_000, 'must be a duration such as 15m or 1h (1 s to 24 hours)').default(15 * 60_000)),
  COFFER_PORTAL_PASSWORD_MIN_LENGTH: variable(integer(12, 128).default(12)),
  COFFER_PORTAL_LOCKOUT_FAILURES: variable(integer(1, 10).default(10)),
  COFFER_PORTAL_LOCKOUT_DURATION: variable(duration(['s', 'm', 'h'], 30 * 60_000, 24 * 3_600_000, 'must be a duration from 30m to 24h').default(30 * 60_000)),
  COFFER_PORTAL_IDLE_TIMEOUT: variable(duration(['s', 'm'], 60_000, 15 * 60_000, 'must be a duration from 1m to 15m').default(15 * 60_000)),
  COFFER_PORTAL_INACTIVE_DAYS: variable(integer(1, 90).default(90)),
  COFFER_METRICS_TOKEN: variable(text.refine((token) => METRICS_TOKEN.test(token), 'must be 32 to 256 printable characters without spaces; try: openssl rand -hex 32').optional()),
});

type Variables = z.output<typeof variables>;

function tlsOf(vars: Variables, ctx: z.RefinementCtx): TlsConfig {
  const { COFFER_TLS: mode, COFFER_TLS_CERT: certPath, COFFER_TLS_KEY: keyPath } = vars;
  if (certPath !== undefined || keyPath !== undefined) {
    if (certPath === undefined) return invalid(ctx, 'must be set together with COFFER_TLS_KEY', 'COFFER_TLS_CERT');
    if (keyPath === undefined) return invalid(ctx, 'must be set together with COFFER_TLS_CERT', 'COFFER_TLS_KEY');
    if (mode === 'off') return invalid(ctx, 'is off but COFFER_TLS_CERT/COFFER_TLS_KEY are set', 'COFFER_TLS');
    return { mode: 'files', certPath: path.resolve(certPath), keyPath: path.resolve(keyPath) };
  }
  if (mode === 'auto' || mode === 'on') return { mode: 'auto' };
  if (mode === 'off') return { mode: 'off' };
  return invalid(ctx, 'must be auto or off (or set COFFER_TLS_CERT and COFFER_TLS_KEY)', 'COFFER_TLS');
}

function metricsOf(vars: Variables, ctx: z.RefinementCtx): MetricsConfig {
  const port = vars.COFFER_METRICS_PORT ?? null;
  if (port !== null && port !== 0 && port === vars.COFFER_PORT) return invalid(ctx, 'must differ from COFFER_PORT', 'COFFER_METRICS_PORT');
  return { port, host: vars.COFFER_METRICS_HOST, token: vars.COFFER_METRICS_TOKEN ?? null };
}

/** The master key provider: COFFER_MASTER_KEY_PROVIDER, else `env` when COFFER_MASTER_KEY is set, else `file`. */
function providerOf(vars: Variables, ctx: z.RefinementCtx): MasterKeyProviderKind {
  const provider = vars.COFFER_MASTER_KEY_PROVIDER ?? (vars.COFFER_MASTER_KEY === undefined ? 'file' : 'env');
  if (provider === 'env' && vars.COFFER_MASTER_KEY === undefined) return invalid(ctx, 'is env but COFFER_MASTER_KEY is not set', 'COFFER_MASTER_KEY_PROVIDER');
  if (provider === 'pkcs11' && vars.COFFER_PKCS11_PIN === undefined && vars.COFFER_PKCS11_PIN_FILE === undefined) {
    return invalid(ctx, 'is pkcs11: set COFFER_PKCS11_PIN_FILE (or COFFER_PKCS11_PIN) as well', 'COFFER_MASTER_KEY_PROVIDER');
  }
  const previous = vars.COFFER_MASTER_KEY_PREVIOUS_PROVIDER;
  if (previous !== undefined && previous === provider) return invalid(ctx, 'must differ from COFFER_MASTER_KEY_PROVIDER', 'COFFER_MASTER_KEY_PREVIOUS_PROVIDER');
  return provider;
}

/** The HSM settings, when a PIN is configured (any provider may move to pkcs11). */
function pkcs11Of(vars: Variables, ctx: z.RefinementCtx): Pkcs11Settings | null {
  const { COFFER_PKCS11_TOKEN_LABEL: label, COFFER_PKCS11_SLOT: slot, COFFER_PKCS11_PIN: pin, COFFER_PKCS11_PIN_FILE: pinFile } = vars;
  if (label !== undefined && slot !== undefined) return invalid(ctx, 'set COFFER_PKCS11_TOKEN_LABEL or COFFER_PKCS11_SLOT, not both', 'COFFER_PKCS11_SLOT');
  if (pin !== undefined && pinFile !== undefined) return invalid(ctx, 'set COFFER_PKCS11_PIN or COFFER_PKCS11_PIN_FILE, not both', 'COFFER_PKCS11_PIN');
  if (pin === undefined && pinFile === undefined) return null;
  return {
    modulePath: vars.COFFER_PKCS11_MODULE,
    token: slot === undefined ? { label: label ?? 'coffer' } : { slot },
    pin: pinFile === undefined ? { value: pin as string } : { file: pinFile },
    keyLabel: vars.COFFER_PKCS11_KEY_LABEL,
  };
}

/** The typed configuration from the variables, with the checks that involve two of them. */
function toConfig(vars: Variables, ctx: z.RefinementCtx): Config {
  const tls = tlsOf(vars, ctx);
  const masterKey = vars.COFFER_MASTER_KEY ?? null;
  if (vars.COFFER_MASTER_KEY_PREVIOUS !== undefined && masterKey === null) {
    return invalid(ctx, 'needs COFFER_MASTER_KEY (the new key) as well', 'COFFER_MASTER_KEY_PREVIOUS');
  }
  const metrics = metricsOf(vars, ctx);
  const masterKeyProvider = providerOf(vars, ctx);
  const previousProvider = vars.COFFER_MASTER_KEY_PREVIOUS_PROVIDER ?? null;
  if (previousProvider === 'env' && masterKey === null) return invalid(ctx, 'is env but COFFER_MASTER_KEY is not set', 'COFFER_MASTER_KEY_PREVIOUS_PROVIDER');
  const pkcs11 = pkcs11Of(vars, ctx);
  if (vars.COFFER_UNSEAL_PORT !== 0 && vars.COFFER_UNSEAL_PORT === vars.COFFER_PORT) return invalid(ctx, 'must differ from COFFER_PORT', 'COFFER_UNSEAL_PORT');
  if (previousProvider === 'pkcs11' && pkcs11 === null) return invalid(ctx, 'is pkcs11: set COFFER_PKCS11_PIN_FILE (or COFFER_PKCS11_PIN) as well', 'COFFER_MASTER_KEY_PREVIOUS_PROVIDER');
  return {
    dataDir: vars.COFFER_DATA_DIR,
    store: vars.COFFER_DATABASE_URL ?? { kind: 'sqlite', path: path.join(vars.COFFER_DATA_DIR, 'coffer.sqlite') },
    host: vars.COFFER_HOST,
    port: vars.COFFER_PORT,
    tls,
    masterKey,
    previousMasterKeys: vars.COFFER_MASTER_KEY_PREVIOUS ?? [],
    masterKeyProvider,
    previousMasterKeyProvider: previousProvider,
    pkcs11,
    unseal: { host: vars.COFFER_UNSEAL_HOST, port: vars.COFFER_UNSEAL_PORT },
    cacheTtlSeconds: vars.COFFER_CACHE_TTL / 1000,
    sweepIntervalMs: vars.COFFER_SWEEP_INTERVAL,
    redisUrl: vars.COFFER_REDIS_URL ?? null,
    logLevel: vars.COFFER_LOG_LEVEL,
    gateways: {
      timeoutMs: vars.COFFER_GATEWAY_TIMEOUT,
      timeoutMsByType: vars.COFFER_GATEWAY_TIMEOUTS,
      endpoints: vars.COFFER_GATEWAY_ENDPOINTS,
      maxInFlight: vars.COFFER_GATEWAY_MAX_IN_FLIGHT,
    },
    rateLimits: vars.COFFER_RATE_LIMITS,
    trustProxy: vars.COFFER_TRUST_PROXY,
    egressAllow: vars.COFFER_EGRESS_ALLOW,
    receiverCatalogPath: vars.COFFER_RECEIVER_CATALOG ?? null,
    receiverTimeoutMs: vars.COFFER_RECEIVER_TIMEOUT,
    outboundCaPath: vars.COFFER_OUTBOUND_CA_FILE ?? null,
    wallets: {
      applePayRootCaPath: vars.COFFER_APPLE_PAY_ROOT_CA ?? null,
      googlePayRootKeysPath: vars.COFFER_GOOGLE_PAY_ROOT_KEYS ?? null,
      signingTimeWindowMs: vars.COFFER_WALLET_SIGNING_WINDOW,
    },
    portal: vars.COFFER_PORTAL,
    eventRetentionDays: vars.COFFER_EVENT_RETENTION_DAYS,
    callbackPollMs: vars.COFFER_CALLBACK_POLL_MS,
    reconcileWindowMinutes: vars.COFFER_RECONCILE_WINDOW_MINUTES,
    reconcileNotFoundAfterSeconds: vars.COFFER_RECONCILE_NOT_FOUND_AFTER,
    metrics,
    audit: {
      retentionMonths: vars.COFFER_AUDIT_RETENTION_MONTHS,
      chainIntervalMs: vars.COFFER_AUDIT_CHAIN_INTERVAL,
      checkpointIntervalMs: vars.COFFER_AUDIT_CHECKPOINT_INTERVAL,
    },
    people: {
      passwordMinLength: vars.COFFER_PORTAL_PASSWORD_MIN_LENGTH,
      lockoutFailures: vars.COFFER_PORTAL_LOCKOUT_FAILURES,
      lockoutMs: vars.COFFER_PORTAL_LOCKOUT_DURATION,
      idleTimeoutMs: vars.COFFER_PORTAL_IDLE_TIMEOUT,
      inactiveDays: vars.COFFER_PORTAL_INACTIVE_DAYS,
    },
  };
}

/** The process environment to the typed configuration; each issue's path is the variable at fault. */
export const configSchema = variables.transform(toConfig);
