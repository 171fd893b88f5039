import { createRequire } from 'node:module';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';

/*
 * Dependencies pinned below what their dependents ask for, or installed without their install
 * scripts (package.json "overrides" and "allowScripts"; why: docs/decisions.md, "Dependencies
 * kept quiet on Node 20"). Each test exercises what the dependent takes from the pinned package.
 */

const require = createRequire(import.meta.url);

describe('cookie 1.1.1 under light-my-request (Node 20; cookie 2 needs Node 22)', () => {
  it('is the cookie light-my-request loads, and supports Node 20', () => {
    const fromLightMyRequest = createRequire(require.resolve('light-my-request'));
    const manifest = fromLightMyRequest('cookie/package.json') as { version: string; engines: { node: string } };
    expect(manifest.engines.node).toBe('>=18');
    expect(manifest.version).toBe('1.1.1');
  });

  it("sends inject()'s cookies (light-my-request's one use of cookie: stringifySetCookie)", async () => {
    const app = Fastify();
    app.get('/portal/echo', (request) => ({ cookie: request.headers.cookie }));
    try {
      const response = await app.inject({ method: 'GET', url: '/portal/echo', cookies: { coffer_session: 'a b;c', other: 'x' } });
      expect(response.json()).toEqual({ cookie: 'coffer_session=a%20b%3Bc; other=x' });
      const scoped = await app.inject({ method: 'GET', url: '/portal/echo', cookies: [{ name: 'kept', value: '1', path: '/portal' }, { name: 'dropped', value: '2', path: '/v1' }] });
      expect(scoped.json()).toEqual({ cookie: 'kept=1' });
    } finally {
      await app.close();
    }
  });
});

describe('ssh2 without its optional native parts (allowScripts: ssh2 and cpu-features false)', () => {
  it('has neither native part built, and negotiates AES-GCM and ChaCha20-Poly1305 from Node crypto', async () => {
    const { bindingAvailable } = require('ssh2/lib/protocol/crypto.js') as { bindingAvailable: boolean };
    expect(bindingAvailable).toBe(false);
    expect(() => require('cpu-features')).toThrow();
    const ssh2 = (await import('ssh2')) as unknown as { utils: { sftp: unknown } };
    expect(ssh2.utils.sftp).toBeDefined();
    const { DEFAULT_CIPHER } = require('ssh2/lib/protocol/constants.js') as { DEFAULT_CIPHER: string[] };
    expect(DEFAULT_CIPHER).toEqual(expect.arrayContaining(['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'chacha20-poly1305@openssh.com']));
  });
});
