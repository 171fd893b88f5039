import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_CHAIN_LENGTH, parseCertificateChain } from '../../src/certificates/certificate-chain.js';
import { CertificateInputError } from '../../src/certificates/input-error.js';
import { pemBlocks } from '../../src/certificates/pem.js';
import { parsePrivateKey } from '../../src/certificates/private-key.js';
import { samePublicKey } from '../../src/certificates/public-key.js';
import { Secret } from '../../src/domain/secret.js';
import { createTestCa, holdsKey, keyTraces, outsideKey } from './test-ca.js';

/** The error `fn` throws: a CertificateInputError on `attribute` whose message does not quote the key. */
function inputError(fn: () => unknown, attribute: 'pem' | 'private_key'): CertificateInputError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CertificateInputError);
    expect((error as CertificateInputError).attribute).toBe(attribute);
    return error as CertificateInputError;
  }
  throw new Error('expected a CertificateInputError');
}

describe('parsePrivateKey', () => {
  for (const type of ['ec', 'rsa'] as const) {
    it(`reads a ${type} key as PKCS#8 and in its traditional form, storing PKCS#8 either way`, () => {
      const key = outsideKey(type);
      for (const pem of [key.pkcs8, key.traditional, `Bag Attributes: junk\n${key.traditional}\ntrailing words`]) {
        const parsed = parsePrivateKey(new Secret(pem));
        expect(samePublicKey(parsed.key, key.publicKey)).toBe(true);
        expect(samePublicKey(parsed.spkiDer, key.publicKey)).toBe(true);
        expect(parsed.pkcs8Pem.reveal()).toBe(key.pkcs8);
      }
    });

    it(`refuses an encrypted ${type} key (PKCS#8 and legacy Proc-Type) with a message that says so`, () => {
      const key = outsideKey(type);
      const traces = keyTraces(key.privateKey);
      for (const pem of [key.encryptedPkcs8, key.encryptedTraditional]) {
        const error = inputError(() => parsePrivateKey(new Secret(pem)), 'private_key');
        expect(error.message).toBe('Private key is encrypted: remove its passphrase and upload it again (Coffer seals it itself)');
        expect(holdsKey(error.message, traces)).toBe(false);
      }
    });
  }

  it('takes the key out of a combined file (certificate + key)', async () => {
    const key = outsideKey('ec');
    const ca = await createTestCa();
    const combined = `${await ca.issue(key.publicKey, 'CN=combined')}${key.traditional}`;
    expect(samePublicKey(parsePrivateKey(new Secret(combined)).key, key.publicKey)).toBe(true);
  });

  it('refuses garbage, a certificate, two keys, a broken body and an unsupported key type', async () => {
    const key = outsideKey('ec');
    const ca = await createTestCa();
    const broken = key.pkcs8.replace(/\n[A-Za-z0-9+/]{20}/, '\nAAAAAAAAAAAAAAAAAAAA');
    const x25519 = generateKeyPairSync('x25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const cases: Array<[string, string]> = [
      ['not a key', 'Private key must be an unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC)'],
      ['', 'Private key must be an unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC)'],
      [await ca.issue(key.publicKey, 'CN=only a cert'), 'Private key must be an unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC)'],
      [`${key.pkcs8}${outsideKey('ec').pkcs8}`, 'Private key must hold exactly one key'],
      [broken, 'Private key must be an unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC)'],
      ['-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n', 'Private key must be an unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC)'],
      [key.pkcs8.replace(/PRIVATE KEY/g, 'DSA PRIVATE KEY'), 'Private key must be an unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC)'],
      [x25519, 'Private key must be an RSA, EC or EdDSA signing key'],
    ];
    const traces = keyTraces(key.privateKey);
    for (const [pem, message] of cases) {
      const error = inputError(() => parsePrivateKey(new Secret(pem)), 'private_key');
      expect(error.message, pem.slice(0, 40)).toBe(message);
      expect(holdsKey(`${error.message}\n${error.stack}`, traces)).toBe(false);
    }
  });
});

