import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

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
