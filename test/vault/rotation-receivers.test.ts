import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificatePrivateKeyAad } from '../../src/services/certificate.service.js';
import { receiverOf } from '../../src/store/mappers/receiver.js';
import { blobKeyId } from '../../src/vault/cipher.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/** Data-key rotation re-encrypts receivers' credentials and SFTP secrets and certificates' private keys too. */
describe.each(storeKinds)('data-key rotation of receiver and certificate blobs (%s)', (store) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ store });
  });
  afterAll(() => server.close());

  it('moves every receiver and certificate blob onto the new key, still readable', async () => {
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    const live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
    const http = await live.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'http', hostnames: 'https://a.example', credentials: [{ name: 'key', value: 'secret-one' }] } });
    const sftp = await live.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'sftp', hostnames: 'sftp://b.example', protocol: { user: 'u', password: 'secret-two' } } });
    const certificate = await live.sendJson('POST', '/v1/certificates/generate.json', { certificate: { cn: 'rotation' } });
    expect([http.status, sftp.status, certificate.status]).toEqual([201, 201, 201]);

    const result = await server.core.keyRotation.rotateData(production.key, 2);
    expect(result.reencrypted).toBe(3);

    const db = server.core.store.db;
    const receivers = await db.selectFrom('receivers').selectAll().where('environment_key', '=', production.key).execute();
    for (const row of receivers) {
      for (const blob of [row.sealed_credentials, row.sealed_protocol]) if (blob !== null) expect(blobKeyId(blob)).toBe(result.keyId);
    }
    const byToken = new Map(receivers.map((row) => [row.token, receiverOf(row)]));
    expect((await server.core.receivers.openSecrets(byToken.get(http.json().receiver.token)!)).credentials).toEqual({ key: 'secret-one' });
    expect((await server.core.receivers.openSecrets(byToken.get(sftp.json().receiver.token)!)).password?.reveal()).toBe('secret-two');

    const cert = await db.selectFrom('certificates').selectAll().where('token', '=', certificate.json().certificate.token).executeTakeFirstOrThrow();
    expect(blobKeyId(cert.sealed_private_key)).toBe(result.keyId);
    const key = await server.core.keyring.openFor(production.key, cert.sealed_private_key, certificatePrivateKeyAad(cert.token));
    expect(key.toString('utf8')).toContain('-----BEGIN PRIVATE KEY-----');
  });
});
