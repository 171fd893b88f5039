import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../helpers/postgres.js';
import { fieldValue, PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';

describe.each(storeKinds)('portal environments, access secrets, roles and audit log (%s)', (store) => {
  let server: TestServer;
  let env: string;
  let owner: PortalClient;
  let viewer: PortalClient;
  let developer: PortalClient;

  beforeAll(async () => {
    server = await startServer({ store });
    env = server.init.environment_key;
    const org = server.init.organization_token;
    for (const [email, role] of [['owner@example.com', 'owner'], ['viewer@example.com', 'viewer'], ['dev@example.com', 'developer']] as const) {
      await server.core.portalUsers.create(org, { email, role, password: PASSWORD });
    }
    owner = new PortalClient(server.client);
    viewer = new PortalClient(server.client);
    developer = new PortalClient(server.client);
    await owner.signIn('owner@example.com', PASSWORD);
    await viewer.signIn('viewer@example.com', PASSWORD);
    await developer.signIn('dev@example.com', PASSWORD);
  });
  afterAll(() => server.close());

  const environmentNames = async () =>
    (await server.core.tenancy.listEnvironments(server.init.organization_token, { sinceToken: null, order: 'asc', count: 100 })).map((e) => e.name);

  it('creates and renames an environment, shows its key read-only, and audits both', async () => {
    await owner.get('/portal/environments');
    const created = await owner.post('/portal/environments', { name: 'Staging' });
    expect(created.status).toBe(303);
    const detail = await owner.get(created.headers.location as string);
    expect(detail.text).toContain('<label for="environment-key">Environment key</label>');
    const key = fieldValue(detail.text, 'environment-key') as string;
    expect(detail.text).toMatch(/id="environment-key" type="text" readonly/);
    expect((await owner.post(`/portal/environments/${key}`, { name: 'Staging EU' })).status).toBe(303);
    expect(await environmentNames()).toContain('Staging EU');
    const events = await server.core.audit.list(server.init.organization_token, { count: 10, actor: 'owner@example.com' });
    expect(events.map((e) => [e.action, e.objectId])).toEqual(expect.arrayContaining([['environment.create', key], ['environment.rename', key]]));
    expect(events.every((e) => e.address !== null)).toBe(true);
  });

  it('refuses a blank environment name (422 page, nothing created)', async () => {
    const before = await environmentNames();
    await owner.get('/portal/environments');
    const res = await owner.post('/portal/environments', { name: '   ' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('Name can&#39;t be blank');
    expect(await environmentNames()).toEqual(before);
  });

  it('creates an access secret shown once, which works against the API, and revokes it (401 after)', async () => {
    await developer.get(`/portal/e/${env}/secrets`);
    const res = await developer.post(`/portal/e/${env}/secrets`, { name: 'checkout', role: 'transact' });
    expect(res.status).toBe(201);
    expect(res.text).toContain('<label for="access-secret">Access secret</label>');
    expect(res.text).toContain('will not be shown again');
    const secret = fieldValue(res.text, 'access-secret') as string;
    expect(secret).toMatch(/^[A-Za-z0-9]{48}$/);
    const api = server.client.withAuth({ user: env, password: secret });
    expect((await api.get('/v1/gateways.json')).status).toBe(200);

    const again = await developer.get(`/portal/e/${env}/secrets`);
    expect(again.text).not.toContain(secret);
    expect(again.text).toContain('checkout');
    const row = (await server.core.tenancy.listSecretsForEnvironment(server.init.organization_token, env)).find((s) => s.name === 'checkout');
    const revoked = await developer.post(`/portal/e/${env}/secrets/${row?.key}/revoke`, {});
    expect(revoked.status).toBe(303);
    expect((await api.get('/v1/gateways.json')).status).toBe(401);
    const actions = (await server.core.audit.list(server.init.organization_token, { count: 10, actor: 'dev@example.com' })).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['access_secret.create', 'access_secret.revoke']));
  });

  it('creates and shows a secret once per form: posting the same form again (a reload) creates nothing', async () => {
    await owner.get(`/portal/e/${env}/secrets`);
    const once = owner.once as string;
    const first = await owner.post(`/portal/e/${env}/secrets`, { name: 'once-only', role: 'read', _once: once });
    expect(first.status).toBe(201);
    const again = await owner.post(`/portal/e/${env}/secrets`, { name: 'once-only', role: 'read', _once: once });
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe(`/portal/e/${env}/secrets?done=not_again`);
    const named = (await server.core.tenancy.listSecretsForEnvironment(server.init.organization_token, env)).filter((s) => s.name === 'once-only');
    expect(named).toHaveLength(1);
  });

  it('a viewer sees pages but every change is refused on the server (403), even posting the form directly', async () => {
    const list = await viewer.get(`/portal/e/${env}/secrets`);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('New access secret');
    const envs = await environmentNames();
    const secretsBefore = (await server.core.tenancy.listSecretsForEnvironment(server.init.organization_token, env)).length;
    for (const [path, fields] of [
      ['/portal/environments', { name: 'viewer-made' }],
      [`/portal/environments/${env}`, { name: 'viewer-renamed' }],
      [`/portal/e/${env}/secrets`, { name: 'viewer-secret', role: 'admin' }],
      [`/portal/e/${env}/secrets/${server.init.access_secret_key}/revoke`, {}],
    ] as const) {
      const res = await viewer.post(path, fields);
      expect(res.status, path).toBe(403);
      expect(res.text).toContain('Your role (viewer) does not allow this.');
    }
    expect(await environmentNames()).toEqual(envs);
    expect((await server.core.tenancy.listSecretsForEnvironment(server.init.organization_token, env)).length).toBe(secretsBefore);
    expect((await viewer.get('/portal/audit')).status).toBe(403);
  });

  it("answers 404 for another organization's environment", async () => {
    const other = await server.core.tenancy.createOrganization('other');
    const foreign = await server.core.tenancy.createEnvironment(other.token, 'theirs', false);
    expect((await owner.get(`/portal/e/${foreign.key}/secrets`)).status).toBe(404);
    expect((await owner.get(`/portal/environments/${foreign.key}`)).status).toBe(404);
  });

  it('escapes what users typed (no markup from a name)', async () => {
    await owner.get('/portal/environments');
    await owner.post('/portal/environments', { name: '<img src=x onerror=alert(1)>' });
    const page = await owner.get('/portal/environments');
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.text).not.toContain('<img src=x');
  });

  it('shows the audit log filtered by user, action and date', async () => {
    const all = await owner.get('/portal/audit');
    expect(all.status).toBe(200);
    expect(all.text).toContain('environment.create');
    const byAction = await owner.get('/portal/audit?action=access_secret.revoke');
    expect(byAction.text).toContain('access_secret.revoke');
    expect(byAction.text).not.toContain('<code>environment.create</code>');
    const byUser = await owner.get('/portal/audit?user=owner%40example.com');
    expect(byUser.text).not.toContain('<code>access_secret.revoke</code>');
    const future = await owner.get('/portal/audit?from=2999-01-01');
    expect(future.text).toContain('No events match.');
    expect((await owner.get('/portal/audit?from=yesterday')).status).toBe(422);
  });
});