describe('parseCertificateChain', () => {
  it('reads a leaf with its subject and public key, re-encoded without surrounding text', async () => {
    const key = outsideKey('rsa');
    const ca = await createTestCa();
    const leaf = await ca.issue(key.publicKey, 'CN=shop.example, O=Shop, OU=Payments, C=DE, ST=Berlin, L=Berlin, E=ops@shop.example');
    const chain = parseCertificateChain(`friendly name: shop\r\n${leaf.replace(/\n/g, '\r\n')}\nsomething else`);
    expect(chain.subject).toEqual({ cn: 'shop.example', o: 'Shop', ou: 'Payments', c: 'DE', st: 'Berlin', l: 'Berlin', email_address: 'ops@shop.example' });
    expect(samePublicKey(chain.spkiDer, key.publicKey)).toBe(true);
    expect(chain.pem).toBe(`${leaf.trim()}\n`);
    expect(chain.pem).not.toContain('friendly');
  });

  it('accepts a chain in order (leaf, intermediate, root) and refuses one out of order', async () => {
    const root = await createTestCa('CN=Root');
    const intermediate = await root.intermediate('CN=Intermediate');
    const key = outsideKey('ec');
    const leaf = await intermediate.issue(key.publicKey, 'CN=leaf');
    const chain = parseCertificateChain(`${leaf}${intermediate.pem}${root.pem}`);
    expect(chain.certificates.map((c) => c.subject)).toEqual(['CN=leaf', 'CN=Intermediate', 'CN=Root']);
    expect(chain.pem.match(/BEGIN CERTIFICATE/g)).toHaveLength(3);

    for (const wrong of [`${leaf}${root.pem}`, `${intermediate.pem}${leaf}`, `${leaf}${(await createTestCa('CN=Intermediate')).pem}`]) {
      const error = inputError(() => parseCertificateChain(wrong), 'pem');
      expect(error.message).toBe('Pem has a chain out of order: each certificate must be signed by the one after it');
    }
  });

  it('refuses garbage, a private key among the certificates, other blocks and overlong chains', async () => {
    const key = outsideKey('ec');
    const ca = await createTestCa();
    const leaf = await ca.issue(key.publicKey, 'CN=leaf');
    const traces = keyTraces(key.privateKey);
    const notCertificate = 'Pem must be an X.509 certificate in PEM format (-----BEGIN CERTIFICATE-----)';
    const cases: Array<[string, string]> = [
      ['garbage', notCertificate],
      ['', notCertificate],
      ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', notCertificate],
      ['-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n', notCertificate],
      [leaf.replace('-----END CERTIFICATE-----', ''), notCertificate],
      [`${leaf}${key.pkcs8}`, 'Pem must hold certificates only: send the private key as private_key'],
      [key.traditional, 'Pem must hold certificates only: send the private key as private_key'],
      [`${leaf}-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n`, 'Pem must hold CERTIFICATE blocks only'],
      [leaf.repeat(MAX_CHAIN_LENGTH + 1), `Pem holds more than ${MAX_CHAIN_LENGTH} certificates`],
    ];
    for (const [pem, message] of cases) {
      const error = inputError(() => parseCertificateChain(pem), 'pem');
      expect(error.message, pem.slice(0, 40)).toBe(message);
      expect(holdsKey(`${error.message}\n${error.stack}`, traces)).toBe(false);
    }
  });

  it('accepts an expired certificate (validity is not checked; see docs/certificates.md)', async () => {
    const key = outsideKey('ec');
    const ca = await createTestCa();
    const expired = await ca.issue(key.publicKey, 'CN=old', { notBefore: new Date('2020-01-01T00:00:00Z'), days: 30 });
    const chain = parseCertificateChain(expired);
    expect(chain.leaf.notAfter.getTime()).toBeLessThan(Date.now());
    expect(chain.subject.cn).toBe('old');
  });
});

describe('pemBlocks', () => {
  it('reads labels, legacy headers and bodies; a block with a bad body spoils the text', () => {
    const blocks = pemBlocks('x\n-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,00\n\nAAEC\n-----END RSA PRIVATE KEY-----\n');
    expect(blocks).toEqual([{ label: 'RSA PRIVATE KEY', headers: { 'proc-type': '4,ENCRYPTED', 'dek-info': 'AES-256-CBC,00' }, der: Buffer.from([0, 1, 2]) }]);
    expect(pemBlocks('-----BEGIN A-----\n@@@\n-----END A-----')).toBeNull();
    expect(pemBlocks('-----BEGIN A-----\nAAAA\n-----END B-----')).toEqual([]);
  });
});

describe('the key leak scan used by these suites (control)', () => {
  it('sees a key in every form it could leak in, and not in the public key', () => {
    for (const type of ['ec', 'rsa'] as const) {
      const key = outsideKey(type);
      const traces = keyTraces(key.privateKey);
      expect(holdsKey(key.pkcs8, traces)).toBe(true);
      expect(holdsKey(key.traditional, traces)).toBe(true);
      expect(holdsKey(JSON.stringify({ msg: key.traditional }), traces)).toBe(true);
      expect(holdsKey(key.pkcs8.replace(/\n/g, '\r\n'), traces)).toBe(true);
      expect(holdsKey(key.privateKey.export({ type: 'pkcs8', format: 'der' }).toString('latin1'), traces)).toBe(true);
      expect(holdsKey(key.publicKey.export({ type: 'spki', format: 'pem' }) as string, traces)).toBe(false);
      expect(holdsKey(key.publicKey.export({ type: 'spki', format: 'der' }).toString('latin1'), traces)).toBe(false);
    }
  });
});
