import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../helpers/postgres.js';
import { PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';

/*
 * The environment page's card-capture settings (allowed origins, enhanced iFrame security) and
 * certificate redaction: who may, validation as in the v1 API, CSRF, the audit log.
 */
describe.each(storeKinds)('portal card-capture settings and certificate redaction (%s)', (store) => {
  let server: TestServer;
  let env: string;
  let owner: PortalClient;
  let developer: PortalClient;
  let viewer: PortalClient;

  beforeAll(async () => {
    server = await startServer({ store });
    env = server.init.environment_key;
    const org = server.init.organization_token;
    for (const [email, role] of [['owner@example.com', 'owner'], ['dev@example.com', 'developer'], ['viewer@example.com', 'viewer']] as const) {
      await server.core.portalUsers.create(org, { email, role, password: PASSWORD });
    }
    owner = new PortalClient(server.client);
    developer = new PortalClient(server.client);
    viewer = new PortalClient(server.client);
    await owner.signIn('owner@example.com', PASSWORD);
    await developer.signIn('dev@example.com', PASSWORD);
    await viewer.signIn('viewer@example.com', PASSWORD);
  });
  afterAll(() => server.close());

  const environment = () => server.core.tenancy.findEnvironment(server.init.organization_token, env);
  const v1Environment = async () => (await server.client.get(`/v1/environments/${env}.json`)).json().environment;

  it('a developer sets allowed origins (one per line, normalised) and enhanced security; the API and the page show them; audited', async () => {
    const page = await developer.get(`/portal/environments/${env}`);
    expect(page.text).toContain('<label for="env-origins">Allowed origins');
    const saved = await developer.post(`/portal/environments/${env}/card-capture`, {
      allowed_origins: 'https://Shop.Example\r\nhttp://localhost:8080\r\n\r\nhttps://shop.example:443',
      enhanced_iframe_security: 'true',
    });
    expect(saved.status, saved.text).toBe(303);
    expect(saved.headers.location).toBe(`/portal/environments/${env}?done=updated`);
    expect(await v1Environment()).toMatchObject({ allowed_origins: ['https://shop.example', 'http://localhost:8080'], enhanced_iframe_security: true });
    const shown = await developer.get(`/portal/environments/${env}`);
    expect(shown.text).toContain('https://shop.example\nhttp://localhost:8080</textarea>');
    expect(shown.text).toMatch(/id="env-enhanced"[^>]* checked/);
    const events = await server.core.audit.list(server.init.organization_token, { count: 10, actor: 'dev@example.com' });
    expect(events.find((e) => e.action === 'environment.card_capture')).toMatchObject({ objectId: env, environmentKey: env });

    // Unticked and emptied: enhanced security off, any origin.
    await owner.get(`/portal/environments/${env}`);
    expect((await owner.post(`/portal/environments/${env}/card-capture`, { allowed_origins: '' })).status).toBe(303);
    expect(await v1Environment()).toMatchObject({ allowed_origins: [], enhanced_iframe_security: false });
  });

  it('shows the v1 API\'s error for an origin with a path (422) and changes nothing', async () => {
    await owner.get(`/portal/environments/${env}`);
    expect((await owner.post(`/portal/environments/${env}/card-capture`, { allowed_origins: 'https://kept.example' })).status).toBe(303);
    await owner.get(`/portal/environments/${env}`);
    const res = await owner.post(`/portal/environments/${env}/card-capture`, { allowed_origins: 'https://good.example\nhttps://shop.example/checkout', enhanced_iframe_security: 'true' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('Allowed origins must be http(s) origins such as https://shop.example (no path).');
    const row = await environment();
    expect(row.allowedOrigins).toEqual(['https://kept.example']);
    expect(row.enhancedIframeSecurity).toBe(false);
  });

  it('a viewer sees the settings but cannot change them (403), and a forged CSRF token is refused', async () => {
    const page = await viewer.get(`/portal/environments/${env}`);
    expect(page.text).toContain('Enhanced iFrame security');
    expect(page.text).not.toContain('action="/portal/environments/' + env + '/card-capture"');
    const refused = await viewer.post(`/portal/environments/${env}/card-capture`, { allowed_origins: 'https://evil.example' });
    expect(refused.status).toBe(403);
    await developer.get(`/portal/environments/${env}`);
    const forged = await developer.post(`/portal/environments/${env}/card-capture`, { _csrf: 'forged', allowed_origins: 'https://evil.example' });
    expect(forged.status).toBe(403);
    expect((await environment()).allowedOrigins).toEqual(['https://kept.example']);
  });

  it('redacts a certificate after confirmation: key, pem and CSR gone, audited; a viewer may not; twice is a 422', async () => {
    await developer.get(`/portal/e/${env}/certificates`);
    const created = await developer.post(`/portal/e/${env}/certificates`, { cn: 'redact.example', algorithm: 'ec-prime256v1' });
    const token = /certificates\/([A-Za-z0-9]+)\?/.exec(created.headers.location as string)?.[1] as string;
    const shown = await developer.get(`/portal/e/${env}/certificates/${token}`);
    expect(shown.text).toContain('<details class="confirm"><summary>Redact this certificate</summary>');

    await viewer.get(`/portal/e/${env}/certificates/${token}`);
    expect((await viewer.post(`/portal/e/${env}/certificates/${token}/redact`, {})).status).toBe(403);
    expect((await server.core.store.db.selectFrom('certificates').selectAll().where('token', '=', token).executeTakeFirstOrThrow()).redacted_at).toBeNull();

    await developer.get(`/portal/e/${env}/certificates/${token}`);
    const redacted = await developer.post(`/portal/e/${env}/certificates/${token}/redact`, {});
    expect(redacted.status).toBe(303);
    const stored = await server.core.store.db.selectFrom('certificates').selectAll().where('token', '=', token).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ sealed_private_key: '', pem: null, csr: null });
    const after = await developer.get(`/portal/e/${env}/certificates/${token}`);
    expect(after.text).toContain('This certificate was redacted');
    expect(after.text).not.toContain('Redact this certificate');
    expect(after.text).not.toContain('Download CSR');
    expect((await developer.get(`/portal/e/${env}/certificates`)).text).toContain('<td>redacted</td>');
    const events = await server.core.audit.list(server.init.organization_token, { count: 10, actor: 'dev@example.com' });
    expect(events.find((e) => e.action === 'certificate.redact')).toMatchObject({ objectId: token, environmentKey: env });

    const again = await developer.post(`/portal/e/${env}/certificates/${token}/redact`, {});
    expect(again.status).toBe(422);
    expect(again.text).toContain("Unable to use a certificate because it&#39;s been redacted.");
  });
});
