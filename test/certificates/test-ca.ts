import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, webcrypto, type KeyObject } from 'node:crypto';

/**
 * A certificate authority made in the test, the way a merchant's CA (or Apple's portal) would
 * sign what Coffer hands out: it signs CSRs and issues leaves for keys made elsewhere.
 */

x509.cryptoProvider.set(webcrypto as unknown as ReturnType<typeof x509.cryptoProvider.get>);

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

export interface TestCa {
  certificate: x509.X509Certificate;
  pem: string;
  /** Signs a CSR: subject and public key from the request, valid from `notBefore` for `days`. */
  signCsr(csrPem: string, options?: Validity): Promise<string>;
  /** Issues a leaf for a public key (SPKI PEM or KeyObject) with the subject `name`. */
  issue(publicKey: KeyObject | string, name: string, options?: Validity): Promise<string>;
  /** An intermediate CA under this one. */
  intermediate(name: string): Promise<TestCa>;
}

export interface Validity {
  notBefore?: Date;
  days?: number;
}

export async function createTestCa(name = 'CN=Coffer Test CA'): Promise<TestCa> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name,
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Date.now() + 365 * DAY_MS),
    signingAlgorithm: SIGN,
    keys,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  return caOf(certificate, keys.privateKey);
}

function caOf(certificate: x509.X509Certificate, signingKey: webcrypto.CryptoKey): TestCa {
  async function issueFor(publicKey: x509.PublicKey, subject: x509.Name | string, options: Validity = {}, ca = false): Promise<string> {
    const notBefore = options.notBefore ?? new Date(Date.now() - DAY_MS);
    const leaf = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject,
      issuer: certificate.subjectName,
      notBefore,
      notAfter: new Date(notBefore.getTime() + (options.days ?? 30) * DAY_MS),
      signingAlgorithm: SIGN,
      publicKey,
      signingKey,
      extensions: ca
        ? [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)]
        : [new x509.BasicConstraintsExtension(false, undefined, true), new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])],
    });
    return leaf.toString('pem');
  }
  return {
    certificate,
    pem: certificate.toString('pem'),
    async signCsr(csrPem, options) {
      const csr = new x509.Pkcs10CertificateRequest(csrPem);
      return issueFor(csr.publicKey, csr.subjectName, options);
    },
    async issue(publicKey, name, options) {
      const spki = typeof publicKey === 'string' || publicKey.type !== 'public' ? createPublicKey(publicKey) : publicKey;
      return issueFor(new x509.PublicKey(spki.export({ type: 'spki', format: 'der' })), name, options);
    },
    async intermediate(name) {
      const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
      const pem = await issueFor(await x509.PublicKey.create(keys.publicKey), name, { days: 90 }, true);
      return caOf(new x509.X509Certificate(pem), keys.privateKey);
    },
  };
}

/** A key pair made outside Coffer, with its private key in each PEM form an upload may use. */
export function outsideKey(type: 'rsa' | 'ec' = 'ec') {
  const { privateKey, publicKey } =
    type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    privateKey,
    publicKey,
    pkcs8: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    /** PKCS#1 for RSA, SEC1 for EC: the "traditional" forms OpenSSL writes. */
    traditional: privateKey.export({ type: type === 'rsa' ? 'pkcs1' : 'sec1', format: 'pem' }) as string,
    encryptedPkcs8: privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'hunter2' }) as string,
    /** Legacy OpenSSL encryption: `Proc-Type: 4,ENCRYPTED` headers inside the block. */
    encryptedTraditional: privateKey.export({
      type: type === 'rsa' ? 'pkcs1' : 'sec1',
      format: 'pem',
      cipher: 'aes-256-cbc',
      passphrase: 'hunter2',
    }) as string,
  };
}

/**
 * A private key as a leak scan looks for it: base64 runs that lie wholly inside the private
 * scalar `d` of its PKCS#8 and traditional encodings (never the public parts, which Coffer
 * stores and shows on purpose), and the first 32 raw bytes of `d`.
 */
export function keyTraces(privateKey: KeyObject | string): { texts: string[]; bytes: Buffer } {
  const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
  const d = Buffer.from(key.export({ format: 'jwk' }).d as string, 'base64url');
  const forms: Array<'pkcs8' | 'pkcs1' | 'sec1'> = ['pkcs8', key.asymmetricKeyType === 'rsa' ? 'pkcs1' : 'sec1'];
  const texts = forms.map((type) => {
    const der = key.export({ type, format: 'der' } as never) as Buffer;
    const at = der.indexOf(d.subarray(0, 32));
    if (at < 0) throw new Error(`no private scalar in the ${type} encoding`);
    const from = Math.ceil(at / 3) * 4;
    return der.toString('base64').slice(from, from + 40);
  });
  return { texts, bytes: d.subarray(0, 32) };
}

/** Whether `text` (a response, log line or file read as latin1) holds the key, however wrapped or escaped. */
export function holdsKey(text: string, traces: { texts: string[]; bytes: Buffer }): boolean {
  const flat = text.replace(/\\[rn]|\s+/g, '');
  return traces.texts.some((slice) => flat.includes(slice)) || Buffer.from(text, 'latin1').includes(traces.bytes);
}

function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes.toString('hex');
}

/** The configured library, for tests that read CSRs and certificates themselves. */
export { x509 };
