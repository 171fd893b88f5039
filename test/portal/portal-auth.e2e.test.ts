import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { fieldValue, PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';

describe.each(storeKinds)('portal sign-in, sessions and CSRF (%s)', (store) => {
  let server: TestServer;
  let clock: ManualClock;
  let org: string;

  beforeAll(async () => {
    clock = new ManualClock();
    server = await startServer({
      store,
      clock,
      env: { COFFER_RATE_LIMITS: JSON.stringify({ '*': null, portal_sign_in_account: { limit: 5, window_seconds: 900 } }) },
    });
    org = server.init.organization_token;
    await server.core.portalUsers.create(org, { email: 'Owner@Example.com', role: 'owner', password: PASSWORD });
  });
  afterAll(() => server.close());

  const portal = () => new PortalClient(server.client);

  it('serves pages with a strict CSP, no framing, no-store, and sends strangers to sign-in', async () => {
    const res = await portal().get('/portal/environments');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/portal/sign-in');
    const page = await portal().get('/portal/sign-in');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(page.text).toContain('<label for="email">Email</label>');
  });

  it('signs in (email in any case) with an HttpOnly, Secure, SameSite=Strict session cookie, and signs out', async () => {
    const client = portal();
    const res = await client.signIn('owner@example.COM', PASSWORD);
    expect(res.status).toBe(303);
    expect(res.headers['set-cookie']).toMatch(/coffer_session=[^;]+; Path=\/portal; HttpOnly; Secure; SameSite=Strict/);
    const home = await client.get('/portal/environments');
    expect(home.status).toBe(200);
    expect(home.text).toContain('owner@example.com');
    const out = await client.post('/portal/sign-out', {});
    expect(out.status).toBe(303);
    expect((await client.get('/portal/environments')).status).toBe(303);
  });

  it.each([
    ['a wrong password', 'owner@example.com', 'not the password'],
    ['an unknown email', 'nobody@example.com', PASSWORD],
  ])('%s: 401 saying only "Invalid email or password"', async (_case, email, password) => {
    const res = await portal().signIn(email, password);
    expect(res.status).toBe(401);
    expect(res.text).toContain('Invalid email or password');
    expect(res.headers['set-cookie'] ?? '').not.toContain('coffer_session=');
  });

  it('refuses a disabled user with the same message, and ends its sessions', async () => {
    const { user } = await server.core.portalUsers.create(org, { email: 'gone@example.com', role: 'developer', password: PASSWORD });
    const client = portal();
    expect((await client.signIn('gone@example.com', PASSWORD)).status).toBe(303);
    await server.core.portalUsers.setDisabled(user.token, true);
    expect((await client.get('/portal/environments')).status).toBe(303);
    const again = await portal().signIn('gone@example.com', PASSWORD);
    expect(again.status).toBe(401);
    expect(again.text).toContain('Invalid email or password');
  });

  it('refuses the sign-in form without its CSRF token', async () => {
    const client = portal();
    await client.get('/portal/sign-in');
    const res = await client.post('/portal/sign-in', { _csrf: 'forged', email: 'owner@example.com', password: PASSWORD });
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie'] ?? '').not.toContain('coffer_session=');
  });

  it('refuses a signed-in form without or with a wrong CSRF token, and changes nothing', async () => {
    const client = portal();
    await client.signIn('owner@example.com', PASSWORD);
    for (const token of [null, 'x'.repeat(43)]) {
      const res = await client.post('/portal/environments', { _csrf: token, name: 'csrf-victim' });
      expect(res.status).toBe(403);
      expect(res.text).toContain('The form has expired');
    }
    const list = await server.core.tenancy.listEnvironments(org, { sinceToken: null, order: 'asc', count: 100 });
    expect(list.map((env) => env.name)).not.toContain('csrf-victim');
  });

  it('limits sign-in attempts per account (429 with Retry-After), right password included', async () => {
    await server.core.portalUsers.create(org, { email: 'limited@example.com', role: 'viewer', password: PASSWORD });
    for (let i = 0; i < 5; i += 1) expect((await portal().signIn('limited@example.com', 'wrong password!')).status).toBe(401);
    const blocked = await portal().signIn('limited@example.com', PASSWORD);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.text).toContain('Too many sign-in attempts');
    clock.advance(901_000);
    expect((await portal().signIn('limited@example.com', PASSWORD)).status).toBe(303);
  });

  it('ends a session after 15 idle minutes (PCI DSS 8.2.8, the default), and after 12 hours however active', async () => {
    const client = portal();
    await client.signIn('owner@example.com', PASSWORD);
    clock.advance(14 * 60_000);
    expect((await client.get('/portal/environments')).status).toBe(200);
    clock.advance(15 * 60_000);
    expect((await client.get('/portal/environments')).status).toBe(303);

    const busy = portal();
    expect((await busy.signIn('owner@example.com', PASSWORD)).status).toBe(303);
    // A request every 10 minutes for 11 h 50 min, then the twelfth hour ends it.
    for (let step = 0; step < 71; step += 1) {
      clock.advance(10 * 60_000);
      expect((await busy.get('/portal/environments')).status).toBe(200);
    }
    clock.advance(10 * 60_000);
    expect((await busy.get('/portal/environments')).status).toBe(303);
  });

  it('enrols TOTP, then asks for the code at sign-in (wrong code 401, right code signs in)', async () => {
    await server.core.portalUsers.create(org, { email: 'totp@example.com', role: 'developer', password: PASSWORD });
    const client = portal();
    await client.signIn('totp@example.com', PASSWORD);
    await client.get('/portal/account');
    const setup = await client.post('/portal/account/totp/start', {});
    const secret = fieldValue(setup.text, 'totp-secret') as string;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    expect((await client.post('/portal/account/totp/confirm', { code: '000000' === totp.generate({ timestamp: clock.now().getTime() }) ? '111111' : '000000' })).status).toBe(422);
    const on = await client.post('/portal/account/totp/confirm', { code: totp.generate({ timestamp: clock.now().getTime() }) });
    expect(on.status).toBe(303);
    // The code that turned it on is spent: sign-in takes the next one.
    clock.advance(30_000);

    const next = portal();
    const step = await next.signIn('totp@example.com', PASSWORD);
    expect(step.headers.location).toBe('/portal/sign-in/code');
    // Pending the code, no page but the code form opens.
    expect((await next.get('/portal/environments')).headers.location).toBe('/portal/sign-in/code');
    await next.get('/portal/sign-in/code');
    const before = next.cookie('coffer_session');
    expect((await next.post('/portal/sign-in/code', { code: 'abcdef' })).status).toBe(401);
    const done = await next.post('/portal/sign-in/code', { code: totp.generate({ timestamp: clock.now().getTime() }) });
    expect(done.status).toBe(303);
    // A new session id once the second factor is given (no fixation of the pending one).
    expect(next.cookie('coffer_session')).not.toBe(before);
    expect((await next.get('/portal/environments')).status).toBe(200);
  });

  it('removes sessions past their absolute expiry at the next sign-in', async () => {
    await portal().signIn('owner@example.com', PASSWORD);
    const count = async () => Number((await server.core.store.db.selectFrom('portal_sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expect(await count()).toBeGreaterThan(0);
    clock.advance(13 * 3_600_000);
    const res = await portal().signIn('owner@example.com', PASSWORD);
    expect(res.status, res.text.slice(0, 2000)).toBe(303);
    expect(await count()).toBe(1);
  });

  it('keeps sessions in the database as hashes, never the cookie value', async () => {
    const client = portal();
    await client.signIn('owner@example.com', PASSWORD);
    const cookie = client.cookie('coffer_session') as string;
    const rows = await server.core.store.db.selectFrom('portal_sessions').select(['id_hash']).execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((row) => row.id_hash === cookie)).toBe(false);
  });
});

describe('COFFER_PORTAL=off', () => {
  it('serves no portal', async () => {
    const server = await startServer({ env: { COFFER_PORTAL: 'off' } });
    try {
      const res = await server.client.get('/portal/sign-in', { auth: null });
      // What any path outside the API answers: the API's own 401 (XML, as any suffix-less path's error), no page.
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/xml/);
      expect(res.text).toContain('errors.access_denied');
      // `/` still says what this server is, and that the portal is off (no link to it, no portal assets).
      const home = await server.client.request('GET', '/', { auth: null });
      expect(home.status).toBe(200);
      expect(home.text).toContain('The merchant portal is turned off on this server');
      expect(home.text).not.toContain('href="/portal/');
    } finally {
      await server.close();
    }
  });
});
