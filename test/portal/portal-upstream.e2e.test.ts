import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInMember, type PortalClient } from '../helpers/portal-client.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * The upstream forms of the portal's environment page (docs/portal.md, "Migration from an upstream
 * vault"), with a second Coffer as the upstream: owners and admins set, change and clear the
 * upstream and start the backfill through the same service as the API (same checks, same
 * messages); the secret is never shown again; other roles see the status only and are refused
 * the forms; a form without its CSRF token changes nothing.
 */

const PASSWORD = 'correct horse battery';
const EGRESS = { COFFER_EGRESS_ALLOW: '127.0.0.0/8,::1' };

describe.each(storeKinds)('portal upstream settings (%s)', (store) => {
  let up: TestServer;
  let down: TestServer;
  let upBase: string;
  let downBase: string;
  let env: string;
  let admin: PortalClient;
  let developer: PortalClient;
  const upTokens: string[] = [];

  const form = (overrides: Record<string, string> = {}) => ({ url: upBase, environment_key: up.init.environment_key, access_secret: up.init.access_secret, public_url: downBase, receiver_token: '', ...overrides });
  const stored = () => down.core.upstreams.settings.show(env).then(
    (upstream) => upstream,
    () => undefined,
  );

  beforeAll(async () => {
    up = await startServer({ store, tls: false, env: EGRESS });
    down = await startServer({ store, tls: false, env: EGRESS });
    upBase = up.client.baseUrl.replace('localhost', '127.0.0.1');
    downBase = down.client.baseUrl.replace('localhost', '127.0.0.1');
    env = down.init.environment_key;
    for (const number of ['4111111111111111', '5555555555554444']) {
      const made = await up.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { number, month: 12, year: 2035, first_name: 'Ada', last_name: 'Lovelace' }, retained: true } });
      upTokens.push(made.json().transaction.payment_method.token);
    }
    admin = await signedInMember(down, 'admin@example.com', 'admin', PASSWORD);
    developer = await signedInMember(down, 'dev@example.com', 'developer', PASSWORD);
  }, 60_000);

  afterAll(async () => {
    await down?.close();
    await up?.close();
  });

  it('offers the form to admins and nothing to other roles while no upstream is set', async () => {
    const page = await admin.get(`/portal/environments/${env}`);
    expect(page.text).toContain('Migration from an upstream vault');
    expect(page.text).toContain('Set upstream');
    expect((await developer.get(`/portal/environments/${env}`)).text).not.toContain('Migration from an upstream vault');
  });

  it('refuses what the API refuses, with its messages, keeping nothing', async () => {
    await admin.get(`/portal/environments/${env}`);
    const wrong = await admin.post(`/portal/environments/${env}/upstream`, form({ access_secret: 'not-the-secret' }));
    expect(wrong.status).toBe(422);
    expect(wrong.text).toContain('The upstream refused this environment key and access secret.');
    expect(wrong.text).not.toContain('not-the-secret');
    const unreachable = await admin.post(`/portal/environments/${env}/upstream`, form({ url: 'http://127.0.0.1:1' }));
    expect(unreachable.status).toBe(502);
    expect(unreachable.text).toContain('upstream');
    const blank = await admin.post(`/portal/environments/${env}/upstream`, form({ url: '', public_url: 'not a url' }));
    expect(blank.status).toBe(422);
    expect(blank.text).toContain('Url can&#39;t be blank');
    const receiver = await admin.post(`/portal/environments/${env}/upstream`, form({ receiver_token: 'no spaces allowed' }));
    expect(receiver.status).toBe(422);
    expect(await stored()).toBeUndefined();
  });

  it('refuses the forms to a developer and without the CSRF token', async () => {
    await developer.get(`/portal/environments/${env}`);
    expect((await developer.post(`/portal/environments/${env}/upstream`, form())).status).toBe(403);
    expect((await admin.post(`/portal/environments/${env}/upstream`, { ...form(), _csrf: null })).status).toBe(403);
    expect(await stored()).toBeUndefined();
  });

  it('sets the upstream, never showing the secret again, and keeps it when the field is left empty', async () => {
    await admin.get(`/portal/environments/${env}`);
    const set = await admin.post(`/portal/environments/${env}/upstream`, form());
    expect(set.status).toBe(303);
    expect(set.headers.location).toBe(`/portal/environments/${env}?upstream=set#migration`);
    const page = await admin.get(`/portal/environments/${env}?upstream=set`);
    expect(page.text).toContain('The upstream was saved.');
    expect(page.text).toContain('Set (never shown again)');
    expect(page.text).not.toContain(up.init.access_secret);
    expect(page.text).toContain('set: leave empty to keep it');
    expect(page.text).toContain(upBase);

    const moved = await admin.post(`/portal/environments/${env}/upstream`, form({ access_secret: '', public_url: `${downBase}/coffer` }));
    expect(moved.status).toBe(303);
    expect((await stored())?.publicUrl).toBe(`${downBase}/coffer`);
    await admin.get(`/portal/environments/${env}`);
    expect((await admin.post(`/portal/environments/${env}/upstream`, form())).status).toBe(303);

    // Other roles see where it pulls from, and no form.
    const seen = await developer.get(`/portal/environments/${env}`);
    expect(seen.text).toContain(upBase);
    expect(seen.text).not.toContain('Start backfill');
    expect(seen.text).not.toContain('name="access_secret"');
    const actions = (await down.core.audit.list(down.init.organization_token, { count: 50 })).filter((event) => event.action === 'environment.upstream_set');
    expect(actions).toHaveLength(3);
    expect(JSON.stringify(actions)).not.toContain(up.init.access_secret);
  });

  it('starts the backfill, which copies every retained card, and says so when one runs already', async () => {
    await admin.get(`/portal/environments/${env}`);
    const started = await admin.post(`/portal/environments/${env}/upstream/backfill`, {});
    expect(started.status).toBe(303);
    expect(started.headers.location).toMatch(/upstream=backfill(_running)?#migration/);
    await down.core.upstreams.backfill.drain();
    for (const token of upTokens) expect((await down.client.get(`/v1/payment_methods/${token}.json`)).status).toBe(200);
    const page = await admin.get(`/portal/environments/${env}`);
    expect(page.text).toMatch(/done: 2 listed, 2 copied, 0 already here/);
    const again = await admin.post(`/portal/environments/${env}/upstream/backfill`, { restart: 'true' });
    expect(again.status).toBe(303);
    await down.core.upstreams.backfill.drain();
    expect((await admin.get(`/portal/environments/${env}`)).text).toMatch(/done: 2 listed, 0 copied, 2 already here/);
  });

  it('clears the upstream', async () => {
    await admin.get(`/portal/environments/${env}`);
    const cleared = await admin.post(`/portal/environments/${env}/upstream/clear`, {});
    expect(cleared.status).toBe(303);
    expect(await stored()).toBeUndefined();
    const page = await admin.get(`/portal/environments/${env}?upstream=cleared`);
    expect(page.text).toContain('The upstream was cleared');
    expect(page.text).toContain('Set upstream');
    // Clearing again: the API's 404, as a page.
    expect((await admin.post(`/portal/environments/${env}/upstream/clear`, {})).status).toBe(404);
  });
});
