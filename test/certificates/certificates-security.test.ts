import { execFile } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { certificatePrivateKeyAad } from '../../src/services/certificate.service.js';
import { repositories } from '../../src/store/repositories.js';
import type { ApiResponse } from '../helpers/client.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { createTestCa, holdsKey, keyTraces, outsideKey, type TestCa } from './test-ca.js';
import type { Environment } from '../../src/domain/environment.js';

/*
 * Private keys of certificates: sealed at rest, never in a response, a log line or an error,
 * on every path (uploads that succeed or fail, generated keys, idempotent replays). What comes
 * out of clientCertificate is the key of the certificate, shown by a real mutual-TLS handshake.
 */

const run = promisify(execFile);

describe.each(storeKinds)('certificate private keys (%s)', (store) => {
  let server: TestServer;
  let ca: TestCa;
  let environment: Environment;
  /** Every response body and header block of the suite. */
  const seen: string[] = [];
  /** Every private key that went through the API, as the scan looks for it. */
  const keys: Array<{ name: string; traces: ReturnType<typeof keyTraces> }> = [];
  const tokens: Record<string, string> = {};

  function remember(res: ApiResponse): ApiResponse {
    seen.push(`${JSON.stringify(res.headers)}\n${res.text}`);
    return res;
  }

  async function upload(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<ApiResponse> {
    return remember(await server.client.sendJson('POST', '/v1/certificates.json', { certificate: body }, { headers }));
  }

  beforeAll(async () => {
    server = await startServer({ store });
    ca = await createTestCa('CN=Security Root');
    environment = await server.core.tenancy.requireEnvironment(server.init.environment_key);

    // Uploads that succeed: PKCS#8 EC, PKCS#1 RSA (with an Idempotency-Key, replayed), SEC1 EC in XML with a chain.
    const ec = outsideKey('ec');
    keys.push({ name: 'uploaded ec', traces: keyTraces(ec.privateKey) });
    const ecUpload = await upload({ pem: await ca.issue(ec.publicKey, 'CN=uploaded ec'), private_key: ec.pkcs8 });
    expect(ecUpload.status, ecUpload.text).toBe(201);
    tokens.uploadedEc = ecUpload.json().certificate.token;

    const rsa = outsideKey('rsa');
    keys.push({ name: 'uploaded rsa', traces: keyTraces(rsa.privateKey) });
    const rsaBody = { pem: await ca.issue(rsa.publicKey, 'CN=uploaded rsa'), private_key: rsa.traditional };
    const first = await upload(rsaBody, { 'idempotency-key': 'cert-upload-1' });
    const replay = await upload(rsaBody, { 'idempotency-key': 'cert-upload-1' });
    expect([first.status, replay.status, replay.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);

    const intermediate = await ca.intermediate('CN=Security Issuing CA');
    const chained = outsideKey('ec');
    keys.push({ name: 'uploaded chained', traces: keyTraces(chained.privateKey) });
    const leaf = await intermediate.issue(chained.publicKey, 'CN=chained client');
    const xml = remember(
      await server.client.sendXml('POST', '/v1/certificates.xml', `<certificate><pem>${leaf}${intermediate.pem}</pem><private_key>${chained.traditional}</private_key></certificate>`),
    );
    expect(xml.status, xml.text).toBe(201);
    tokens.chained = xml.xml().certificate.token;

    // Uploads that fail, each with a key that must not come back in the error.
    const mismatched = outsideKey('ec');
    keys.push({ name: 'mismatched', traces: keyTraces(mismatched.privateKey) });
    expect((await upload({ pem: await ca.issue(outsideKey('ec').publicKey, 'CN=x'), private_key: mismatched.pkcs8 })).status).toBe(422);
    const inPem = outsideKey('rsa');
    keys.push({ name: 'key sent as pem', traces: keyTraces(inPem.privateKey) });
    expect((await upload({ pem: inPem.traditional, private_key: inPem.traditional })).status).toBe(422);
    const withGarbage = outsideKey('ec');
    keys.push({ name: 'key beside a garbage pem', traces: keyTraces(withGarbage.privateKey) });
    expect((await upload({ pem: 'garbage', private_key: withGarbage.traditional })).status).toBe(422);
    const tooLong = outsideKey('ec');
    keys.push({ name: 'key in an overlong field', traces: keyTraces(tooLong.privateKey) });
    expect((await upload({ pem: 'x', private_key: tooLong.pkcs8.repeat(40) })).status).toBe(422);

    // Generated keys: signed and attached, so clientCertificate hands them out for the scan.
    for (const algorithm of ['ec-prime256v1', 'rsa-2048']) {
      const generated = remember(await server.client.sendJson('POST', '/v1/certificates/generate.json', { certificate: { algorithm, cn: `generated ${algorithm}` } }));
      expect(generated.status).toBe(201);
      const { token, csr } = generated.json().certificate;
      const put = remember(await server.client.sendJson('PUT', `/v1/certificates/${token}.json`, { certificate: { pem: await ca.signCsr(csr) } }));
      expect(put.status, put.text).toBe(200);
      tokens[algorithm] = token;
      keys.push({ name: `generated ${algorithm}`, traces: keyTraces((await server.core.certificates.clientCertificate(environment, token)).key) });
    }
    for (const token of Object.values(tokens)) remember(await server.client.get(`/v1/certificates/${token}.xml`));
    remember(await server.client.get('/v1/certificates.json?count=100'));
  });
  afterAll(() => server.close());

  it('never returns a private key in a response, nor writes one to a log line', () => {
    expect(seen.length).toBeGreaterThan(12);
    expect(server.logs.length).toBeGreaterThan(12);
    for (const { name, traces } of keys) {
      expect(seen.filter((text) => holdsKey(text, traces)), name).toEqual([]);
      expect(server.logs.filter((line) => holdsKey(line, traces)), name).toEqual([]);
    }
  });

  it('stores each private key sealed with the data key of its environment, bound to its token', async () => {
    const rows = await server.core.store.db.selectFrom('certificates').selectAll().execute();
    expect(rows.length).toBe(Object.keys(tokens).length + 1);
    for (const row of rows) {
      expect(row.sealed_private_key).toMatch(new RegExp(`^c1\\.d-${environment.key}-1\\.[A-Za-z0-9+/]+=*$`));
      for (const { name, traces } of keys) expect(holdsKey(JSON.stringify(row), traces), `${name} in ${row.token}`).toBe(false);
    }
    // Bound to its row: another certificate's blob does not open under this token.
    const [a, b] = rows as [(typeof rows)[0], (typeof rows)[0]];
    await server.core.store.db.updateTable('certificates').set({ sealed_private_key: b.sealed_private_key }).where('token', '=', a.token).execute();
    await expect(server.core.certificates.clientCertificate(environment, a.token)).rejects.toThrow();
    await server.core.store.db.updateTable('certificates').set({ sealed_private_key: a.sealed_private_key }).where('token', '=', a.token).execute();
  });

  if (store === 'sqlite') {
    it('the SQLite file and its WAL hold no private key in clear (control: a key written in clear is found)', async () => {
      const file = (server.core.config.store as { path: string }).path;
      const read = () => [file, `${file}-wal`].filter((part) => fs.existsSync(part)).map((part) => fs.readFileSync(part).toString('latin1')).join('\n');
      const bytes = read();
      expect(bytes).toContain(`c1.d-${environment.key}-1.`);
      for (const { name, traces } of keys) expect(holdsKey(bytes, traces), name).toBe(false);

      const control = outsideKey('ec');
      await server.core.tenancy.createOrganization(`control ${control.pkcs8}`);
      expect(holdsKey(read(), keyTraces(control.privateKey))).toBe(true);
    });
  } else {
    it('pg_dump --data-only holds no private key in clear (control: a key written in clear is found)', async () => {
      const url = (server.core.config.store as { url: string }).url;
      const dump = async () => (await run('pg_dump', ['--data-only', '--no-owner', url], { maxBuffer: 64 * 1024 * 1024 })).stdout;
      const text = await dump();
      expect(text).toContain('COPY public.certificates');
      for (const { name, traces } of keys) expect(holdsKey(text, traces), name).toBe(false);

      const control = outsideKey('ec');
      await server.core.tenancy.createOrganization(`control ${control.pkcs8}`);
      expect(holdsKey(await dump(), keyTraces(control.privateKey))).toBe(true);
    });
  }

  it('clientCertificate gives the uploaded key back (PKCS#8) with the certificate it matches', async () => {
    const client = await server.core.certificates.clientCertificate(environment, tokens.uploadedEc as string);
    expect(client.key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(new X509Certificate(client.cert).checkPrivateKey(createPrivateKey(client.key))).toBe(true);
  });

  it('clientCertificate refuses a certificate with no signed pem (422) and a token of another environment (404)', async () => {
    const generated = await server.core.certificates.generate(environment, {
      algorithm: 'ec-prime256v1',
      subject: { cn: 'unsigned', o: null, ou: null, c: null, st: null, l: null, email_address: null },
      level: 'environment',
    });
    const unsigned = await server.core.certificates.clientCertificate(environment, generated.token).catch((error: unknown) => error);
    expect(unsigned).toBeInstanceOf(AppError);
    expect([(unsigned as AppError).status, (unsigned as AppError).entries]).toEqual([
      422,
      [{ key: 'errors.invalid', attribute: 'certificate_token', message: 'Certificate token names a certificate that has no signed pem yet: PUT the signed certificate first.' }],
    ]);
    const otherEnvironment = await server.core.tenancy.createEnvironment(server.init.organization_token, 'elsewhere', false);
    const foreign = await server.core.certificates.clientCertificate(otherEnvironment, tokens.uploadedEc as string).catch((error: unknown) => error);
    expect([(foreign as AppError).status, (foreign as AppError).entries]).toEqual([
      404,
      [{ key: 'errors.certificate_not_found', message: 'Unable to find the specified certificate.' }],
    ]);
  });

  it('keys survive a data-key rotation and can be re-sealed onto the new key', async () => {
    // A new current data key, without the re-encryption pass (which is KeyRotationService's).
    const keyId = await server.core.keyring.rotateDataKey(environment.key);
    const repo = repositories(server.core.store.db, server.core.store.dialect).sealedBlobs;
    // Old data keys are kept, so a key sealed before the rotation still opens...
    const before = await server.core.certificates.clientCertificate(environment, tokens.uploadedEc as string);
    const stale = await repo.notOnKey('certificate', 'private_key', environment.key, keyId, 100);
    expect(stale.map((row) => row.token)).toContain(tokens.uploadedEc);
    // ...and the primitives a rotation pass uses move it onto the new key, conditionally.
    for (const row of stale) {
      const aad = certificatePrivateKeyAad(row.token);
      const fresh = await server.core.keyring.sealFor(environment.key, await server.core.keyring.openFor(environment.key, row.blob, aad), aad);
      expect(await repo.replace('certificate', 'private_key', environment.key, row.token, row.blob, fresh)).toBe(true);
      expect(await repo.replace('certificate', 'private_key', environment.key, row.token, row.blob, fresh)).toBe(false);
    }
    expect(await repo.notOnKey('certificate', 'private_key', environment.key, keyId, 100)).toEqual([]);
    expect(await server.core.certificates.clientCertificate(environment, tokens.uploadedEc as string)).toEqual(before);
  });

  it('clientCertificate authenticates in a real mutual-TLS handshake, chain included', async () => {
    // A peer on 127.0.0.1 that trusts only the root CA: a leaf under the intermediate gets in
    // only if the chain is sent with it.
    const tlsDir = path.join(server.dataDir, 'tls');
    const peer = https.createServer(
      {
        key: fs.readFileSync(path.join(tlsDir, 'server-key.pem')),
        cert: fs.readFileSync(path.join(tlsDir, 'server.pem')),
        ca: [ca.pem],
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        const socket = req.socket as import('node:tls').TLSSocket;
        res.end(`hello ${socket.getPeerCertificate().subject.CN}`);
      },
    );
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    const port = (peer.address() as AddressInfo).port;
    const call = (identity: { cert?: string; key?: string }) =>
      new Promise<string>((resolve, reject) => {
        const req = https.request({ host: '127.0.0.1', servername: 'localhost', port, ca: server.ca as string, ...identity }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          res.on('end', () => resolve(body));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      expect(await call(await server.core.certificates.clientCertificate(environment, tokens.chained as string))).toBe('hello chained client');
      expect(await call(await server.core.certificates.clientCertificate(environment, tokens['rsa-2048'] as string))).toBe('hello generated rsa-2048');
      // Control: the peer does refuse a client without a certificate.
      await expect(call({})).rejects.toThrow();
    } finally {
      await new Promise((resolve) => peer.close(resolve));
    }
  });
});
