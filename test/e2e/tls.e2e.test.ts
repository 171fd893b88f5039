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
