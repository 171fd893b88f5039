import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PortalRole } from '../../src/domain/portal-roles.js';
import type { Role } from '../../src/domain/tenancy.js';
import type { ApiClient } from '../helpers/client.js';
import { fieldValue, PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * Which access secrets each portal role may create and revoke, through the real HTTP portal
 * (docs/portal.md, "Access secrets a role may create"): every portal role × every secret role ×
 * a test environment, a production one and the whole organization, both for creating and for
 * revoking; a refused attempt changes nothing and is not audited. Then what it means in the API:
 * no secret a developer can obtain creates a workflow or touches production payment methods.
 */

const PASSWORD = 'correct horse battery';
const VISA = '4111111111111111';
type Where = 'test' | 'production' | 'organization';
const WHERE: readonly Where[] = ['test', 'production', 'organization'];
const SECRET_ROLES: readonly Role[] = ['read', 'transact', 'admin'];
const PORTAL_ROLES: readonly PortalRole[] = ['owner', 'admin', 'developer', 'viewer'];
const EVERYTHING = SECRET_ROLES.flatMap((role) => WHERE.map((where) => `${role} ${where}`));

/** The documented matrix, written out (not computed from the rule under test). */
const MAY: Record<PortalRole, readonly string[]> = {
  owner: EVERYTHING,
  admin: EVERYTHING,
  developer: ['read test', 'read production', 'transact test'],
  viewer: [],
};

const cases = PORTAL_ROLES.flatMap((portalRole) =>
  SECRET_ROLES.flatMap((secretRole) => WHERE.map((where) => ({ portalRole, secretRole, where, allowed: MAY[portalRole].includes(`${secretRole} ${where}`) }))),
);
const label = (c: (typeof cases)[number]) => `${c.portalRole} ${c.allowed ? 'may' : 'may not'} ${c.secretRole} ${c.where === 'organization' ? 'for all environments' : `in a ${c.where} environment`}`;

describe('access secrets a portal role may create and revoke (sqlite)', () => {
  let server: TestServer;
  let org: string;
  const envOf: Record<'test' | 'production', string> = { test: '', production: '' };
  const portal = {} as Record<PortalRole, PortalClient>;
  let counter = 0;

  beforeAll(async () => {
    server = await startServer();
    org = server.init.organization_token;
    envOf.test = server.init.environment_key;
    envOf.production = (await server.core.tenancy.createEnvironment(org, 'live', true)).key;
    // About grants, not two-step: a production environment would otherwise require it of every member (docs/compliance.md).
    await server.core.peoplePolicy.setTwoStep({ type: 'operator', id: 'cli', address: null }, org, false);
    for (const role of PORTAL_ROLES) {
      await server.core.portalUsers.create(org, { email: `${role}@example.com`, role, password: PASSWORD });
      portal[role] = new PortalClient(server.client);
      await portal[role].signIn(`${role}@example.com`, PASSWORD);
    }
  });
  afterAll(() => server.close());

  const pageEnvironment = (where: Where) => envOf[where === 'production' ? 'production' : 'test'];
  const environmentKeys = (where: Where) => (where === 'organization' ? null : [pageEnvironment(where)]);
  const liveSecrets = async () => (await server.core.tenancy.listAccessSecrets(org)).filter((row) => row.revokedAt === null);
  /** Keys only: `last_used_at` is written off the request path and may move under the test. */
  const liveKeys = async () => (await liveSecrets()).map((row) => row.key);
  const auditOf = async (portalRole: PortalRole) => server.core.audit.list(org, { count: 100, actor: `${portalRole}@example.com` });
  const api = (environmentKey: string, secret: string): ApiClient => server.client.withAuth({ user: environmentKey, password: secret });
  const refusal = (c: (typeof cases)[number], action: 'create' | 'revoke') =>
    c.portalRole === 'viewer'
      ? 'Your role (viewer) does not allow this.'
      : `Your role (${c.portalRole}) cannot ${action} ${c.secretRole === 'admin' ? 'an' : 'a'} ${c.secretRole} access secret ${c.where === 'organization' ? 'for all environments' : `for a ${c.where} environment`}: such a secret can `;

  /** The role options of the page's new-secret form, and whether it offers the organization-wide scope. */
  function formOffer(page: string): { roles: string[]; organizationWide: boolean } {
    const select = /<select id="secret-role" name="role">([\s\S]*?)<\/select>/.exec(page)?.[1] ?? '';
    return { roles: [...select.matchAll(/<option value="([a-z]+)"/g)].map((m) => m[1] as string), organizationWide: page.includes('<option value="organization">') };
  }

  it.each(cases)('creating: $portalRole, $secretRole, $where', async (c) => {
    const client = portal[c.portalRole];
    const env = pageEnvironment(c.where);
    const offer = formOffer((await client.get(`/portal/e/${env}/secrets`)).text);
    const offered = offer.roles.includes(c.secretRole) && (c.where !== 'organization' || offer.organizationWide);
    expect(offered, `${label(c)}: the form offers it`).toBe(c.allowed);

    const before = await liveKeys();
    const audited = (await auditOf(c.portalRole)).length;
    const name = `made-${(counter += 1)}`;
    const res = await client.post(`/portal/e/${env}/secrets`, { name, role: c.secretRole, ...(c.where === 'organization' ? { scope: 'organization' } : {}) });
    if (c.allowed) {
      expect(res.status, label(c)).toBe(201);
      const made = (await liveSecrets()).find((row) => row.name === name);
      expect(made?.role).toBe(c.secretRole);
      expect(made?.environmentKeys).toEqual(environmentKeys(c.where));
      const entry = (await auditOf(c.portalRole))[0];
      expect(entry).toMatchObject({ action: 'access_secret.create', objectId: made?.key });
      expect(entry?.details).toEqual({ name, role: c.secretRole, scope: c.where === 'organization' ? 'organization' : 'environment' });
      // The secret shown works against the API where it was meant to.
      expect((await api(env, fieldValue(res.text, 'access-secret') as string).get('/v1/gateways.json')).status).toBe(200);
    } else {
      expect(res.status, label(c)).toBe(403);
      expect(res.text).toContain(refusal(c, 'create'));
      expect(await liveKeys()).toEqual(before);
      expect((await auditOf(c.portalRole)).length).toBe(audited);
    }
  });

  it.each(cases)('revoking: $portalRole, $secretRole, $where', async (c) => {
    const client = portal[c.portalRole];
    const env = pageEnvironment(c.where);
    const target = await server.core.tenancy.createAccessSecret(org, { name: `target-${(counter += 1)}`, role: c.secretRole, environmentKeys: environmentKeys(c.where) });
    const action = `/portal/e/${env}/secrets/${target.accessSecret.key}/revoke`;
    expect((await client.get(`/portal/e/${env}/secrets`)).text.includes(`action="${action}"`), `${label(c)}: the page offers to revoke it`).toBe(c.allowed);

    const audited = (await auditOf(c.portalRole)).length;
    const res = await client.post(action, {});
    const still = (await api(env, target.secret).get('/v1/gateways.json')).status;
    if (c.allowed) {
      expect(res.status, label(c)).toBe(303);
      expect(still).toBe(401);
      expect((await auditOf(c.portalRole))[0]).toMatchObject({ action: 'access_secret.revoke', objectId: target.accessSecret.key });
    } else {
      expect(res.status, label(c)).toBe(403);
      expect(res.text).toContain(refusal(c, 'revoke'));
      expect(still).toBe(200);
      expect((await server.core.tenancy.findAccessSecret(target.accessSecret.key))?.revokedAt).toBeNull();
      expect((await auditOf(c.portalRole)).length).toBe(audited);
    }
  });

  it('judges a secret limited to several environments by the strictest of them', async () => {
    const both = [envOf.test, envOf.production];
    const read = await server.core.tenancy.createAccessSecret(org, { name: 'read-both', role: 'read', environmentKeys: both });
    const transact = await server.core.tenancy.createAccessSecret(org, { name: 'transact-both', role: 'transact', environmentKeys: both });
    const refused = await portal.developer.post(`/portal/e/${envOf.test}/secrets/${transact.accessSecret.key}/revoke`, {});
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Your role (developer) cannot revoke a transact access secret for a production environment');
    expect((await api(envOf.test, transact.secret).get('/v1/gateways.json')).status).toBe(200);
    expect((await portal.developer.post(`/portal/e/${envOf.test}/secrets/${read.accessSecret.key}/revoke`, {})).status).toBe(303);
    expect((await api(envOf.test, read.secret).get('/v1/gateways.json')).status).toBe(401);
  });

  it.each([
    [{ role: 'superuser' }, 'Role is not included in the list'],
    [{ role: 'read', scope: 'galaxy' }, 'Scope is not included in the list'],
  ])('refuses a bad form %o with a 422 page, creating nothing', async (fields, message) => {
    await portal.owner.get(`/portal/e/${envOf.test}/secrets`);
    const before = await liveKeys();
    const res = await portal.owner.post(`/portal/e/${envOf.test}/secrets`, { name: 'bad', ...fields });
    expect(res.status).toBe(422);
    expect(res.text).toContain(message);
    expect(await liveKeys()).toEqual(before);
  });

  it('a refused attempt does not spend the form: the same form still creates what the role may', async () => {
    await portal.developer.get(`/portal/e/${envOf.production}/secrets`);
    const once = portal.developer.once;
    expect((await portal.developer.post(`/portal/e/${envOf.production}/secrets`, { name: 'forged', role: 'transact', _once: once })).status).toBe(403);
    expect((await portal.developer.post(`/portal/e/${envOf.production}/secrets`, { name: 'honest', role: 'read', _once: once })).status).toBe(201);
  });

  describe('what a developer can do through the API with the secrets the portal gives them', () => {
    let gateway: { test: string; production: string };
    let card: { test: string; production: string };
    const obtained: Array<{ what: string; secret: string }> = [];

    beforeAll(async () => {
      const admin = (where: 'test' | 'production') => api(envOf[where], server.init.access_secret);
      const vault = async (where: 'test' | 'production') =>
        (await admin(where).sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'Joe', last_name: 'Jones', number: VISA, month: 3, year: 2032 } } })).json().transaction.payment_method.token as string;
      const addGateway = async (where: 'test' | 'production') => (await admin(where).sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).json().gateway.token as string;
      gateway = { test: await addGateway('test'), production: await addGateway('production') };
      card = { test: await vault('test'), production: await vault('production') };
      // Everything the developer can make, in both environments, at every role and scope offered.
      for (const where of ['test', 'production'] as const) {
        const page = await portal.developer.get(`/portal/e/${envOf[where]}/secrets`);
        for (const role of formOffer(page.text).roles) {
          const res = await portal.developer.post(`/portal/e/${envOf[where]}/secrets`, { name: `dev-${role}-${where}`, role });
          expect(res.status).toBe(201);
          obtained.push({ what: `${role} secret of the ${where} environment`, secret: fieldValue(res.text, 'access-secret') as string });
        }
      }
      expect(obtained.map((o) => o.what)).toEqual(['transact secret of the test environment', 'read secret of the test environment', 'read secret of the production environment']);
    });

    const workflow = (where: 'test' | 'production') => ({ workflow: { key: `hijack-${where}`, name: 'Hijack', default: true, default_target: { gateway_token: gateway[where] } } });

    it('none creates a default workflow in any environment (an owner-made admin secret does)', async () => {
      for (const { what, secret } of obtained) {
        for (const where of ['test', 'production'] as const) {
          const res = await api(envOf[where], secret).sendJson('POST', '/v1/workflows.json', workflow(where));
          expect(res.status, `${what} in ${where}`).toBe(401);
        }
      }
      await portal.owner.get(`/portal/e/${envOf.test}/secrets`);
      const owners = await portal.owner.post(`/portal/e/${envOf.test}/secrets`, { name: 'owner-admin', role: 'admin' });
      expect((await api(envOf.test, fieldValue(owners.text, 'access-secret') as string).sendJson('POST', '/v1/workflows.json', workflow('test'))).status).toBe(201);
    });

    it('none redacts, retains or vaults a payment method of the production environment', async () => {
      for (const { what, secret } of obtained) {
        const live = api(envOf.production, secret);
        expect((await live.request('PUT', `/v1/payment_methods/${card.production}/redact.json`)).status, what).toBe(401);
        expect((await live.request('PUT', `/v1/payment_methods/${card.production}/retain.json`)).status, what).toBe(401);
        expect((await live.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { number: VISA, month: 3, year: 2032 } } })).status, what).toBe(401);
        expect((await live.sendJson('POST', `/v1/gateways/${gateway.production}/purchase.json`, { transaction: { payment_method_token: card.production, amount: 100, currency_code: 'USD' } })).status, what).toBe(401);
      }
      const shown = await api(envOf.production, server.init.access_secret).get(`/v1/payment_methods/${card.production}.json`);
      expect(shown.json().payment_method.storage_state).not.toBe('redacted');
    });

    it('by design, the transact secret of a test environment works on its test cards (integration needs it)', async () => {
      const testSecret = obtained.find((o) => o.what === 'transact secret of the test environment')?.secret as string;
      const res = await api(envOf.test, testSecret).request('PUT', `/v1/payment_methods/${card.test}/redact.json`);
      expect(res.status).toBe(200);
      expect(res.json().transaction.payment_method.storage_state).toBe('redacted');
    });
  });
});
