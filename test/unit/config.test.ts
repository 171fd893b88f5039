import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { RATE_LIMIT_DEFAULTS } from '../../src/limits/rate-limit-policy.js';

describe('loadConfig', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(config.store).toEqual({ kind: 'sqlite', path: path.join(path.resolve('./data'), 'coffer.sqlite') });
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(8443);
    expect(config.tls).toEqual({ mode: 'auto' });
    expect(config.masterKey).toBeNull();
    expect(config.redisUrl).toBeNull();
    expect(config.logLevel).toBe('info');
  });

  it('reads every variable', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const config = loadConfig({
      COFFER_DATA_DIR: '/srv/coffer',
      COFFER_DATABASE_URL: 'postgres://u@db:5432/coffer',
      COFFER_HOST: '0.0.0.0',
      COFFER_PORT: '9000',
      COFFER_TLS: 'off',
      COFFER_MASTER_KEY: key,
      COFFER_REDIS_URL: 'redis://127.0.0.1:6379',
      COFFER_LOG_LEVEL: 'warn',
    });
    expect(config.store).toEqual({ kind: 'postgres', url: 'postgres://u@db:5432/coffer' });
    expect(config.host).toBe('0.0.0.0');
    expect(config.port).toBe(9000);
    expect(config.tls).toEqual({ mode: 'off' });
    expect(config.masterKey?.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.logLevel).toBe('warn');
  });

  it('reads the wallet roots and the signing-time window (docs/wallets.md, "Configuration")', () => {
    expect(loadConfig({}).wallets).toEqual({ applePayRootCaPath: null, googlePayRootKeysPath: null, signingTimeWindowMs: 300_000 });
    const config = loadConfig({ COFFER_APPLE_PAY_ROOT_CA: '/etc/coffer/apple.pem', COFFER_GOOGLE_PAY_ROOT_KEYS: '/etc/coffer/google.json', COFFER_WALLET_SIGNING_WINDOW: '2m' });
    expect(config.wallets).toEqual({ applePayRootCaPath: '/etc/coffer/apple.pem', googlePayRootKeysPath: '/etc/coffer/google.json', signingTimeWindowMs: 120_000 });
    expect(() => loadConfig({ COFFER_WALLET_SIGNING_WINDOW: '2h' })).toThrow(ConfigError);
    expect(() => loadConfig({ COFFER_WALLET_SIGNING_WINDOW: '2h' })).toThrow(/^COFFER_WALLET_SIGNING_WINDOW: /);
  });

  it('takes certificate files', () => {
    const config = loadConfig({ COFFER_TLS_CERT: 'c.pem', COFFER_TLS_KEY: 'k.pem' });
    expect(config.tls).toEqual({ mode: 'files', certPath: path.resolve('c.pem'), keyPath: path.resolve('k.pem') });
  });

  it.each([
    [{ COFFER_PORT: 'abc' }, 'COFFER_PORT'],
    [{ COFFER_PORT: '70000' }, 'COFFER_PORT'],
    [{ COFFER_TLS: 'maybe' }, 'COFFER_TLS'],
    [{ COFFER_TLS_CERT: 'c.pem' }, 'COFFER_TLS_KEY'],
    [{ COFFER_TLS_KEY: 'k.pem' }, 'COFFER_TLS_CERT'],
    [{ COFFER_TLS: 'off', COFFER_TLS_CERT: 'c', COFFER_TLS_KEY: 'k' }, 'COFFER_TLS'],
    [{ COFFER_MASTER_KEY: 'c2hvcnQ=' }, 'COFFER_MASTER_KEY'],
    [{ COFFER_MASTER_KEY: 'not base64!' }, 'COFFER_MASTER_KEY'],
    [{ COFFER_DATABASE_URL: 'mysql://x' }, 'COFFER_DATABASE_URL'],
    [{ COFFER_REDIS_URL: 'http://x' }, 'COFFER_REDIS_URL'],
    [{ COFFER_LOG_LEVEL: 'loud' }, 'COFFER_LOG_LEVEL'],
    [{ COFFER_RATE_LIMITS: '{"transactions_list": ' }, 'COFFER_RATE_LIMITS'],
    [{ COFFER_RATE_LIMITS: '[1]' }, 'COFFER_RATE_LIMITS'],
    [{ COFFER_RATE_LIMITS: '{"transaction_list": null}' }, 'COFFER_RATE_LIMITS'],
    [{ COFFER_RATE_LIMITS: '{"transactions_list": {"limit": 0}}' }, 'COFFER_RATE_LIMITS'],
    [{ COFFER_RATE_LIMITS: '{"transactions_list": {"limit": 2.5}}' }, 'COFFER_RATE_LIMITS'],
    [{ COFFER_RATE_LIMITS: '{"transactions_list": 30}' }, 'COFFER_RATE_LIMITS'],
    [{ COFFER_RATE_LIMITS: '{"transactions_list": {"limit": 5, "window_seconds": 0}}' }, 'COFFER_RATE_LIMITS'],
    [{ COFFER_RATE_LIMITS: '{"transactions_list": {"limit": 5, "window_seconds": 604801}}' }, 'COFFER_RATE_LIMITS'],
    [{ COFFER_TRUST_PROXY: '10.0.0.0/33' }, 'COFFER_TRUST_PROXY'],
    [{ COFFER_TRUST_PROXY: 'proxy.internal' }, 'COFFER_TRUST_PROXY'],
    [{ COFFER_TRUST_PROXY: '10.0.0.1/8/1' }, 'COFFER_TRUST_PROXY'],
    [{ COFFER_SWEEP_INTERVAL: '50ms' }, 'COFFER_SWEEP_INTERVAL'],
    [{ COFFER_SWEEP_INTERVAL: '2h' }, 'COFFER_SWEEP_INTERVAL'],
    [{ COFFER_SWEEP_INTERVAL: 'often' }, 'COFFER_SWEEP_INTERVAL'],
  ])('refuses %o with one line naming %s', (env, variable) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message.startsWith(`${variable}:`)).toBe(true);
    expect(message).not.toContain('\n');
  });

  it('has the API.md §7 rate limits, no trusted proxy and a 15 s sweep by default', () => {
    const config = loadConfig({});
    expect(config.rateLimits).toEqual(RATE_LIMIT_DEFAULTS);
    expect(config.rateLimits.transactions_list).toEqual({ limit: 30, windowSeconds: 60 });
    expect(config.rateLimits.payment_methods_bin6_last4).toEqual({ limit: 1000, windowSeconds: 86_400 });
    expect(config.rateLimits.payment_methods_bin8_last4).toEqual({ limit: 250, windowSeconds: 86_400 });
    expect(config.rateLimits.payment_methods_client_ip).toEqual({ limit: 30, windowSeconds: 60 });
    expect(config.trustProxy).toEqual([]);
    expect(config.sweepIntervalMs).toBe(15_000);
  });

  it('applies COFFER_RATE_LIMITS: a named rule, null to lift one, "*" for the rest, a window of 60 s unless given', () => {
    const config = loadConfig({
      COFFER_RATE_LIMITS: JSON.stringify({
        '*': { limit: 100 },
        transactions_list: { limit: 5, window_seconds: 10 },
        payment_methods_client_ip: null,
      }),
    });
    expect(config.rateLimits.transactions_list).toEqual({ limit: 5, windowSeconds: 10 });
    expect(config.rateLimits.payment_methods_client_ip).toBeNull();
    expect(config.rateLimits.receivers_options).toEqual({ limit: 100, windowSeconds: 60 });
    expect(config.rateLimits.payment_methods_bin6_last4).toEqual({ limit: 100, windowSeconds: 60 });
    const lifted = loadConfig({ COFFER_RATE_LIMITS: '{"*": null}' });
    expect(Object.values(lifted.rateLimits).every((rule) => rule === null)).toBe(true);
    expect(loadConfig({ COFFER_RATE_LIMITS: '{}' }).rateLimits).toEqual(RATE_LIMIT_DEFAULTS);
  });

  it('names the known limits when COFFER_RATE_LIMITS has an unknown one', () => {
    expect(() => loadConfig({ COFFER_RATE_LIMITS: '{"transaction_list": null}' })).toThrow(/unknown limit transaction_list; known: transactions_list, /);
  });

  it('reads COFFER_TRUST_PROXY (IPs and CIDRs, comma-separated) and COFFER_SWEEP_INTERVAL', () => {
    expect(loadConfig({ COFFER_TRUST_PROXY: '10.0.0.0/8, 192.0.2.7,2001:db8::/32 , ::1' }).trustProxy).toEqual(['10.0.0.0/8', '192.0.2.7', '2001:db8::/32', '::1']);
    expect(loadConfig({ COFFER_SWEEP_INTERVAL: '30' }).sweepIntervalMs).toBe(30_000);
    expect(loadConfig({ COFFER_SWEEP_INTERVAL: '30s' }).sweepIntervalMs).toBe(30_000);
    expect(loadConfig({ COFFER_SWEEP_INTERVAL: '250ms' }).sweepIntervalMs).toBe(250);
    expect(loadConfig({ COFFER_SWEEP_INTERVAL: '2m' }).sweepIntervalMs).toBe(120_000);
  });

  it('never echoes a rejected master key', () => {
    const bad = Buffer.alloc(16, 9).toString('base64');
    expect(() => loadConfig({ COFFER_MASTER_KEY: bad })).toThrow(/COFFER_MASTER_KEY/);
    try {
      loadConfig({ COFFER_MASTER_KEY: bad });
    } catch (error) {
      expect((error as Error).message).not.toContain(bad);
    }
  });
});
