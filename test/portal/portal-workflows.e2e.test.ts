import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../helpers/postgres.js';
import { PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';

/*
 * The portal's Workflows page over HTTP on both stores. Owners and admins create, edit
 * and remove; developers and viewers read only (no form, and a forged POST is refused); a bad
 * form is a page of the API's own messages and stores nothing.
 */
describe.each(storeKinds)('portal workflows (%s)', (store) => {
  let server: TestServer;
  let env: string;
  let admin: PortalClient;
  let developer: PortalClient;
  let viewer: PortalClient;
  let gatewayA: string;
  let gatewayB: string;

  const gateway = async () => (await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).json().gateway.token as string;

  beforeAll(async () => {
    server = await startServer({ store });
    env = server.init.environment_key;
    for (const [email, role] of [['admin@example.com', 'admin'], ['dev@example.com', 'developer'], ['viewer@example.com', 'viewer']] as const) {
      await server.core.portalUsers.create(server.init.organization_token, { email, role, password: PASSWORD });
    }
    admin = new PortalClient(server.client);
    developer = new PortalClient(server.client);
    viewer = new PortalClient(server.client);
    await admin.signIn('admin@example.com', PASSWORD);
    await developer.signIn('dev@example.com', PASSWORD);
    await viewer.signIn('viewer@example.com', PASSWORD);
    gatewayA = await gateway();
    gatewayB = await gateway();
  });
  afterAll(() => server.close());

  it('lets an admin create, edit and remove a workflow; each change is audited and an event', async () => {
    const list = await admin.get(`/portal/e/${env}/workflows`);
    expect(list.status).toBe(200);
    expect(list.text).toContain('No workflows yet.');
    expect(list.text).toContain('Create workflow');
    const rules = JSON.stringify([{ name: 'euro', condition: { currencies: ['EUR'] }, target: { gateway_token: gatewayB } }]);
    const created = await admin.post(`/portal/e/${env}/workflows`, {
      key: 'portal-flow',
      name: 'From the portal',
      default_target: `${gatewayA}:70, ${gatewayB}:30`,
      [`backup_${gatewayB}`]: 'on',
      retry_mode: 'standard',
      default: 'on',
      rules,
    });
    expect(created.status, created.text).toBe(303);
    expect(created.headers.location).toBe(`/portal/e/${env}/workflows/portal-flow?done=created`);
    const api = (await server.client.get('/v1/workflows/portal-flow.json')).json().workflow;
    expect(api).toMatchObject({
      name: 'From the portal',
      default: true,
      retry_mode: 'standard',
      rules: [{ name: 'euro', condition: { currencies: ['EUR'] }, target: { gateway_token: gatewayB } }],
      default_target: { split: [{ gateway_token: gatewayA, weight: 70 }, { gateway_token: gatewayB, weight: 30 }] },
      backup_gateway_tokens: [gatewayB],
    });
    const shown = await admin.get(`/portal/e/${env}/workflows/portal-flow`);
    expect(shown.text).toContain('Save workflow');
    expect(shown.text).toContain(`${gatewayA}:70, ${gatewayB}:30`);

    const edited = await admin.post(`/portal/e/${env}/workflows/portal-flow`, { name: 'Renamed', default_target: gatewayA, retry_mode: 'none', rules: '[]' });
    expect(edited.status, edited.text).toBe(303);
    expect((await server.client.get('/v1/workflows/portal-flow.json')).json().workflow).toMatchObject({ name: 'Renamed', default: false, rules: [], default_target: { gateway_token: gatewayA }, backup_gateway_tokens: [] });

    const audit = (await server.client.get('/v1/audit_events.json?count=100')).json().audit_events.map((event: any) => event.action);
    expect(audit).toEqual(expect.arrayContaining(['workflow.create', 'workflow.update']));
    const removed = await admin.post(`/portal/e/${env}/workflows/portal-flow/remove`, {});
    expect(removed.status).toBe(303);
    expect((await server.client.get('/v1/workflows/portal-flow.json')).status).toBe(404);
    expect((await admin.get(`/portal/e/${env}/workflows?done=removed`)).text).toContain('Removed.');
  });

  it('shows a bad form as the API would refuse it, storing nothing', async () => {
    const badJson = await admin.post(`/portal/e/${env}/workflows`, { key: 'bad', name: 'Bad', default_target: gatewayA, rules: '{not json' });
    expect(badJson.status).toBe(422);
    expect(badJson.text).toContain('Rules must be a JSON array');
    const badWeight = await admin.post(`/portal/e/${env}/workflows`, { key: 'bad', name: 'Bad', default_target: `${gatewayA}:0`, rules: '[]' });
    expect(badWeight.status).toBe(422);
    expect(badWeight.text).toContain('default_target.split[0].weight must be a positive integer');
    const unknown = await admin.post(`/portal/e/${env}/workflows`, { key: 'bad', name: 'Bad', default_target: 'NoSuchGateway', rules: '[]' });
    expect(unknown.status).toBe(422);
    expect(unknown.text).toContain('default_target.gateway_token is not a gateway of this environment');
    expect(unknown.text).not.toContain('NoSuchGateway');
    expect((await server.client.get('/v1/workflows.json')).json().workflows).toEqual([]);
  });

  it('lets developers and viewers read workflows but not change them', async () => {
    expect((await server.client.sendJson('POST', '/v1/workflows.json', { workflow: { key: 'read-only', name: 'Read only', default_target: { gateway_token: gatewayA } } })).status).toBe(201);
    for (const client of [developer, viewer]) {
      const list = await client.get(`/portal/e/${env}/workflows`);
      expect(list.status).toBe(200);
      expect(list.text).toContain('read-only');
      expect(list.text).not.toContain('Create workflow');
      const shown = await client.get(`/portal/e/${env}/workflows/read-only`);
      expect(shown.status).toBe(200);
      expect(shown.text).not.toContain('Save workflow');
      expect((await client.post(`/portal/e/${env}/workflows`, { key: 'forged', name: 'Forged', default_target: gatewayA })).status).toBe(403);
      expect((await client.post(`/portal/e/${env}/workflows/read-only`, { name: 'Forged' })).status).toBe(403);
      expect((await client.post(`/portal/e/${env}/workflows/read-only/remove`, {})).status).toBe(403);
    }
    expect((await server.client.get('/v1/workflows/read-only.json')).json().workflow.name).toBe('Read only');
  });
});
