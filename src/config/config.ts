import net from 'node:net';
import path from 'node:path';
import { RATE_LIMIT_DEFAULTS, isRateLimitName, type RateLimitRules } from '../limits/rate-limit-policy.js';

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

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Record<string, string | undefined>;

function nonEmpty(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function parseStore(env: Env, dataDir: string): StoreConfig {
  const url = nonEmpty(env, 'COFFER_DATABASE_URL');
  if (url === undefined) return { kind: 'sqlite', path: path.join(dataDir, 'coffer.sqlite') };
  if (/^postgres(ql)?:\/\//i.test(url)) {
    try {
      new URL(url);
    } catch {
      throw new ConfigError('COFFER_DATABASE_URL', 'is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url };
  }
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (file === '') throw new ConfigError('COFFER_DATABASE_URL', 'sqlite: needs a file path, e.g. sqlite:./data/coffer.sqlite');
    return { kind: 'sqlite', path: path.resolve(file) };
  }
  throw new ConfigError('COFFER_DATABASE_URL', 'must start with postgres:// or sqlite:');
}

function parsePort(env: Env): number {
  const raw = nonEmpty(env, 'COFFER_PORT');
  if (raw === undefined) return 8443;
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError('COFFER_PORT', 'must be an integer from 0 to 65535');
  }
  return Number(raw);
}

function parseTls(env: Env): TlsConfig {
  const mode = (nonEmpty(env, 'COFFER_TLS') ?? 'auto').toLowerCase();
  const certPath = nonEmpty(env, 'COFFER_TLS_CERT');
  const keyPath = nonEmpty(env, 'COFFER_TLS_KEY');
  if (certPath !== undefined || keyPath !== undefined) {
    if (certPath === undefined) throw new ConfigError('COFFER_TLS_CERT', 'must be set together with COFFER_TLS_KEY');
    if (keyPath === undefined) throw new ConfigError('COFFER_TLS_KEY', 'must be set together with COFFER_TLS_CERT');
    if (mode === 'off') throw new ConfigError('COFFER_TLS', 'is off but COFFER_TLS_CERT/COFFER_TLS_KEY are set');
    return { mode: 'files', certPath: path.resolve(certPath), keyPath: path.resolve(keyPath) };
  }
  if (mode === 'auto' || mode === 'on') return { mode: 'auto' };
  if (mode === 'off') return { mode: 'off' };
  throw new ConfigError('COFFER_TLS', 'must be auto or off (or set COFFER_TLS_CERT and COFFER_TLS_KEY)');
}

function decodeKey(variable: string, raw: string): Buffer {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(raw)) throw new ConfigError(variable, 'must be base64');
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    throw new ConfigError(variable, `must decode to 32 bytes (got ${key.length}); try: openssl rand -base64 32`);
  }
  return key;
}

function parseMasterKey(env: Env): Buffer | null {
  const raw = nonEmpty(env, 'COFFER_MASTER_KEY');
  return raw === undefined ? null : decodeKey('COFFER_MASTER_KEY', raw);
}

function parsePreviousMasterKeys(env: Env, current: Buffer | null): Buffer[] {
  const raw = nonEmpty(env, 'COFFER_MASTER_KEY_PREVIOUS');
  if (raw === undefined) return [];
  if (current === null) throw new ConfigError('COFFER_MASTER_KEY_PREVIOUS', 'needs COFFER_MASTER_KEY (the new key) as well');
  return raw.split(',').map((part) => decodeKey('COFFER_MASTER_KEY_PREVIOUS', part.trim()));
}

const TTL_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600 };

function parseCacheTtl(env: Env): number {
  const raw = nonEmpty(env, 'COFFER_CACHE_TTL');
  if (raw === undefined) return 600;
  const match = /^(\d+)([smh]?)$/.exec(raw);
  const seconds = match === null ? 0 : Number(match[1]) * (TTL_UNITS[match[2] || 's'] ?? 1);
  if (seconds < 1 || seconds > 7 * 24 * 3600) {
    throw new ConfigError('COFFER_CACHE_TTL', 'must be a duration such as 600, 600s, 10m or 1h (at most 7 days)');
  }
  return seconds;
}

const INTERVAL_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** COFFER_SWEEP_INTERVAL: 15 (seconds), 500ms, 30s or 1m; from 100 ms to 1 hour. */
function parseSweepInterval(env: Env): number {
  const raw = nonEmpty(env, 'COFFER_SWEEP_INTERVAL');
  if (raw === undefined) return 15_000;
  const match = /^(\d+)(ms|s|m)?$/.exec(raw);
  const ms = match === null ? 0 : Number(match[1]) * (INTERVAL_UNITS[match[2] ?? 's'] ?? 1000);
  if (ms < 100 || ms > 3_600_000) throw new ConfigError('COFFER_SWEEP_INTERVAL', 'must be a duration such as 15, 15s, 500ms or 1m (100 ms to 1 hour)');
  return ms;
}

