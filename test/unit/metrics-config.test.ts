import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, metricsEnabled } from '../../src/config/config.js';
import { bearerChecker } from '../../src/metrics/bearer-token.js';

const TOKEN = 'a'.repeat(16) + 'B'.repeat(16);

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('no ConfigError');
}

describe('metrics configuration (COFFER_METRICS_*)', () => {
  it('is off by default: no port, no token, loopback for a port when one is set', () => {
    const config = loadConfig({});
    expect(config.metrics).toEqual({ port: null, host: '127.0.0.1', token: null });
    expect(metricsEnabled(config.metrics)).toBe(false);
  });

  it('takes a port, a host and a token; either turns metrics on', () => {
    const port = loadConfig({ COFFER_METRICS_PORT: '9464' }).metrics;
    expect(port).toEqual({ port: 9464, host: '127.0.0.1', token: null });
    expect(metricsEnabled(port)).toBe(true);
    const token = loadConfig({ COFFER_METRICS_TOKEN: ` ${TOKEN} ` }).metrics;
    expect(token).toEqual({ port: null, host: '127.0.0.1', token: TOKEN });
    expect(metricsEnabled(token)).toBe(true);
    expect(loadConfig({ COFFER_METRICS_PORT: '0', COFFER_METRICS_HOST: '0.0.0.0', COFFER_METRICS_TOKEN: TOKEN }).metrics).toEqual({ port: 0, host: '0.0.0.0', token: TOKEN });
    expect(loadConfig({ COFFER_METRICS_HOST: 'metrics.internal' }).metrics.host).toBe('metrics.internal');
  });

  it('refuses a bad port, the API port, a bad host and a weak or unprintable token, naming the variable', () => {
    expect(configError({ COFFER_METRICS_PORT: 'x' }).message).toBe('COFFER_METRICS_PORT: must be an integer from 0 to 65535');
    expect(configError({ COFFER_METRICS_PORT: '70000' }).message).toBe('COFFER_METRICS_PORT: must be an integer from 0 to 65535');
    expect(configError({ COFFER_METRICS_PORT: '8443' }).message).toBe('COFFER_METRICS_PORT: must differ from COFFER_PORT');
    expect(configError({ COFFER_PORT: '9000', COFFER_METRICS_PORT: '9000' }).message).toBe('COFFER_METRICS_PORT: must differ from COFFER_PORT');
    expect(configError({ COFFER_METRICS_HOST: 'not a host' }).message).toBe('COFFER_METRICS_HOST: must be an IP address or a host name');
    const weak = 'COFFER_METRICS_TOKEN: must be 32 to 256 printable characters without spaces; try: openssl rand -hex 32';
    expect(configError({ COFFER_METRICS_TOKEN: 'short' }).message).toBe(weak);
    expect(configError({ COFFER_METRICS_TOKEN: `${TOKEN} ${TOKEN}` }).message).toBe(weak);
    expect(configError({ COFFER_METRICS_TOKEN: `${TOKEN}é` }).message).toBe(weak);
    expect(configError({ COFFER_METRICS_TOKEN: 'x'.repeat(257) }).message).toBe(weak);
    // The message never repeats the token.
    expect(configError({ COFFER_METRICS_TOKEN: `${TOKEN} ${TOKEN}` }).message).not.toContain(TOKEN);
  });
});

describe('the metrics bearer check', () => {
  const check = bearerChecker(TOKEN);

  it('accepts exactly `Bearer <token>` (scheme in any case)', () => {
    expect(check(`Bearer ${TOKEN}`)).toBe(true);
    expect(check(`bearer ${TOKEN}`)).toBe(true);
    expect(check(`BEARER  ${TOKEN} `)).toBe(true);
  });

  it('refuses a missing header, another scheme, a prefix, an extension and the empty token', () => {
    for (const header of [undefined, '', TOKEN, `Basic ${Buffer.from(`key:${TOKEN}`).toString('base64')}`, `Token ${TOKEN}`, `Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${TOKEN}x`, 'Bearer ', `Bearer ${TOKEN} extra`]) {
      expect(check(header), String(header)).toBe(false);
    }
  });
});
