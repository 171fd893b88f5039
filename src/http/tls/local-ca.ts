// @peculiar/x509 resolves its ASN.1 schemas through decorator metadata, so the
// Reflect polyfill must be loaded before the library module is evaluated.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { X509Certificate as NodeX509Certificate, randomBytes, webcrypto } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

// Use Node's own WebCrypto instead of relying on a global `crypto` being present.
x509.cryptoProvider.set(webcrypto as unknown as ReturnType<typeof x509.cryptoProvider.get>);

/** PEM-encoded TLS key pair, plus the CA certificate path when we issued it ourselves. */
export interface TlsMaterial {
  key: string;
  cert: string;
  caPath?: string;
}

// ECDSA P-256: fast to generate (milliseconds, unlike RSA) and accepted by every modern TLS client.
const KEY_ALG: webcrypto.EcKeyGenParams & webcrypto.EcKeyImportParams = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGN_ALG: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };
const DAY_MS = 24 * 60 * 60 * 1000;
const CA_DAYS = 3650;
// 825 days is the longest leaf lifetime Apple platforms accept for server certificates.
const SERVER_DAYS = 825;
// Back-date a little so a client whose clock is slightly behind still accepts a fresh cert.
const CLOCK_SKEW_MS = 60 * 60 * 1000;

interface Issued {
  certPem: string;
  keyPem: string;
}

/**
 * Creates (first run) or reuses `<dataDir>/tls/ca.pem`, `ca-key.pem`, `server.pem`, `server-key.pem`.
 *
 * The CA is generated once and kept so that operators can trust `ca.pem` a single time; if only
 * the server certificate/key is missing (or the server certificate has expired) a new one is
 * issued from the existing CA. `created` is true when any file was written by this call.
 */
export async function ensureLocalTls(
  dataDir: string,
): Promise<TlsMaterial & { caPath: string; created: boolean }> {
  const dir = path.join(dataDir, 'tls');
  const paths = {
    ca: path.join(dir, 'ca.pem'),
    caKey: path.join(dir, 'ca-key.pem'),
    server: path.join(dir, 'server.pem'),
    serverKey: path.join(dir, 'server-key.pem'),
  };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is ignored when the directory already exists; private keys live here, so enforce it.
  await chmod(dir, 0o700);

  const existing = {
    ca: await readIfExists(paths.ca),
    caKey: await readIfExists(paths.caKey),
    server: await readIfExists(paths.server),
    serverKey: await readIfExists(paths.serverKey),
  };

  let ca: Issued;
  let created = false;
  if (existing.ca !== null && existing.caKey !== null) {
    ca = { certPem: existing.ca, keyPem: existing.caKey };
  } else {
    // Without the CA key we cannot sign anything that chains to the trusted CA, so start over.
    ca = await createCa();
    await writePrivate(paths.caKey, ca.keyPem);
    await writePrivate(paths.ca, ca.certPem);
    created = true;
  }

  if (!created && existing.server !== null && existing.serverKey !== null && !isExpired(existing.server)) {
    return { key: existing.serverKey, cert: existing.server, caPath: paths.ca, created: false };
  }

  const server = await createServerCert(ca);
  await writePrivate(paths.serverKey, server.keyPem);
  await writePrivate(paths.server, server.certPem);
  return { key: server.keyPem, cert: server.certPem, caPath: paths.ca, created: true };
}

/**
 * Reads an operator-supplied certificate and private key (PEM).
 *
 * Errors name the offending path but never include file contents, so a misconfigured key path
 * cannot leak key material into logs.
 */
export async function loadTlsFiles(certPath: string, keyPath: string): Promise<TlsMaterial> {
  const cert = await readNamed(certPath, 'certificate');
  const key = await readNamed(keyPath, 'private key');
  if (!cert.includes('-----BEGIN CERTIFICATE-----')) {
    throw new Error(`TLS certificate file ${certPath} does not contain a PEM certificate`);
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) {
    throw new Error(`TLS private key file ${keyPath} does not contain a PEM private key`);
  }
  return { key, cert };
}

async function createCa(): Promise<Issued> {
  const keys = await webcrypto.subtle.generateKey(KEY_ALG, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: 'CN=Coffer Local CA',
    notBefore: new Date(now - CLOCK_SKEW_MS),
    notAfter: new Date(now + CA_DAYS * DAY_MS),
    signingAlgorithm: SIGN_ALG,
    keys,
    extensions: [
      // pathLen 0: this CA only ever signs leaf certificates.
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportPkcs8(keys.privateKey) };
}

async function createServerCert(ca: Issued): Promise<Issued> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await webcrypto.subtle.importKey(
    'pkcs8',
    x509.PemConverter.decodeFirst(ca.keyPem),
    KEY_ALG,
    false,
    ['sign'],
  );
  const keys = await webcrypto.subtle.generateKey(KEY_ALG, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: 'CN=localhost',
    issuer: caCert.subject,
    notBefore: new Date(now - CLOCK_SKEW_MS),
    notAfter: new Date(now + SERVER_DAYS * DAY_MS),
    signingAlgorithm: SIGN_ALG,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      // ECDSA keys sign the handshake; keyEncipherment only applies to RSA key transport.
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      // Clients match SANs, not the CN; cover the name and both loopback addresses.
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: 'localhost' },
        { type: 'ip', value: '127.0.0.1' },
        { type: 'ip', value: '::1' },
      ]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportPkcs8(keys.privateKey) };
}

/** 128 random bits with the top bit cleared (DER INTEGERs are signed; serials must be positive). */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes.toString('hex');
}

async function exportPkcs8(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

function isExpired(certPem: string): boolean {
  try {
    return new Date(new NodeX509Certificate(certPem).validTo).getTime() <= Date.now();
  } catch {
    return true; // Unparseable counts as unusable: reissue rather than fail start-up.
  }
}

async function readIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function readNamed(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new Error(`Cannot read TLS ${what} file ${file} (${code})`, { cause: err });
  }
}

// Write to a temp file then rename, so a crash never leaves a half-written PEM to be "reused".
async function writeAtomic(file: string, data: string, mode: number): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, data, { mode });
  await chmod(tmp, mode); // writeFile's mode is subject to umask and ignored if tmp pre-existed.
  await rename(tmp, file);
}

/*
 * Certificates are public, but everything under the data directory is Coffer's alone, 0600
 * (docs/deployment.md, "File permissions"): one rule an operator can check with one command,
 * and the start-up warning has no exception to make. The CA certificate is read by the same
 * user who passes it to clients.
 */
const writePrivate = (file: string, pem: string) => writeAtomic(file, pem, 0o600);
