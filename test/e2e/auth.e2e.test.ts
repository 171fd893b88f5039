import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

const EXACT_401 = 'Unable to authenticate using the given environment_key and access_token.  Please check your credentials.';

describe('authentication and tenancy (API.md §2) over HTTPS', () => {
  let server: TestServer;
  let env: string;
  let secret: string;

  beforeAll(async () => {
    server = await startServer();
    env = server.init.environment_key;
    secret = server.init.access_secret;
  });
  afterAll(() => server.close());

  describe('401 errors.access_denied', () => {
    const cases: Array<[string, () => Record<string, string>]> = [
      ['no Authorization header', () => ({})],
      ['a wrong secret', () => ({ authorization: basic(env, 'wrong') })],
      ['an unknown environment key', () => ({ authorization: basic('nope', secret) })],
      ['a malformed header', () => ({ authorization: 'Basic !!!' })],
      ['a Bearer token', () => ({ authorization: `Bearer ${secret}` })],
      ['no colon', () => ({ authorization: `Basic ${Buffer.from(env).toString('base64')}` })],
    ];
    it.each(cases)('JSON: %s', async (_name, headers) => {
      const res = await server.client.get('/v1/gateways.json', { auth: null, headers: headers() });
      expect(res.status).toBe(401);
      expect(res.text).toBe(`{"errors":[{"key":"errors.access_denied","message":"${EXACT_401}"}]}`);
    });
    it.each(cases)('XML: %s', async (_name, headers) => {
      const res = await server.client.get('/v1/gateways.xml', { auth: null, headers: headers() });
      expect(res.status).toBe(401);
      expect(res.xml().errors.error['#text']).toBe(EXACT_401);
      expect(res.text).toContain(`<error key="errors.access_denied">${EXACT_401}</error>`);
    });
    it('checks credentials before reading the body', async () => {
      const res = await server.client.request('POST', '/v1/gateways.json', { auth: null, contentType: 'text/plain', body: 'x' });
      expect(res.status).toBe(401);
    });
  });

  it('keeps environments apart: another environment’s token is 404', async () => {
    const other = await server.core.tenancy.createEnvironment(server.init.organization_token, 'other', false);
    const mine = (await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).json().gateway.token;
    const otherClient = server.client.withAuth({ user: other.key, password: secret });
    for (const path of [`/v1/gateways/${mine}.json`, `/v1/gateways/${mine}.xml`]) {
      const res = await otherClient.get(path);
      expect(res.status).toBe(404);
    }
    expect((await otherClient.request('PUT', `/v1/gateways/${mine}/redact.json`)).status).toBe(404);
    expect((await otherClient.sendJson('PUT', `/v1/gateways/${mine}.json`, { gateway: { description: 'x' } })).status).toBe(404);
    const list = await otherClient.get('/v1/gateways.json');
    expect(list.json().gateways).toEqual([]);
    // still intact for its owner
    expect((await server.client.get(`/v1/gateways/${mine}.json`)).json().gateway.state).toBe('retained');
  });

  it('refuses a secret of another organization with 401', async () => {
    const org = await server.core.tenancy.createOrganization('Other Org');
    const foreign = await server.core.tenancy.createAccessSecret(org.token, { name: 'x', role: 'admin', environmentKeys: null });
    const res = await server.client.get('/v1/gateways.json', { auth: { user: env, password: foreign.secret } });
    expect(res.status).toBe(401);
  });

  it('enforces environment scope and roles', async () => {
    const other = await server.core.tenancy.createEnvironment(server.init.organization_token, 'scoped', false);
    const scoped = await server.core.tenancy.createAccessSecret(server.init.organization_token, { name: 's', role: 'transact', environmentKeys: [other.key] });
    expect((await server.client.get('/v1/gateways.json', { auth: { user: env, password: scoped.secret } })).status).toBe(401);
    expect((await server.client.get('/v1/gateways.json', { auth: { user: other.key, password: scoped.secret } })).status).toBe(200);

    const reader = await server.core.tenancy.createAccessSecret(server.init.organization_token, { name: 'r', role: 'read', environmentKeys: null });
    const readClient = server.client.withAuth({ user: env, password: reader.secret });
    expect((await readClient.get('/v1/gateways.json')).status).toBe(200);
    const write = await readClient.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } });
    expect(write.status).toBe(401);
    // A proven secret is told its role is the reason (same status and key); a wrong one is not.
    expect(write.json().errors).toEqual([{ key: 'errors.access_denied', message: "This access secret's role (read) does not allow this action." }]);
    const writeXml = await readClient.sendXml('POST', '/v1/gateways.xml', '<gateway><gateway_type>test</gateway_type></gateway>');
    expect(writeXml.status).toBe(401);
    expect(writeXml.text).toContain(`<error key="errors.access_denied">This access secret's role (read) does not allow this action.</error>`);
    const wrongSecret = await server.client.withAuth({ user: env, password: `${reader.secret}x` }).sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.json().errors).toEqual([{ key: 'errors.access_denied', message: EXACT_401 }]);

    const transact = await server.core.tenancy.createAccessSecret(server.init.organization_token, { name: 't', role: 'transact', environmentKeys: null });
    const transactClient = server.client.withAuth({ user: env, password: transact.secret });
    expect((await transactClient.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).status).toBe(201);
    const adminOnly = await transactClient.get('/v1/environments.json');
    expect(adminOnly.status).toBe(401);
    expect(adminOnly.json().errors).toEqual([{ key: 'errors.access_denied', message: "This access secret's role (transact) does not allow this action." }]);
  });

  it('stops a revoked secret at once', async () => {
    const created = await server.core.tenancy.createAccessSecret(server.init.organization_token, { name: 'temp', role: 'admin', environmentKeys: null });
    const auth = { user: env, password: created.secret };
    expect((await server.client.get('/v1/gateways.json', { auth })).status).toBe(200);
    await server.core.tenancy.revokeAccessSecret(created.accessSecret.key);
    expect((await server.client.get('/v1/gateways.json', { auth })).status).toBe(401);
  });

  it('stores secrets only as keyed hashes', async () => {
    const rows = await server.core.store.db.selectFrom('access_secrets').selectAll().execute();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(secret);
    for (const row of rows) expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers 402 on writes of a deactivated organization, but still allows reads', async () => {
    const org = await server.core.tenancy.createOrganization('Lapsed');
    const environment = await server.core.tenancy.createEnvironment(org.token, 'main', false);
    const admin = await server.core.tenancy.createAccessSecret(org.token, { name: 'a', role: 'admin', environmentKeys: null });
    const client = server.client.withAuth({ user: environment.key, password: admin.secret });
    const token = (await client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).json().gateway.token;
    await server.core.tenancy.setOrganizationActive(org.token, false);
    const json = await client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } });
    expect(json.status).toBe(402);
    expect(json.json().errors[0].key).toBe('errors.account_inactive');
    const xml = await client.request('PUT', `/v1/gateways/${token}/redact.xml`);
    expect(xml.status).toBe(402);
    expect(xml.xml().errors.error['@_key']).toBe('errors.account_inactive');
    expect((await client.get(`/v1/gateways/${token}.json`)).json().gateway.state).toBe('retained');
    await server.core.tenancy.setOrganizationActive(org.token, true);
    expect((await client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).status).toBe(201);
  });

  describe('organization admin endpoints', () => {
    it('lists, creates, shows and renames environments', async () => {
      const created = await server.client.sendJson('POST', '/v1/environments.json', { environment: { name: 'staging', production: true } });
      expect(created.status).toBe(201);
      const environment = created.json().environment;
      expect(environment).toMatchObject({ name: 'staging', production: false });
      expect(Object.keys(environment)).toEqual(['key', 'name', 'production', 'allowed_origins', 'enhanced_iframe_security', 'google_pay_merchant_id', 'created_at', 'updated_at']);

      const list = await server.client.get('/v1/environments.xml');
      expect(list.status).toBe(200);
      expect(list.text).toContain(`<key>${environment.key}</key>`);

      const shown = await server.client.get(`/v1/environments/${environment.key}.json`);
      expect(shown.json().environment.name).toBe('staging');
      const renamed = await server.client.sendXml('PUT', `/v1/environments/${environment.key}.xml`, '<environment><name>qa</name></environment>');
      expect(renamed.status).toBe(200);
      expect(renamed.xml().environment.name).toBe('qa');

      const blank = await server.client.sendJson('POST', '/v1/environments.json', { environment: {} });
      expect(blank.status).toBe(422);
      expect(blank.json().errors[0]).toMatchObject({ key: 'errors.blank', attribute: 'name', message: "Name can't be blank" });
      expect((await server.client.get('/v1/environments/unknown.json')).status).toBe(404);
    });

    it('keeps other organizations’ environments invisible (404)', async () => {
      const org = await server.core.tenancy.createOrganization('Stranger');
      const foreign = await server.core.tenancy.createEnvironment(org.token, 'theirs', false);
      const res = await server.client.get(`/v1/environments/${foreign.key}.xml`);
      expect(res.status).toBe(404);
      expect(res.xml().errors.error['@_key']).toBe('errors.environment_not_found');
    });

    it('creates, lists and deletes access secrets; the secret is shown once', async () => {
      const created = await server.client.sendJson('POST', `/v1/environments/${env}/access_secrets.json`, { access_secret: { name: 'ci', role: 'read' } });
      expect(created.status).toBe(201);
      const accessSecret = created.json().access_secret;
      expect(accessSecret).toMatchObject({ name: 'ci', role: 'read', environment_keys: [env] });
      expect(accessSecret.secret).toMatch(/^[A-Za-z0-9]{48}$/);
      const usable = await server.client.get('/v1/gateways.json', { auth: { user: env, password: accessSecret.secret } });
      expect(usable.status).toBe(200);

      const list = await server.client.get(`/v1/environments/${env}/access_secrets.json`);
      expect(list.status).toBe(200);
      expect(list.json().access_secrets.map((s: { key: string }) => s.key)).toContain(accessSecret.key);
      expect(list.text).not.toContain(accessSecret.secret);

      const badRole = await server.client.sendJson('POST', `/v1/environments/${env}/access_secrets.json`, { access_secret: { role: 'root' } });
      expect(badRole.status).toBe(422);
      expect(badRole.json().errors[0]).toMatchObject({ key: 'errors.inclusion', attribute: 'role' });

      const deleted = await server.client.request('DELETE', `/v1/environments/${env}/access_secrets/${accessSecret.key}.json`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect((await server.client.get('/v1/gateways.json', { auth: { user: env, password: accessSecret.secret } })).status).toBe(401);
      const again = await server.client.request('DELETE', `/v1/environments/${env}/access_secrets/${accessSecret.key}.xml`);
      expect(again.status).toBe(404);
      expect(again.xml().errors.error['@_key']).toBe('errors.access_secret_not_found');
    });

    it('needs an organization-wide admin secret', async () => {
      const scopedAdmin = await server.core.tenancy.createAccessSecret(server.init.organization_token, { name: 'sa', role: 'admin', environmentKeys: [env] });
      const res = await server.client.get('/v1/environments.json', { auth: { user: env, password: scopedAdmin.secret } });
      expect(res.status).toBe(401);
      expect(res.json().errors[0]).toEqual({ key: 'errors.access_denied', message: 'This access secret is limited to some environments; this action needs one that covers the whole organization.' });
    });
  });
});

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
