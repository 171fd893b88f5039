import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { xmlErrorEntries, xmlText } from '../helpers/xml.js';

/*
 * PUT /v1/certificates/<token>/redact (Coffer's addition): the private key, pem and CSR are
 * erased for good; a second redact, an unknown token, attaching a pem afterwards are refused
 * with their status, key and message in JSON and XML.
 */
const REDACTED = { key: 'errors.certificate_redacted', message: "Unable to use a certificate because it's been redacted." };
const NOT_FOUND = { key: 'errors.certificate_not_found', message: 'Unable to find the specified certificate.' };

describe.each(storeKinds)('certificate redact over HTTPS (%s)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ store });
  });
  afterAll(() => server.close());

  const generate = async (): Promise<string> => {
    const res = await server.client.sendJson('POST', '/v1/certificates/generate.json', { certificate: { algorithm: 'ec-prime256v1', cn: 'redact.example' } });
    expect(res.status, res.text).toBe(201);
    return res.json().certificate.token as string;
  };

  it('erases the csr and pem and keeps the sealed key out of the store (JSON)', async () => {
    const token = await generate();
    const res = await server.client.sendJson('PUT', `/v1/certificates/${token}/redact.json`, {});
    expect(res.status, res.text).toBe(200);
    expect(res.json().certificate).toMatchObject({ token, cn: 'redact.example', csr: null, pem: null });
    const stored = await server.core.store.db.selectFrom('certificates').selectAll().where('token', '=', token).executeTakeFirstOrThrow();
    expect(stored.sealed_private_key).toBe('');
    expect(stored.redacted_at).not.toBeNull();
    // The redaction is in the events feed, once.
    const events = await server.client.get('/v1/events.json?event_type=RedactCertificate');
    expect(events.json().events.filter((event: { object_key: string }) => event.object_key === token)).toHaveLength(1);
  });

  it('refuses a second redact and a pem attached afterwards (422), an unknown token (404), in JSON', async () => {
    const token = await generate();
    expect((await server.client.sendJson('POST', `/v1/certificates/${token}/redact.json`, {})).status).toBe(200);
    const again = await server.client.sendJson('PUT', `/v1/certificates/${token}/redact.json`, {});
    expect(again.status).toBe(422);
    expect(again.json().errors).toEqual([REDACTED]);
    const attach = await server.client.sendJson('PUT', `/v1/certificates/${token}.json`, { certificate: { pem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' } });
    expect(attach.status).toBe(422);
    expect(attach.json().errors).toEqual([REDACTED]);
    const unknown = await server.client.sendJson('PUT', '/v1/certificates/nope/redact.json', {});
    expect(unknown.status).toBe(404);
    expect(unknown.json().errors).toEqual([NOT_FOUND]);
  });

  it('a data-key rotation leaves a redacted certificate alone and still re-seals the others', async () => {
    const kept = await generate();
    const redacted = await generate();
    expect((await server.client.sendJson('PUT', `/v1/certificates/${redacted}/redact.json`, {})).status).toBe(200);
    const rotation = await server.core.keyRotation.rotateData(server.init.environment_key, 50);
    expect(rotation.reencrypted).toBeGreaterThan(0);
    const rows = await server.core.store.db.selectFrom('certificates').select(['token', 'sealed_private_key']).where('token', 'in', [kept, redacted]).execute();
    expect(Object.fromEntries(rows.map((row) => [row.token, row.sealed_private_key.startsWith(`c1.${rotation.keyId}.`)]))).toEqual({ [kept]: true, [redacted]: false });
    expect(rows.find((row) => row.token === redacted)?.sealed_private_key).toBe('');
    expect(await server.core.keyRotation.reencrypt(server.init.environment_key, 50)).toBe(0);
  });

  it('redacts in XML, and refuses in XML', async () => {
    const token = await generate();
    const res = await server.client.sendXml('PUT', `/v1/certificates/${token}/redact.xml`, '');
    expect(res.status, res.text).toBe(200);
    expect(xmlText(res.xml().certificate.token)).toBe(token);
    expect(xmlText(res.xml().certificate.csr)).toBeNull();
    const again = await server.client.sendXml('PUT', `/v1/certificates/${token}/redact.xml`, '');
    expect(again.status).toBe(422);
    expect(xmlErrorEntries(again.xml().errors)).toEqual([REDACTED]);
    const unknown = await server.client.sendXml('PUT', '/v1/certificates/nope/redact.xml', '');
    expect(unknown.status).toBe(404);
    expect(xmlErrorEntries(unknown.xml().errors)).toEqual([NOT_FOUND]);
  });
});