function parseRedisUrl(env: Env): string | null {
  const url = nonEmpty(env, 'COFFER_REDIS_URL');
  if (url === undefined) return null;
  if (!/^rediss?:\/\//i.test(url)) throw new ConfigError('COFFER_REDIS_URL', 'must start with redis:// or rediss://');
  return url;
}

function parseLogLevel(env: Env): LogLevel {
  const level = (nonEmpty(env, 'COFFER_LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError('COFFER_LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return level as LogLevel;
}

function parseJsonObject(env: Env, variable: string): Record<string, unknown> {
  const raw = nonEmpty(env, variable);
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(variable, 'must be a JSON object');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(variable, 'must be a JSON object');
  return parsed as Record<string, unknown>;
}

function positiveInteger(env: Env, variable: string, fallback: number, max: number): number {
  const raw = nonEmpty(env, variable);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) throw new ConfigError(variable, `must be an integer from 1 to ${max}`);
  return Number(raw);
}

function parseGateways(env: Env): GatewayCallConfig {
  const endpoints: Record<string, string> = {};
  for (const [type, url] of Object.entries(parseJsonObject(env, 'COFFER_GATEWAY_ENDPOINTS'))) {
    if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url)) throw new ConfigError('COFFER_GATEWAY_ENDPOINTS', `${type} must map to an http(s) URL`);
    endpoints[type] = url.replace(/\/+$/, '');
  }
  const timeoutMsByType: Record<string, number> = {};
  for (const [type, seconds] of Object.entries(parseJsonObject(env, 'COFFER_GATEWAY_TIMEOUTS'))) {
    if (typeof seconds !== 'number' || !(seconds > 0) || seconds > 600) throw new ConfigError('COFFER_GATEWAY_TIMEOUTS', `${type} must be seconds from 0 to 600`);
    timeoutMsByType[type] = Math.round(seconds * 1000);
  }
  return {
    timeoutMs: positiveInteger(env, 'COFFER_GATEWAY_TIMEOUT', 60, 600) * 1000,
    timeoutMsByType,
    endpoints,
    maxInFlight: positiveInteger(env, 'COFFER_GATEWAY_MAX_IN_FLIGHT', 64, 10_000),
  };
}

/**
 * COFFER_RATE_LIMITS: a JSON object of overrides by limit name, each {"limit": n, "window_seconds": s}
 * or null to lift that limit; the name "*" applies to every limit not named itself.
 */
function parseRateLimits(env: Env): RateLimitRules {
  const variable = 'COFFER_RATE_LIMITS';
  const overrides = parseJsonObject(env, variable);
  const rules = { ...RATE_LIMIT_DEFAULTS } as RateLimitRules;
  const parseRule = (name: string, value: unknown): RateLimitRules[keyof RateLimitRules] => {
    if (value === null) return null;
    const rule = value as { limit?: unknown; window_seconds?: unknown };
    if (typeof value !== 'object' || Array.isArray(value) || !Number.isInteger(rule.limit) || (rule.limit as number) < 1) {
      throw new ConfigError(variable, `${name} must be null or {"limit": <integer ≥ 1>, "window_seconds": <integer ≥ 1>}`);
    }
    const windowSeconds = rule.window_seconds ?? 60;
    if (!Number.isInteger(windowSeconds) || (windowSeconds as number) < 1 || (windowSeconds as number) > 7 * 86_400) {
      throw new ConfigError(variable, `${name}.window_seconds must be an integer from 1 to 604800`);
    }
    return { limit: rule.limit as number, windowSeconds: windowSeconds as number };
  };
  if ('*' in overrides) {
    const all = parseRule('*', overrides['*']);
    for (const name of Object.keys(rules) as (keyof RateLimitRules)[]) rules[name] = all;
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (name === '*') continue;
    if (!isRateLimitName(name)) throw new ConfigError(variable, `unknown limit ${name}; known: ${Object.keys(RATE_LIMIT_DEFAULTS).join(', ')}`);
    rules[name] = parseRule(name, value);
  }
  return rules;
}

