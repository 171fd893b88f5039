import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLocalTls, loadTlsFiles } from '../../src/http/tls/local-ca.js';
import { serverTlsOptions } from '../../src/http/tls/tls-options.js';

const tempDirs: string[] = [];
const servers: https.Server[] = [];

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-tls-'));
  tempDirs.push(dir);
  return dir;
}

async function listen(options: https.ServerOptions): Promise<number> {
  const server = https.createServer(options, (_req, res) => {
    res.end('ok');
  });
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return (server.address() as AddressInfo).port;
}

type Handshake = { ok: true; protocol: string | null } | { ok: false; error: NodeJS.ErrnoException };

/** Performs a bare TLS handshake and reports the negotiated protocol or the error. */
function handshake(options: tls.ConnectionOptions): Promise<Handshake> {
  return new Promise((resolve) => {
    const socket = tls.connect(options);
    socket.once('secureConnect', () => {
      const protocol = socket.getProtocol();
      socket.end();
      resolve({ ok: true, protocol });
    });
    socket.once('error', (error) => {
      socket.destroy();
      resolve({ ok: false, error });
    });
  });
}

function get(options: https.RequestOptions): Promise<{ status: number | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get({ ...options, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      })
      .on('error', reject);
  });
}

// File-level so it runs after every describe block below.
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('local CA', () => {
  let dataDir: string;
  let material: Awaited<ReturnType<typeof ensureLocalTls>>;
  let ca: string;

  beforeAll(async () => {
    // A nested, not-yet-existing data dir proves the recursive mkdir.
    dataDir = path.join(tempDir(), 'data');
    material = await ensureLocalTls(dataDir);
    ca = fs.readFileSync(material.caPath, 'utf8');
  });

  it('creates the four files on first run and reuses them afterwards', async () => {
    const tlsDir = path.join(dataDir, 'tls');
    expect(material.created).toBe(true);
    expect(material.caPath).toBe(path.join(tlsDir, 'ca.pem'));
    expect(fs.readdirSync(tlsDir).sort()).toEqual(['ca-key.pem', 'ca.pem', 'server-key.pem', 'server.pem']);
    expect(fs.readFileSync(path.join(tlsDir, 'server.pem'), 'utf8')).toBe(material.cert);
    expect(fs.readFileSync(path.join(tlsDir, 'server-key.pem'), 'utf8')).toBe(material.key);
    expect(material.key).toMatch(/^-----BEGIN PRIVATE KEY-----/); // PKCS#8
    if (process.platform !== 'win32') {
      expect(fs.statSync(tlsDir).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(tlsDir, 'ca-key.pem')).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.join(tlsDir, 'server-key.pem')).mode & 0o777).toBe(0o600);
    }

    const again = await ensureLocalTls(dataDir);
    expect(again.created).toBe(false);
    expect(again.key).toBe(material.key);
    expect(again.cert).toBe(material.cert);
    expect(fs.readFileSync(again.caPath, 'utf8')).toBe(ca);
  });

  it('reissues only the server certificate when it is missing, keeping the CA', async () => {
    const dir = tempDir();
    const first = await ensureLocalTls(dir);
    const caBefore = fs.readFileSync(first.caPath, 'utf8');
    const caKeyBefore = fs.readFileSync(path.join(dir, 'tls', 'ca-key.pem'), 'utf8');
    fs.rmSync(path.join(dir, 'tls', 'server.pem'));

    const second = await ensureLocalTls(dir);
    expect(second.created).toBe(true);
    expect(second.cert).not.toBe(first.cert);
    expect(second.key).not.toBe(first.key);
    expect(fs.readFileSync(second.caPath, 'utf8')).toBe(caBefore);
    expect(fs.readFileSync(path.join(dir, 'tls', 'ca-key.pem'), 'utf8')).toBe(caKeyBefore);
    const leaf = new crypto.X509Certificate(second.cert);
    expect(leaf.verify(new crypto.X509Certificate(caBefore).publicKey)).toBe(true);
  });

  it('issues a server certificate that chains to the CA and names the loopback hosts', () => {
    const caCert = new crypto.X509Certificate(ca);
    const leaf = new crypto.X509Certificate(material.cert);
    expect(caCert.ca).toBe(true);
    expect(caCert.subject).toBe('CN=Coffer Local CA');
    expect(caCert.verify(caCert.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.subject).toBe('CN=localhost');
    expect(leaf.checkIssued(caCert)).toBe(true);
    expect(leaf.verify(caCert.publicKey)).toBe(true);
    expect(leaf.checkHost('localhost')).toBe('localhost');
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkIP('::1')).toBe('::1');
    expect(leaf.keyUsage).toContain('1.3.6.1.5.5.7.3.1'); // extendedKeyUsage serverAuth
    expect(leaf.checkPrivateKey(crypto.createPrivateKey(material.key))).toBe(true);
    // A different, unrelated key must not verify the leaf.
    const { publicKey: stranger } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(leaf.verify(stranger)).toBe(false);
    // Serial is positive: the first hex digit is below 8.
    expect(Number.parseInt(leaf.serialNumber[0] ?? 'f', 16)).toBeLessThan(8);
    const days = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 86_400_000;
    expect(days).toBeGreaterThan(824);
    expect(days).toBeLessThan(827);
  });

  it('serves HTTPS that a client trusting only ca.pem accepts, by name and by IP', async () => {
    const port = await listen(serverTlsOptions(material));
    const byName = await get({ host: '127.0.0.1', port, ca, servername: 'localhost', path: '/' });
    expect(byName).toEqual({ status: 200, body: 'ok' });
    const byIp = await get({ host: '127.0.0.1', port, ca, path: '/' });
    expect(byIp).toEqual({ status: 200, body: 'ok' });
    // Without the CA the same server is rejected, so the success above is due to ca.pem.
    await expect(get({ host: '127.0.0.1', port, ca: [], servername: 'localhost' })).rejects.toThrow();
  });

  describe('protocol floor', () => {
    // Legacy TLS needs SHA-1 handshake signatures, which OpenSSL 3 forbids above security level 0.
    const tls11Client = (port: number): tls.ConnectionOptions => ({
      host: '127.0.0.1',
      port,
      ca,
      servername: 'localhost',
      minVersion: 'TLSv1.1',
      maxVersion: 'TLSv1.1',
      ciphers: 'DEFAULT@SECLEVEL=0',
    });

    it('refuses a TLS 1.1 client because of the protocol floor', async () => {
      const port = await listen(serverTlsOptions(material));
      const result = await handshake(tls11Client(port));
      expect(result.ok).toBe(false);
      if (result.ok) return;
      const { code = '', message } = result.error;
      expect(`${code} ${message}`).toMatch(/ERR_SSL|EPROTO|ECONNRESET/);
      // Specifically a protocol-version alert, not some other handshake failure
      // (a TLS 1.1 server *without* SECLEVEL=0 fails too, but with "internal error").
      expect(`${code} ${message}`).toMatch(/protocol version|unsupported protocol/i);
    });

    it('still refuses TLS 1.1 when only the cipher security level is relaxed', async () => {
      // Isolates minVersion as the reason: the cipher/sigalg policy would otherwise allow it.
      const port = await listen({ ...serverTlsOptions(material), ciphers: 'DEFAULT@SECLEVEL=0' });
      const result = await handshake(tls11Client(port));
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(`${result.error.code ?? ''} ${result.error.message}`).toMatch(/protocol version|unsupported protocol/i);
    });

    it('control: the same TLS 1.1 client succeeds against a server that allows TLS 1.1', async () => {
      const port = await listen({
        key: material.key,
        cert: material.cert,
        minVersion: 'TLSv1.1',
        ciphers: 'DEFAULT@SECLEVEL=0',
      });
      const result = await handshake(tls11Client(port));
      expect(result).toEqual({ ok: true, protocol: 'TLSv1.1' });
    });

    it('accepts a TLS 1.2 client', async () => {
      const port = await listen(serverTlsOptions(material));
      const capped = await handshake({ host: '127.0.0.1', port, ca, servername: 'localhost', maxVersion: 'TLSv1.2' });
      expect(capped).toEqual({ ok: true, protocol: 'TLSv1.2' });
      const modern = await handshake({ host: '127.0.0.1', port, ca, servername: 'localhost' });
      expect(modern).toEqual({ ok: true, protocol: 'TLSv1.3' });
    });
  });
});

describe('loadTlsFiles', () => {
  it('reads a certificate and key pair', async () => {
    const material = await ensureLocalTls(tempDir());
    const dir = path.dirname(material.caPath);
    const loaded = await loadTlsFiles(path.join(dir, 'server.pem'), path.join(dir, 'server-key.pem'));
    expect(loaded).toEqual({ key: material.key, cert: material.cert });
  });

  it('rejects with a message naming a missing path', async () => {
    const dir = tempDir();
    const missing = path.join(dir, 'nope', 'cert.pem');
    await expect(loadTlsFiles(missing, path.join(dir, 'key.pem'))).rejects.toThrow(missing);
  });

  it('names the key path without echoing its contents when it is not a PEM key', async () => {
    const material = await ensureLocalTls(tempDir());
    const dir = path.dirname(material.caPath);
    const bogusKey = path.join(dir, 'bogus-key.pem');
    fs.writeFileSync(bogusKey, 'SECRET-MATERIAL', { mode: 0o600 });
    const error = await loadTlsFiles(path.join(dir, 'server.pem'), bogusKey).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(bogusKey);
    expect((error as Error).message).not.toContain('SECRET-MATERIAL');
  });
});
