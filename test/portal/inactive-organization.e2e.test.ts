import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/domain/errors.js';
import { storeKinds } from '../helpers/postgres.js';
import { PortalClient } from '../helpers/portal-client.js';
import { registeredRoutes, type RegisteredRoute } from '../helpers/registered-routes.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * A deactivated organization changes nothing through the portal, as through the API (402 and the
 * same reason): every POST route of the portal, enumerated from the app, is refused and the
 * database is left as it was; signing in and out, one's own password and second factor, and
 * revoking an access secret stay allowed (docs/portal.md, "A deactivated organization").
 */

const PASSWORD = 'correct horse battery';
const VISA = '4111111111111111';

/** What stays allowed while deactivated: the permissions a route may declare, or its opt-in. */
const stillAllowed = (route: RegisteredRoute) => ['public', 'pending', 'session', 'manage_own_account'].includes(route.config.portal ?? '') || route.config.whileInactive === 'allowed';

/** Tables whose rows may move without anyone changing anything: the session's last activity. */
const VOLATILE_TABLES = new Set(['portal_sessions']);

describe.each(storeKinds)('the portal of a deactivated organization (%s)', (store) => {
  let server: TestServer;
  let org: string;
  let env: string;
  let owner: PortalClient;
  let postRoutes: RegisteredRoute[];
  /** The value of each route parameter, by the path segment before it: real records, so a handler that ran would change them. */
  const param: Record<string, string> = {};

  beforeAll(async () => {
    postRoutes = (await registeredRoutes()).filter((route) => route.method === 'POST' && route.url.startsWith('/portal/'));
    server = await startServer({ store });
    org = server.init.organization_token;
    env = server.init.environment_key;
    await server.core.portalUsers.create(org, { email: 'owner@example.com', role: 'owner', password: PASSWORD });
    const teammate = await server.core.portalUsers.create(org, { email: 'dev@example.com', role: 'developer', password: PASSWORD });
    const api = server.client;
    const created = async (path: string, body: unknown, pick: (json: any) => string) => {
      const res = await api.sendJson('POST', path, body);
      expect(res.status, res.text).toBeLessThan(300);
      return pick(res.json());
    };
    const gateway = await created('/v1/gateways.json', { gateway: { gateway_type: 'test' } }, (j) => j.gateway.token);
    Object.assign(param, {
      e: env,
      environments: env,
      gateways: gateway,
      receivers: await created('/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: 'https://api.example.com' } }, (j) => j.receiver.token),
      certificates: await created('/v1/certificates/generate.json', { certificate: { cn: 'inactive.example' } }, (j) => j.certificate.token),
      'payment-methods': await created('/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'Joe', last_name: 'Jones', number: VISA, month: 3, year: 2032 } } }, (j) => j.transaction.payment_method.token),
      workflows: await created('/v1/workflows.json', { workflow: { key: 'main', name: 'Main', default_target: { gateway_token: gateway } } }, (j) => j.workflow.key),
      secrets: (await server.core.tenancy.createAccessSecret(org, { name: 'ci', role: 'read', environmentKeys: [env] })).accessSecret.key,
      team: teammate.user.token,
    });
    owner = new PortalClient(server.client);
    await owner.signIn('owner@example.com', PASSWORD);
    await server.core.tenancy.setOrganizationActive(org, false);
  });
  afterAll(() => server.close());

  /** The route's path with each `:param` filled from the segment before it. */
  const pathOf = (url: string) => url.replace(/([^/]+)\/:[A-Za-z]+/g, (_match, segment: string) => `${segment}/${param[segment] ?? 'x'}`);

  /** Every row of every table but the volatile ones, as text (`last_used_at` is written off the request path). */
  async function snapshot(): Promise<string> {
    const db = server.core.store.db;
    const tables = server.core.store.dialect === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() order by 1`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by 1`.execute(db);
    const dump: Record<string, unknown[]> = {};
    for (const { name } of tables.rows) {
      if (VOLATILE_TABLES.has(name)) continue;
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db);
      dump[name] = rows.rows.map(({ last_used_at: _ignored, ...row }) => JSON.stringify(row)).sort();
    }
    return JSON.stringify(dump);
  }

  it('refuses every other POST route of the portal with the API’s 402 and reason, and changes nothing', async () => {
    const refused = postRoutes.filter((route) => !stillAllowed(route));
    expect(refused.length).toBeGreaterThan(20);
    await owner.get(`/portal/e/${env}/secrets`);
    const before = await snapshot();
    // A form that every handler would act on, had it run.
    const form = { name: 'changed', description: 'changed', role: 'admin', scope: 'organization', email: 'new@example.com', gateway_type: 'test', receiver_type: 'test', hostnames: 'https://evil.example', cn: 'changed.example', allowed_origins: 'https://evil.example', enhanced_iframe_security: 'true', key: 'hijack', default_target: param.gateways as string, retry_mode: 'none', rules: '[]' };
    for (const route of refused) {
      const res = await owner.post(pathOf(route.url), form);
      expect(res.status, route.url).toBe(402);
      expect(res.text, route.url).toContain(MESSAGES.organizationInactive);
    }
    expect(await snapshot()).toBe(before);
    // The same reason the API gives.
    const api = await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } });
    expect(api.status).toBe(402);
    expect(api.json().errors[0]).toMatchObject({ key: 'errors.account_inactive', message: MESSAGES.organizationInactive });
  });

  it('still lets people read, sign in and out, look after their own account, and revoke an access secret', async () => {
    const allowed = postRoutes.filter(stillAllowed).map((route) => route.url).sort();
    expect(allowed).toEqual(['/portal/account/password', '/portal/account/totp/confirm', '/portal/account/totp/disable', '/portal/account/totp/start', '/portal/e/:env/payment-methods/lookup', '/portal/e/:env/payment-methods/search', '/portal/e/:env/secrets/:key/revoke', '/portal/e/:env/transactions/search', '/portal/e/:env/workflows/:key/explain', '/portal/invitations/:secret', '/portal/organizations/switch', '/portal/sign-in', '/portal/sign-in/code', '/portal/sign-out']);
    const developer = new PortalClient(server.client);
    expect((await developer.signIn('dev@example.com', PASSWORD)).status).toBe(303);
    expect((await developer.get(`/portal/e/${env}/gateways/${param.gateways}`)).status).toBe(200);
    await developer.get('/portal/account');
    expect((await developer.post('/portal/account/totp/start', {})).status).toBe(200);
    expect((await developer.post('/portal/account/password', { current_password: PASSWORD, new_password: 'another long password', confirm_password: 'another long password' })).status).toBe(303);

    await owner.get(`/portal/e/${env}/secrets`);
    expect((await owner.post(`/portal/e/${env}/secrets/${param.secrets}/revoke`, {})).status).toBe(303);
    expect((await server.core.tenancy.findAccessSecret(param.secrets as string))?.revokedAt).not.toBeNull();
    expect((await owner.post('/portal/sign-out', {})).status).toBe(303);
    expect((await owner.get(`/portal/e/${env}/secrets`)).status).toBe(303);
  });

  it('answers as before once the organization is active again', async () => {
    await server.core.tenancy.setOrganizationActive(org, true);
    const again = new PortalClient(server.client);
    await again.signIn('owner@example.com', PASSWORD);
    await again.get(`/portal/e/${env}/gateways`);
    expect((await again.post(`/portal/e/${env}/gateways/${param.gateways}`, { description: 'active again' })).status).toBe(303);
    expect((await server.client.get(`/v1/gateways/${param.gateways}.json`)).json().gateway.description).toBe('active again');
  });
});
