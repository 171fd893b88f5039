import { execFile } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { generateCertificateRequest } from '../../src/certificates/certificate-request.js';
import { parsePrivateKey } from '../../src/certificates/private-key.js';
import { publicKeyHash, publicKeyPem, samePublicKey } from '../../src/certificates/public-key.js';
import { subjectName, subjectOf, type CertificateSubject } from '../../src/certificates/subject.js';
import { x509 } from '../../src/certificates/x509.js';

const run = promisify(execFile);

const SUBJECT: CertificateSubject = {
  cn: 'MyApp ApplePay Production Certificate',
  o: 'YourOrg',
  ou: 'OrgUnit',
  c: 'US',
  st: 'NC',
  l: 'Durham',
  email_address: 'security@yourorg.com',
};

/** The string type (ASN.1 tag) each attribute of a DER Name was written with. */
function stringTags(name: x509.Name): Record<string, number> {
  const der = Buffer.from(name.toArrayBuffer());
  const tags: Record<string, number> = {};
  // AttributeTypeAndValue: SEQUENCE { OID, value }; find each OID and read the tag after it.
  for (const [label, oid] of [['c', '550406'], ['o', '55040a'], ['cn', '550403'], ['email', '2a864886f70d010901']] as const) {
    const at = der.indexOf(Buffer.from(`06${(oid.length / 2).toString(16).padStart(2, '0')}${oid}`, 'hex'));
    tags[label] = der[at + 2 + oid.length / 2] as number;
  }
  return tags;
}

describe('generateCertificateRequest', () => {
  for (const algorithm of ['ec-prime256v1', 'rsa-2048'] as const) {
    it(`makes a ${algorithm} key and a CSR with the subject, signed by that key`, async () => {
      const generated = await generateCertificateRequest(algorithm, SUBJECT);
      const csr = new x509.Pkcs10CertificateRequest(generated.csrPem);
      expect(generated.csrPem).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE REQUEST-----\n?$/);
      expect(await csr.verify()).toBe(true);
      expect(subjectOf(csr.subjectName)).toEqual(SUBJECT);
      // The CSR's key is the generated key pair's public half, and the private half opens.
      expect(samePublicKey(Buffer.from(csr.publicKey.rawData), generated.spkiDer)).toBe(true);
      const opened = parsePrivateKey(generated.privateKeyPem);
      expect(samePublicKey(opened.key, generated.spkiDer)).toBe(true);
      const key = createPublicKey({ key: generated.spkiDer, format: 'der', type: 'spki' });
      if (algorithm === 'rsa-2048') {
        expect(key.asymmetricKeyType).toBe('rsa');
        expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
        expect(key.asymmetricKeyDetails?.publicExponent).toBe(65537n);
        expect(csr.signatureAlgorithm).toMatchObject({ name: 'RSASSA-PKCS1-v1_5', hash: { name: 'SHA-256' } });
      } else {
        expect(key.asymmetricKeyType).toBe('ec');
        expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
        expect(csr.signatureAlgorithm).toMatchObject({ name: 'ECDSA', hash: { name: 'SHA-256' } });
      }
    });
  }

  it('makes a request OpenSSL verifies and reads with the same subject', async () => {
    const generated = await generateCertificateRequest('ec-prime256v1', SUBJECT);
    const child = run('openssl', ['req', '-verify', '-noout', '-subject', '-nameopt', 'RFC2253']);
    child.child.stdin?.end(generated.csrPem);
    const { stdout, stderr } = await child;
    expect(`${stdout}${stderr}`).toMatch(/verify OK/i);
    expect(stdout).toContain('subject=emailAddress=security@yourorg.com,CN=MyApp ApplePay Production Certificate,OU=OrgUnit,O=YourOrg,L=Durham,ST=NC,C=US');
  });

  it('gives a fresh key every time', async () => {
    const a = await generateCertificateRequest('ec-prime256v1', SUBJECT);
    const b = await generateCertificateRequest('ec-prime256v1', SUBJECT);
    expect(publicKeyHash(a.spkiDer)).not.toBe(publicKeyHash(b.spkiDer));
  });
});

describe('subjectName', () => {
  it('writes the country as PrintableString, the email as IA5String, other text as UTF8String when needed', () => {
    const name = subjectName({ ...SUBJECT, cn: 'Café Zürich', o: 'Plain Org' });
    const tags = stringTags(name);
    expect(tags).toEqual({ c: 0x13, o: 0x13, cn: 0x0c, email: 0x16 });
    expect(subjectOf(name)).toMatchObject({ cn: 'Café Zürich', o: 'Plain Org' });
  });

  it('takes values literally: no hex (#…), quoting or separators are interpreted', () => {
    const literal = { cn: '#4142', o: '"quoted", with comma', ou: 'a+b=c', c: null, st: null, l: null, email_address: null };
    expect(subjectOf(subjectName(literal))).toEqual(literal);
  });

  it('omits absent fields and joins a repeated attribute', () => {
    const name = new x509.Name([{ '2.5.4.11': [{ utf8String: 'One' }] }, { '2.5.4.11': [{ utf8String: 'Two' }] }, { '2.5.4.3': [{ utf8String: 'x' }] }]);
    expect(subjectOf(name)).toEqual({ cn: 'x', o: null, ou: 'One, Two', c: null, st: null, l: null, email_address: null });
  });
});

describe('public key helpers', () => {
  it('hashes the DER SubjectPublicKeyInfo to 44 base64 characters and writes it as PUBLIC KEY PEM', async () => {
    const generated = await generateCertificateRequest('ec-prime256v1', SUBJECT);
    const hash = publicKeyHash(generated.spkiDer);
    expect(hash).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(hash).toBe(createHash('sha256').update(generated.spkiDer).digest('base64'));
    const pem = publicKeyPem(generated.spkiDer);
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n([A-Za-z0-9+/=]{1,64}\n)+-----END PUBLIC KEY-----\n$/);
    expect(createPublicKey(pem).export({ type: 'spki', format: 'der' }).equals(generated.spkiDer)).toBe(true);
  });

  it('compares keys as keys: an EC point compressed or not is the same key', async () => {
    const generated = await generateCertificateRequest('ec-prime256v1', SUBJECT);
    const jwk = createPublicKey({ key: generated.spkiDer, format: 'der', type: 'spki' }).export({ format: 'jwk' });
    // Compressed SEC1 point inside a hand-built SPKI for the same key.
    const y = Buffer.from(jwk.y as string, 'base64url');
    const point = Buffer.concat([Buffer.from([(y.at(-1) as number) & 1 ? 3 : 2]), Buffer.from(jwk.x as string, 'base64url')]);
    const prefix = Buffer.from('3039301306072a8648ce3d020106082a8648ce3d030107032200', 'hex');
    const compressed = Buffer.concat([prefix, point]);
    expect(compressed.equals(generated.spkiDer)).toBe(false);
    expect(samePublicKey(compressed, generated.spkiDer)).toBe(true);
    const other = await generateCertificateRequest('ec-prime256v1', SUBJECT);
    expect(samePublicKey(other.spkiDer, generated.spkiDer)).toBe(false);
    expect(samePublicKey(Buffer.from('not a key'), generated.spkiDer)).toBe(false);
  });
});