function isCidrOrAddress(entry: string): boolean {
  const [address, bits, extra] = entry.split('/');
  if (extra !== undefined || address === undefined) return false;
  const family = net.isIP(address);
  if (family === 0) return false;
  if (bits === undefined) return true;
  return /^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

function listOf(env: Env, variable: string): string[] {
  const raw = nonEmpty(env, variable);
  return raw === undefined ? [] : raw.split(',').map((part) => part.trim()).filter((part) => part !== '');
}

function parseTrustProxy(env: Env): string[] {
  const entries = listOf(env, 'COFFER_TRUST_PROXY');
  for (const entry of entries) {
    if (!isCidrOrAddress(entry)) throw new ConfigError('COFFER_TRUST_PROXY', `${entry} is not an IP address or CIDR`);
  }
  return entries;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

function parseEgressAllow(env: Env): string[] {
  const entries = listOf(env, 'COFFER_EGRESS_ALLOW');
  for (const entry of entries) {
    if (!isCidrOrAddress(entry) && !HOST_NAME.test(entry)) throw new ConfigError('COFFER_EGRESS_ALLOW', `${entry} is not a CIDR, an IP address or a host name`);
  }
  return entries.map((entry) => (HOST_NAME.test(entry) ? entry.toLowerCase() : entry));
}

function optionalPath(env: Env, variable: string): string | null {
  const raw = nonEmpty(env, variable);
  return raw === undefined ? null : path.resolve(raw);
}

/**
 * Reads the deployment configuration. This module is the only reader of the process
 * environment: everything else receives a typed `Config`.
 */
export function loadConfig(env: Env = process.env): Config {
  const dataDir = path.resolve(nonEmpty(env, 'COFFER_DATA_DIR') ?? './data');
  const masterKey = parseMasterKey(env);
  return {
    dataDir,
    store: parseStore(env, dataDir),
    host: nonEmpty(env, 'COFFER_HOST') ?? '127.0.0.1',
    port: parsePort(env),
    tls: parseTls(env),
    masterKey,
    previousMasterKeys: parsePreviousMasterKeys(env, masterKey),
    cacheTtlSeconds: parseCacheTtl(env),
    sweepIntervalMs: parseSweepInterval(env),
    redisUrl: parseRedisUrl(env),
    logLevel: parseLogLevel(env),
    gateways: parseGateways(env),
    rateLimits: parseRateLimits(env),
    trustProxy: parseTrustProxy(env),
    egressAllow: parseEgressAllow(env),
    receiverCatalogPath: optionalPath(env, 'COFFER_RECEIVER_CATALOG'),
    receiverTimeoutMs: positiveInteger(env, 'COFFER_RECEIVER_TIMEOUT', 30, 600) * 1000,
    outboundCaPath: optionalPath(env, 'COFFER_OUTBOUND_CA_FILE'),
    portal: parsePortal(env),
    eventRetentionDays: positiveInteger(env, 'COFFER_EVENT_RETENTION_DAYS', 90, 3650),
    callbackPollMs: positiveInteger(env, 'COFFER_CALLBACK_POLL_MS', 1000, 600_000),
    reconcileWindowMinutes: positiveInteger(env, 'COFFER_RECONCILE_WINDOW_MINUTES', 1440, 7 * 1440),
    reconcileNotFoundAfterSeconds: positiveInteger(env, 'COFFER_RECONCILE_NOT_FOUND_AFTER', 600, 86_400),
    metrics: parseMetrics(env),
  };
}

/** A metrics token is a bearer secret: long, and only characters a header carries as they are. */
const METRICS_TOKEN = /^[\x21-\x7e]{32,256}$/;

/** COFFER_METRICS_PORT, COFFER_METRICS_HOST and COFFER_METRICS_TOKEN. */
function parseMetrics(env: Env): MetricsConfig {
  const rawPort = nonEmpty(env, 'COFFER_METRICS_PORT');
  if (rawPort !== undefined && (!/^\d+$/.test(rawPort) || Number(rawPort) > 65535)) {
    throw new ConfigError('COFFER_METRICS_PORT', 'must be an integer from 0 to 65535');
  }
  const port = rawPort === undefined ? null : Number(rawPort);
  if (port !== null && port !== 0 && port === parsePort(env)) throw new ConfigError('COFFER_METRICS_PORT', 'must differ from COFFER_PORT');
  const host = nonEmpty(env, 'COFFER_METRICS_HOST') ?? '127.0.0.1';
  if (net.isIP(host) === 0 && !HOST_NAME.test(host)) throw new ConfigError('COFFER_METRICS_HOST', 'must be an IP address or a host name');
  const token = nonEmpty(env, 'COFFER_METRICS_TOKEN') ?? null;
  if (token !== null && !METRICS_TOKEN.test(token)) {
    throw new ConfigError('COFFER_METRICS_TOKEN', 'must be 32 to 256 printable characters without spaces; try: openssl rand -hex 32');
  }
  return { port, host, token };
}

/** COFFER_PORTAL: on (default) or off. */
function parsePortal(env: Env): boolean {
  const value = nonEmpty(env, 'COFFER_PORTAL')?.toLowerCase() ?? 'on';
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new ConfigError('COFFER_PORTAL', 'must be on or off');
}
