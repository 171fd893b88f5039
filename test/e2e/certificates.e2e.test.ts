import { createHash, createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { asList, childOrder, escapeXml, xmlErrorEntries, xmlText } from '../helpers/xml.js';
import { createTestCa, outsideKey, x509, type TestCa } from '../certificates/test-ca.js';

/*
 * Certificates over real HTTPS, JSON and XML, on every store: generate a key pair and CSR
 * (checked here with @peculiar/x509), have a CA made in the test sign it, attach it; upload a
 * certificate with its key; every refusal with its status, key and message; lists; isolation.
 */

/** wire-reference §3.5, in order. */
const FIELDS = [
  'token', 'level', 'algorithm', 'cn', 'o', 'ou', 'c', 'st', 'l', 'email_address',
  'public_key', 'public_key_hash', 'google_pay_public_key', 'csr', 'pem', 'created_at', 'updated_at',
];
const SUBJECT = { cn: 'MyApp ApplePay Production Certificate', o: 'YourOrg', ou: 'OrgUnit', c: 'US', st: 'NC', l: 'Durham', email_address: 'security@yourorg.com' };
const MISMATCH = { key: 'errors.certificate_key_mismatch', message: 'The private key does not match the certificate.' };
const NOT_FOUND = { key: 'errors.certificate_not_found', message: 'Unable to find the specified certificate.' };
const NOT_A_CERTIFICATE = { key: 'errors.invalid', attribute: 'pem', message: 'Pem must be an X.509 certificate in PEM format (-----BEGIN CERTIFICATE-----)' };

/** The certificate of a JSON response, or the XML one read into the same shape (nil → null). */
function certificateOf(res: ApiResponse): Record<string, string | null> {
  if (res.headers['content-type']?.startsWith('application/json')) return res.json().certificate;
  const node = res.xml().certificate;
  return Object.fromEntries(FIELDS.map((field) => [field, xmlText(node[field])]));
}

/** Errors of a JSON or XML error response, in the JSON shape. */
function errorsOf(res: ApiResponse): unknown[] {
  return res.headers['content-type']?.startsWith('application/json') ? res.json().errors : xmlErrorEntries(res.xml().errors);
}

/** The CSR verifies under its own key, names `subject`, and carries the certificate's public key. */
async function expectCsr(certificate: Record<string, string | null>, subject: Record<string, string>): Promise<void> {
  const csr = new x509.Pkcs10CertificateRequest(certificate.csr as string);
  expect(await csr.verify()).toBe(true);
  const fields = { cn: 'CN', o: 'O', ou: 'OU', c: 'C', st: 'ST', l: 'L', email_address: 'E' } as const;
  for (const [field, name] of Object.entries(fields)) {
    expect(csr.subjectName.getField(name), field).toEqual(subject[field] === undefined ? [] : [subject[field]]);
  }
  const spki = Buffer.from(csr.publicKey.rawData);
  expect(createPublicKey(certificate.public_key as string).equals(createPublicKey({ key: spki, format: 'der', type: 'spki' }))).toBe(true);
  expect(certificate.public_key_hash).toBe(createHash('sha256').update(spki).digest('base64'));
}

describe.each(storeKinds)('certificates over HTTPS (%s)', (store) => {
  let server: TestServer;
  let ca: TestCa;
  let other: ApiClient;

  async function generate(body: Record<string, unknown>): Promise<Record<string, string | null>> {
    const res = await server.client.sendJson('POST', '/v1/certificates/generate.json', { certificate: body });
    expect(res.status, res.text).toBe(201);
    return res.json().certificate;
  }

  beforeAll(async () => {
    server = await startServer({ store });
    ca = await createTestCa();
    const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, 'other', false);
    other = server.client.withAuth({ user: environment.key, password: server.init.access_secret });
  });
  afterAll(() => server.close());

  it('generates an ec-prime256v1 key and CSR in JSON (201): csr filled, pem null, fields in wire order', async () => {
    const res = await server.client.sendJson('POST', '/v1/certificates/generate.json', { certificate: { algorithm: 'ec-prime256v1', ...SUBJECT } });
    expect(res.status).toBe(201);
    const certificate = res.json().certificate;
    expect(Object.keys(certificate)).toEqual(FIELDS);
    expect(certificate).toMatchObject({ level: 'environment', algorithm: 'ec-prime256v1', ...SUBJECT, pem: null });
    expect(certificate.token).toMatch(/^[A-Za-z0-9]{29}$/);
    expect(certificate.public_key).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+-----END PUBLIC KEY-----\n$/);
    expect(certificate.public_key_hash).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(certificate.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(createPublicKey(certificate.public_key).asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    // Google Pay's console form: the uncompressed point, the last 65 bytes of the SPKI DER.
    const spkiDer = createPublicKey(certificate.public_key).export({ type: 'spki', format: 'der' });
    expect(certificate.google_pay_public_key).toBe(spkiDer.subarray(-65).toString('base64'));
    expect(Buffer.from(certificate.google_pay_public_key, 'base64')[0]).toBe(0x04);
    await expectCsr(certificate, SUBJECT);
  });

  it('generates an rsa-2048 key and CSR in XML (201) with nil fields and the same order', async () => {
    const res = await server.client.sendXml('POST', '/v1/certificates/generate.xml', '<certificate><algorithm>rsa-2048</algorithm><cn>Only A Name</cn><o/></certificate>');
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(childOrder(res.text, 'certificate')).toEqual(FIELDS);
    expect(res.text).toContain('<pem nil="true"/>');
    expect(res.text).toContain('<o nil="true"/>');
    expect(res.text).toMatch(/<created_at type="dateTime">\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ<\/created_at>/);
    const certificate = certificateOf(res);
    expect(certificate).toMatchObject({ algorithm: 'rsa-2048', level: 'environment', cn: 'Only A Name', o: null, email_address: null, pem: null, google_pay_public_key: null });
    expect(createPublicKey(certificate.public_key as string).asymmetricKeyDetails?.modulusLength).toBe(2048);
    await expectCsr(certificate, { cn: 'Only A Name' });
  });

  it('defaults to ec-prime256v1 and takes level organization', async () => {
    const certificate = await generate({ cn: 'defaults', level: 'organization' });
    expect(certificate).toMatchObject({ algorithm: 'ec-prime256v1', level: 'organization' });
  });

  it('attaches the CA-signed certificate with PUT: pem stored, key and hash unchanged; a chain may follow', async () => {
    const generated = await generate({ algorithm: 'rsa-2048', ...SUBJECT });
    const signed = await ca.signCsr(generated.csr as string);
    const res = await server.client.sendJson('PUT', `/v1/certificates/${generated.token}.json`, { certificate: { pem: signed } });
    expect(res.status, res.text).toBe(200);
    const certificate = res.json().certificate;
    // Stored re-encoded from its DER, as a .pem file is written: one final newline.
    expect(certificate.pem).toBe(`${signed.trimEnd()}\n`);
    expect(certificate).toMatchObject({
      token: generated.token, csr: generated.csr, public_key: generated.public_key, public_key_hash: generated.public_key_hash, ...SUBJECT,
    });
    expect(new x509.X509Certificate(certificate.pem).subject).toContain('CN=MyApp ApplePay Production Certificate');

    const chained = await server.client.sendXml('PUT', `/v1/certificates/${generated.token}.xml`, `<certificate><pem>${escapeXml(signed + ca.pem)}</pem></certificate>`);
    expect(chained.status, chained.text).toBe(200);
    const shown = await server.client.get(`/v1/certificates/${generated.token}.json`);
    expect(shown.status).toBe(200);
    expect(shown.json().certificate.pem).toBe(`${signed.trimEnd()}\n${ca.pem.trimEnd()}\n`);
    expect(shown.json().certificate.public_key_hash).toBe(generated.public_key_hash);
  });

  it('refuses a PUT whose certificate is for another key (422 key mismatch) and leaves the stored pem', async () => {
    const generated = await generate({ cn: 'mine' });
    const stranger = await ca.issue(outsideKey('ec').publicKey, 'CN=mine');
    const json = await server.client.sendJson('PUT', `/v1/certificates/${generated.token}.json`, { certificate: { pem: stranger } });
    expect(json.status).toBe(422);
    expect(json.json()).toEqual({ errors: [MISMATCH] });
    const xml = await server.client.sendXml('PUT', `/v1/certificates/${generated.token}.xml`, `<certificate><pem>${stranger}</pem></certificate>`);
    expect(xml.status).toBe(422);
    expect(errorsOf(xml)).toEqual([MISMATCH]);
    expect((await server.client.get(`/v1/certificates/${generated.token}.json`)).json().certificate.pem).toBeNull();
  });

  it('refuses a PUT with a garbage, blank or key-bearing pem (422) and an unknown token (404)', async () => {
    const generated = await generate({ cn: 'target' });
    const path = `/v1/certificates/${generated.token}`;
    const garbage = await server.client.sendJson('PUT', `${path}.json`, { certificate: { pem: 'hello' } });
    expect([garbage.status, errorsOf(garbage)]).toEqual([422, [NOT_A_CERTIFICATE]]);
    const blank = await server.client.sendXml('PUT', `${path}.xml`, '<certificate><pem/></certificate>');
    expect([blank.status, errorsOf(blank)]).toEqual([422, [{ key: 'errors.blank', attribute: 'pem', message: "Pem can't be blank" }]]);
    const empty = await server.client.request('PUT', `${path}.json`);
    expect([empty.status, errorsOf(empty)]).toEqual([422, [{ key: 'errors.blank', attribute: 'pem', message: "Pem can't be blank" }]]);
    const key = outsideKey('ec');
    const withKey = await server.client.sendJson('PUT', `${path}.json`, { certificate: { pem: (await ca.issue(key.publicKey, 'CN=x')) + key.pkcs8 } });
    expect(errorsOf(withKey)).toEqual([{ key: 'errors.invalid', attribute: 'pem', message: 'Pem must hold certificates only: send the private key as private_key' }]);
    const missing = await server.client.sendJson('PUT', '/v1/certificates/nope.json', { certificate: { pem: 'x' } });
    expect([missing.status, missing.json()]).toEqual([404, { errors: [NOT_FOUND] }]);
  });

  it('uploads a certificate with its PKCS#1 RSA key in JSON (201): subject read from the certificate', async () => {
    const key = outsideKey('rsa');
    const pem = await ca.issue(key.publicKey, 'CN=shop.example, O=Shop GmbH, OU=Payments, C=DE, ST=Berlin, L=Berlin, E=ops@shop.example');
    const res = await server.client.sendJson('POST', '/v1/certificates.json', { certificate: { pem, private_key: key.traditional, level: 'organization', cn: 'ignored' } });
    expect(res.status, res.text).toBe(201);
    const certificate = res.json().certificate;
    expect(Object.keys(certificate)).toEqual(FIELDS);
    expect(certificate).toMatchObject({
      level: 'organization', algorithm: null, cn: 'shop.example', o: 'Shop GmbH', ou: 'Payments', c: 'DE', st: 'Berlin', l: 'Berlin',
      email_address: 'ops@shop.example', csr: null, pem: `${pem.trimEnd()}\n`,
    });
    const spki = key.publicKey.export({ type: 'spki', format: 'der' });
    expect(certificate.public_key_hash).toBe(createHash('sha256').update(spki).digest('base64'));
    expect(certificate.public_key).toBe(key.publicKey.export({ type: 'spki', format: 'pem' }));
  });

  it('uploads in XML with a SEC1 EC key and a chain, level environment by default', async () => {
    const intermediate = await ca.intermediate('CN=Issuing CA');
    const key = outsideKey('ec');
    const leaf = await intermediate.issue(key.publicKey, 'CN=xml.example');
    const res = await server.client.sendXml(
      'POST',
      '/v1/certificates.xml',
      `<certificate><pem>${leaf}${intermediate.pem}</pem><private_key>${key.traditional}</private_key></certificate>`,
    );
    expect(res.status, res.text).toBe(201);
    const certificate = certificateOf(res);
    expect(certificate).toMatchObject({ level: 'environment', algorithm: null, cn: 'xml.example', o: null, csr: null });
    expect(certificate.pem?.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(res.text).toContain('<csr nil="true"/>');
  });

  it('refuses uploads: mismatched key, garbage pem, unusable or encrypted key, blanks; nothing is stored', async () => {
    const before = (await server.core.store.db.selectFrom('certificates').select('token').execute()).length;
    const key = outsideKey('ec');
    const pem = await ca.issue(key.publicKey, 'CN=upload');
    const cases: Array<[Record<string, unknown>, number, unknown[]]> = [
      [{ pem, private_key: outsideKey('ec').pkcs8 }, 422, [MISMATCH]],
      [{ pem, private_key: outsideKey('rsa').pkcs8 }, 422, [MISMATCH]],
      [{ pem: 'garbage', private_key: key.pkcs8 }, 422, [NOT_A_CERTIFICATE]],
      [{ pem: 'garbage', private_key: 'garbage' }, 422, [
        NOT_A_CERTIFICATE,
        { key: 'errors.invalid', attribute: 'private_key', message: 'Private key must be an unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC)' },
      ]],
      [{ pem, private_key: key.encryptedPkcs8 }, 422, [
        { key: 'errors.invalid', attribute: 'private_key', message: 'Private key is encrypted: remove its passphrase and upload it again (Coffer seals it itself)' },
      ]],
      [{ pem, private_key: key.encryptedTraditional }, 422, [
        { key: 'errors.invalid', attribute: 'private_key', message: 'Private key is encrypted: remove its passphrase and upload it again (Coffer seals it itself)' },
      ]],
      [{}, 422, [
        { key: 'errors.blank', attribute: 'pem', message: "Pem can't be blank" },
        { key: 'errors.blank', attribute: 'private_key', message: "Private key can't be blank" },
      ]],
      [{ pem, private_key: key.pkcs8, level: 'galaxy' }, 422, [{ key: 'errors.inclusion', attribute: 'level', message: 'Level is not included in the list' }]],
    ];
    for (const [body, status, errors] of cases) {
      const json = await server.client.sendJson('POST', '/v1/certificates.json', { certificate: body });
      expect([json.status, errorsOf(json)], JSON.stringify(errors)).toEqual([status, errors]);
      const fields = Object.entries(body).map(([name, value]) => `<${name}>${escapeXml(String(value))}</${name}>`).join('');
      const xml = await server.client.sendXml('POST', '/v1/certificates.xml', `<certificate>${fields}</certificate>`);
      expect([xml.status, errorsOf(xml)], JSON.stringify(errors)).toEqual([status, errors]);
    }
    expect((await server.core.store.db.selectFrom('certificates').select('token').execute()).length).toBe(before);
  });

  it('refuses generate without cn, with an unknown algorithm, level or a bad email (422)', async () => {
    const cases: Array<[Record<string, unknown>, unknown[]]> = [
      [{ o: 'No Name' }, [{ key: 'errors.blank', attribute: 'cn', message: "Cn can't be blank" }]],
      [{ cn: '   ' }, [{ key: 'errors.blank', attribute: 'cn', message: "Cn can't be blank" }]],
      [{ cn: '', o: null }, [{ key: 'errors.blank', attribute: 'cn', message: "Cn can't be blank" }]],
      [{ cn: 'x', algorithm: 'rsa-4096' }, [{ key: 'errors.inclusion', attribute: 'algorithm', message: 'Algorithm is not included in the list' }]],
      [{ cn: 'x', algorithm: 'dsa' }, [{ key: 'errors.inclusion', attribute: 'algorithm', message: 'Algorithm is not included in the list' }]],
      [{ cn: 'x', level: 'global' }, [{ key: 'errors.inclusion', attribute: 'level', message: 'Level is not included in the list' }]],
      [{ cn: 'x', email_address: 'not an email' }, [{ key: 'errors.invalid', attribute: 'email_address', message: 'Email address is invalid' }]],
      [{ cn: 'x'.repeat(65) }, [{ key: 'errors.too_long', attribute: 'cn', message: 'Cn is too long (maximum is 64 characters)' }]],
    ];
    for (const [body, errors] of cases) {
      const json = await server.client.sendJson('POST', '/v1/certificates/generate.json', { certificate: body });
      expect([json.status, errorsOf(json)], JSON.stringify(body)).toEqual([422, errors]);
      const fields = Object.entries(body).map(([name, value]) => `<${name}>${escapeXml(String(value))}</${name}>`).join('');
      const xml = await server.client.sendXml('POST', '/v1/certificates/generate.xml', `<certificate>${fields}</certificate>`);
      expect([xml.status, errorsOf(xml)], JSON.stringify(body)).toEqual([422, errors]);
    }
    const root = await server.client.sendJson('POST', '/v1/certificates/generate.json', { gateway: { cn: 'x' } });
    expect([root.status, errorsOf(root)]).toEqual([422, [{ key: 'errors.malformed_request', message: 'The request body\'s root must be "certificate".' }]]);
  });

  it('lists certificates oldest first, pages with since_token, count and order, in JSON and XML', async () => {
    const created: string[] = [];
    for (let i = 0; i < 3; i += 1) created.push((await generate({ cn: `page-${i}` })).token as string);
    const all = await server.client.get('/v1/certificates.json?count=100');
    expect(all.status).toBe(200);
    const tokens = all.json().certificates.map((c: { token: string }) => c.token);
    expect(tokens.slice(-3)).toEqual(created);
    expect(Object.keys(all.json().certificates[0])).toEqual(FIELDS);

    const after = await server.client.get(`/v1/certificates.json?since_token=${created[0]}`);
    expect(after.json().certificates.map((c: { token: string }) => c.token)).toEqual(created.slice(1));
    const desc = await server.client.get('/v1/certificates.json?order=desc&count=2');
    expect(desc.json().certificates.map((c: { token: string }) => c.token)).toEqual([created[2], created[1]]);
    const xml = await server.client.get(`/v1/certificates.xml?since_token=${created[1]}`);
    expect(xml.status).toBe(200);
    expect(asList(xml.xml().certificates.certificate).map((c: { token: string }) => c.token)).toEqual([created[2]]);
    const firstPage = await server.client.get('/v1/certificates.json');
    expect(firstPage.json().certificates.length).toBe(Math.min(20, tokens.length));

    const bad = await server.client.get('/v1/certificates.json?since_token=nope');
    expect([bad.status, errorsOf(bad)]).toEqual([422, [{ key: 'errors.invalid', attribute: 'since_token', message: 'Since token is invalid' }]]);
    const order = await server.client.get('/v1/certificates.xml?order=sideways');
    expect([order.status, errorsOf(order)]).toEqual([422, [{ key: 'errors.inclusion', attribute: 'order', message: 'Order is not included in the list' }]]);
  });

  it("answers 404 for another environment's certificate on show and PUT, and never lists it", async () => {
    const mine = await generate({ cn: 'isolated' });
    const signed = await ca.signCsr(mine.csr as string);
    for (const format of ['json', 'xml'] as const) {
      const shown = await other.get(`/v1/certificates/${mine.token}.${format}`);
      expect([shown.status, errorsOf(shown)]).toEqual([404, [NOT_FOUND]]);
      const put = await other.sendJson('PUT', `/v1/certificates/${mine.token}.json`, { certificate: { pem: signed } });
      expect([put.status, errorsOf(put)]).toEqual([404, [NOT_FOUND]]);
    }
    const listed = await other.get('/v1/certificates.json?count=100');
    expect(listed.json().certificates.map((c: { token: string }) => c.token)).not.toContain(mine.token);
    const since = await other.get(`/v1/certificates.json?since_token=${mine.token}`);
    expect(since.status).toBe(422);
    expect((await server.client.get(`/v1/certificates/${mine.token}.json`)).json().certificate.pem).toBeNull();
    const unauthenticated = await server.client.get('/v1/certificates.json', { auth: null });
    expect(unauthenticated.status).toBe(401);
  });
});

describe('certificate routes count against their API.md §7 limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    const one = { limit: 1, window_seconds: 60 };
    server = await startServer({
      env: { COFFER_RATE_LIMITS: JSON.stringify({ '*': null, certificates_list: one, certificates_create: one, certificates_generate: one, certificates_update: one }) },
    });
  });
  afterAll(() => server.close());

  it('answers 429 errors.rate_limited on the second call of each', async () => {
    // Made through the service, so that no API call has used a budget yet.
    const environment = await server.core.tenancy.requireEnvironment(server.init.environment_key);
    const { token } = await server.core.certificates.generate(environment, { algorithm: 'ec-prime256v1', subject: { cn: 'limited', o: null, ou: null, c: null, st: null, l: null, email_address: null }, level: 'environment' });
    const calls: Array<() => Promise<ApiResponse>> = [
      () => server.client.get('/v1/certificates.json'),
      () => server.client.sendJson('POST', '/v1/certificates.json', { certificate: {} }),
      () => server.client.sendJson('POST', '/v1/certificates/generate.json', { certificate: { cn: 'limited' } }),
      () => server.client.sendJson('PUT', `/v1/certificates/${token}.json`, { certificate: {} }),
    ];
    for (const call of calls) {
      expect((await call()).status).not.toBe(429);
      const limited = await call();
      expect(limited.status).toBe(429);
      expect(limited.json().errors[0].key).toBe('errors.rate_limited');
      expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    }
    // Show has no limit of its own.
    for (let i = 0; i < 3; i += 1) expect((await server.client.get(`/v1/certificates/${token}.json`)).status).toBe(200);
  });
});
