import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

/** A bare handshake: the negotiated protocol, or the error. */
function handshake(options: tls.ConnectionOptions): Promise<{ protocol: string | null } | { error: NodeJS.ErrnoException }> {
  return new Promise((resolve) => {
    const socket = tls.connect(options);
    socket.once('secureConnect', () => {
      const protocol = socket.getProtocol();
      socket.end();
      resolve({ protocol });
    });
    socket.once('error', (error) => {
      socket.destroy();
      resolve({ error });
    });
  });
}

// TLS 1.1 needs SHA-1 handshake signatures, which OpenSSL 3 allows only at security level 0.
const TLS11_CLIENT = { minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' } as const;

describe('the running Coffer server and TLS versions', () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startServer();
    port = Number(new URL(server.client.baseUrl).port);
  });
  afterAll(() => server.close());

  it('refuses a TLS 1.1 handshake with a protocol-version error', async () => {
    const result = await handshake({ host: '127.0.0.1', port, servername: 'localhost', ca: server.ca ?? undefined, ...TLS11_CLIENT });
    expect('error' in result).toBe(true);
    if ('error' in result) expect(`${result.error.code} ${result.error.message}`).toMatch(/protocol version|unsupported protocol/i);
  });

  it('control: the same TLS 1.1 client completes a handshake with a server that allows TLS 1.1', async () => {
    const legacy = https.createServer(
      { key: tlsFile(server, 'server-key.pem'), cert: tlsFile(server, 'server.pem'), minVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' },
      (_req, res) => res.end('ok'),
    );
    await new Promise<void>((resolve) => legacy.listen(0, '127.0.0.1', resolve));
    try {
      const result = await handshake({
        host: '127.0.0.1',
        port: (legacy.address() as AddressInfo).port,
        servername: 'localhost',
        ca: server.ca ?? undefined,
        ...TLS11_CLIENT,
      });
      expect(result).toEqual({ protocol: 'TLSv1.1' });
    } finally {
      legacy.close();
    }
  });

  it('accepts TLS 1.2 and TLS 1.3 clients that trust the local CA', async () => {
    const v12 = await handshake({ host: '127.0.0.1', port, servername: 'localhost', ca: server.ca ?? undefined, maxVersion: 'TLSv1.2' });
    expect(v12).toEqual({ protocol: 'TLSv1.2' });
    const v13 = await handshake({ host: '127.0.0.1', port, servername: 'localhost', ca: server.ca ?? undefined });
    expect(v13).toEqual({ protocol: 'TLSv1.3' });
  });
});

function tlsFile(server: TestServer, name: string): string {
  return fs.readFileSync(path.join(server.dataDir, 'tls', name), 'utf8');
}

/** TLS 1.2 suites, renegotiation and HSTS (docs/security.md). */
describe('TLS hardening of the running server', () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startServer();
    port = Number(new URL(server.client.baseUrl).port);
  });
  afterAll(() => server.close());

  const tls12 = (ciphers: string) => handshake({ host: '127.0.0.1', port, servername: 'localhost', ca: server.ca ?? undefined, maxVersion: 'TLSv1.2', ciphers: `${ciphers}@SECLEVEL=0` });

  it('TLS 1.2 offers only forward-secret AEAD suites: CBC, SHA-1, static RSA, ARIA and CCM8 are refused', async () => {
    for (const refused of ['ECDHE-RSA-AES128-SHA', 'ECDHE-RSA-AES256-SHA384', 'ECDHE-ECDSA-AES128-SHA256', 'AES128-GCM-SHA256', 'AES256-SHA', 'ECDHE-ARIA128-GCM-SHA256', 'ECDHE-ECDSA-AES128-CCM8', 'DHE-RSA-AES128-SHA']) {
      const result = await tls12(refused);
      expect('error' in result, refused).toBe(true);
    }
    for (const accepted of ['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-CHACHA20-POLY1305', 'ECDHE-ECDSA-CHACHA20-POLY1305']) {
      const result = await tls12(`${accepted}:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES256-GCM-SHA384`);
      expect(result, accepted).toEqual({ protocol: 'TLSv1.2' });
    }
  });

  it('refuses a renegotiation the client starts', async () => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca: server.ca ?? undefined, maxVersion: 'TLSv1.2' });
    socket.on('error', () => undefined);
    // Read what the server sends, so its answer to the second handshake is seen.
    socket.resume();
    await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
    const outcome = await new Promise<string>((resolve) => {
      const asked = socket.renegotiate({ rejectUnauthorized: false }, (error) => resolve(error === null ? 'renegotiated' : 'refused'));
      if (asked === false) resolve('refused');
      socket.once('close', () => resolve('refused'));
    });
    socket.destroy();
    expect(outcome).toBe('refused');
  });

  it('sends Strict-Transport-Security on every HTTPS response, errors included', async () => {
    expect((await server.client.get('/healthz', { auth: null })).headers['strict-transport-security']).toBe('max-age=31536000');
    expect((await server.client.get('/v1/nothing-here.json')).headers['strict-transport-security']).toBe('max-age=31536000');
  });
});