describe.each(storeKinds)('GET /v1/audit_events and API secret management in the audit log (%s)', (store) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ store });
  });
  afterAll(() => server.close());

  it('records access-secret creation and revocation through the API, and lists them (JSON and XML)', async () => {
    const env = server.init.environment_key;
    const created = await server.client.sendJson('POST', `/v1/environments/${env}/access_secrets.json`, { access_secret: { name: 'ci' } });
    expect(created.status).toBe(201);
    const key = created.json().access_secret.key as string;
    expect((await server.client.request('DELETE', `/v1/environments/${env}/access_secrets/${key}.json`)).status).toBe(204);
    const list = await server.client.get('/v1/audit_events.json');
    expect(list.status).toBe(200);
    const events = list.json().audit_events as Array<Record<string, unknown>>;
    expect(events.map((e) => e.action)).toEqual(['access_secret.revoke', 'access_secret.create']);
    expect(events[1]).toMatchObject({ actor_type: 'access_secret', actor: server.init.access_secret_key, object_id: key, environment_key: env, details: { name: 'ci', role: 'transact' } });
    expect(JSON.stringify(events)).not.toContain(created.json().access_secret.secret);
    const xml = await server.client.get('/v1/audit_events.xml?action=access_secret.create');
    expect(xml.status).toBe(200);
    expect(xml.xml().audit_events.audit_event.action).toBe('access_secret.create');
    const paged = await server.client.get(`/v1/audit_events.json?count=1&before=${events[0]?.cursor as string}`);
    expect(paged.json().audit_events.map((e: { action: string }) => e.action)).toEqual(['access_secret.create']);
  });

  it.each([
    ['from=2020-13-01', 'from'],
    ['count=0', 'count'],
    ['before=abc', 'before'],
  ])('422 for %s in JSON and XML', async (query, attribute) => {
    const json = await server.client.get(`/v1/audit_events.json?${query}`);
    expect(json.status).toBe(422);
    expect(json.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute });
    const xml = await server.client.get(`/v1/audit_events.xml?${query}`);
    expect(xml.status).toBe(422);
    expect(xml.text).toContain('errors.invalid');
  });

  it('needs an organization-wide admin secret (401 otherwise)', async () => {
    const created = await server.core.tenancy.createAccessSecret(server.init.organization_token, { name: 'r', role: 'read', environmentKeys: null });
    const res = await server.client.withAuth({ user: server.init.environment_key, password: created.secret }).get('/v1/audit_events.json');
    expect(res.status).toBe(401);
  });
});
