import { sql } from 'kysely';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { fieldValue, PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const WRONG = 'not the password at all';

/**
 * docs/portal.md "Lockout": PCI DSS 8.3.4 (locked after at most 10 failures, for at least 30
 * minutes), the per-address budget before it, and unlocking by people (audited) with who may
 * unlock whom. The default sign-in budgets apply; addresses come from X-Forwarded-For behind a
 * trusted proxy.
 */
describe.each(storeKinds)('portal lockout (%s)', (store) => {
  let server: TestServer;
  let clock: ManualClock;
  let org: string;
  let addresses = 0;

  beforeAll(async () => {
    clock = new ManualClock(Date.parse('2026-03-10T12:00:00.000Z'));
    server = await startServer({ store, clock, env: { COFFER_RATE_LIMITS: '{}', COFFER_TRUST_PROXY: '127.0.0.1' } });
    org = server.init.organization_token;
    for (const [email, role] of [['owner@example.com', 'owner'], ['owner2@example.com', 'owner'], ['admin@example.com', 'admin'], ['viewer@example.com', 'viewer']] as const) {
      await server.core.portalUsers.create(org, { email, role, password: PASSWORD });
    }
  });
  afterAll(() => server.close());

  /** A browser at an address of its own. */
  const from = (address = `10.1.${Math.floor((addresses += 1) / 250)}.${addresses % 250}`) => new PortalClient(server.client, { 'X-Forwarded-For': address });
  const memberOf = async (email: string) => (await server.core.portalUsers.list(org)).find((member) => member.email === email)?.token as string;
  const actions = async () => (await server.core.audit.list(org, { count: 100 })).map((event) => `${event.action} ${event.actor} ${event.details === null ? '' : JSON.stringify(event.details)}`);
  /** The page without what differs from one response to the next (the form's token). */
  const normalized = (text: string) => text.replace(/name="_csrf" value="[^"]*"/g, '').replace(/value="[^"]*@example\.com"/g, '');

  /** Ten wrong passwords, two sources of five each (each stays within its own budget). */
  async function lockOut(email: string): Promise<void> {
    for (let source = 0; source < 2; source += 1) {
      const attacker = from();
      for (let i = 0; i < 5; i += 1) expect((await attacker.signIn(email, WRONG)).status).toBe(401);
    }
  }

  async function createUser(email: string, role: string): Promise<void> {
    await server.core.portalUsers.create(org, { email, role, password: PASSWORD });
  }

  it('locks an account after 10 wrong passwords for 30 minutes, right password included, answering as for an unknown email', async () => {
    await createUser('locked@example.com', 'developer');
    await lockOut('locked@example.com');
    const owner = from('10.9.9.9');
    const refused = await owner.signIn('locked@example.com', PASSWORD);
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('Invalid email or password');
    const unknown = await from('10.9.9.8').signIn('nobody@example.com', PASSWORD);
    expect(normalized(refused.text)).toBe(normalized(unknown.text));
    expect(refused.text).toContain('After 10 failed attempts an account is locked for 30 minutes');

    clock.advance(29 * 60_000);
    expect((await from().signIn('locked@example.com', PASSWORD)).status).toBe(401);
    clock.advance(61_000);
    expect((await from().signIn('locked@example.com', PASSWORD)).status).toBe(303);
    const lock = (await actions()).find((a) => a.startsWith('user.lock locked@example.com'));
    expect(lock).toContain('"failures":10');
  });

  it('writes the same for every refused password (unknown email, wrong password, locked), so its time tells nothing', async () => {
    await createUser('timed@example.com', 'viewer');
    /** Row versions of portal_people on PostgreSQL (each UPDATE makes a new one, changed or not). */
    const versions = async () => new Map((await sql<{ token: string; v: string }>`select token, xmin::text as v from portal_people`.execute(server.core.store.db)).rows.map((r) => [r.token, r.v]));
    /** Writes made while a refused sign-in was answered: SQLite's durable commits, PostgreSQL's new row versions. */
    const writesOf = async (email: string): Promise<number> => {
      const client = from();
      await client.get('/portal/sign-in');
      let commits = 0;
      const before = store === 'postgres' ? await versions() : null;
      const stop = server.core.store.commits.subscribe((sample) => (commits += sample.batchSize));
      try {
        expect((await client.post('/portal/sign-in', { email, password: WRONG })).status).toBe(401);
      } finally {
        stop();
      }
      if (before === null) return commits;
      const after = await versions();
      return [...after].filter(([token, version]) => before.get(token) !== version).length;
    };
    const wrong = await writesOf('timed@example.com');
    const unknown = await writesOf('nobody@example.com');
    await lockOut('timed@example.com');
    const locked = await writesOf('timed@example.com');
    expect(wrong).toBe(1);
    expect([unknown, locked]).toEqual([wrong, wrong]);
  });

  it('gives each address 5 attempts at an account per 15 minutes (429), so one source alone cannot lock it; the owner elsewhere signs in', async () => {
    const attacker = from();
    for (let i = 0; i < 5; i += 1) expect((await attacker.signIn('owner@example.com', WRONG)).status).toBe(401);
    const throttled = await attacker.signIn('owner@example.com', WRONG);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect((await from().signIn('owner@example.com', PASSWORD)).status).toBe(303);
    // The success cleared the failures: five more from elsewhere do not lock either.
    for (let i = 0; i < 5; i += 1) expect((await from().signIn('owner@example.com', WRONG)).status).toBe(401);
    expect((await from().signIn('owner@example.com', PASSWORD)).status).toBe(303);
  });

  it('counts wrong codes too: at sign-in and when a session tries to turn two-step off', async () => {
    await createUser('coded@example.com', 'developer');
    const client = from();
    await client.signIn('coded@example.com', PASSWORD);
    await client.get('/portal/account');
    const setup = await client.post('/portal/account/totp/start', {});
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(fieldValue(setup.text, 'totp-secret') as string) });
    await client.post('/portal/account/totp/confirm', { code: totp.generate({ timestamp: clock.now().getTime() }) });
    clock.advance(30_000);
    // A session that got in (a stolen one, say): it guesses codes to turn two-step off.
    const thief = from();
    await thief.signIn('coded@example.com', PASSWORD);
    await thief.get('/portal/sign-in/code');
    expect((await thief.post('/portal/sign-in/code', { code: totp.generate({ timestamp: clock.now().getTime() }) })).status).toBe(303);
    const wrong = totp.generate({ timestamp: clock.now().getTime() - 3_600_000 });
    await thief.get('/portal/account');
    for (let i = 0; i < 3; i += 1) expect((await thief.post('/portal/account/totp/disable', { code: wrong })).status).toBe(422);
    // Its address's budget for the account is spent (with the sign-in's two attempts): 429.
    expect((await thief.post('/portal/account/totp/disable', { code: wrong })).status).toBe(429);
    // Seven wrong codes at sign-in from elsewhere (the password was right) make ten failures.
    for (const codes of [4, 3]) {
      const pending = from();
      expect((await pending.signIn('coded@example.com', PASSWORD)).headers.location).toBe('/portal/sign-in/code');
      await pending.get('/portal/sign-in/code');
      for (let i = 0; i < codes; i += 1) expect((await pending.post('/portal/sign-in/code', { code: wrong })).status).toBe(401);
    }
    expect(server.core.portalUsers.lockout.isLocked(await server.core.portalUsers.requireByEmail('coded@example.com'))).toBe(true);
    expect((await from().signIn('coded@example.com', PASSWORD)).status).toBe(401);
    expect((await server.core.portalUsers.requireByEmail('coded@example.com')).totpEnabled).toBe(true);
  });

  it('lets an owner or admin unlock in the portal (audited); an admin cannot unlock an owner, nobody unlocks themselves, a viewer nobody', async () => {
    await createUser('dev-locked@example.com', 'developer');
    const owner = from();
    const admin = from();
    const viewer = from();
    await owner.signIn('owner@example.com', PASSWORD);
    await admin.signIn('admin@example.com', PASSWORD);
    await viewer.signIn('viewer@example.com', PASSWORD);
    await lockOut('dev-locked@example.com');
    await lockOut('owner2@example.com');

    const team = await admin.get('/portal/team');
    expect(team.text).toMatch(/dev-locked@example\.com<\/td>.*?<span class="badge bad">locked<\/span>/s);
    expect(team.text).toContain(`/portal/team/${await memberOf('dev-locked@example.com')}/unlock`);
    expect(team.text).not.toContain(`/portal/team/${await memberOf('owner2@example.com')}/unlock`);

    await viewer.get('/portal/team');
    expect((await viewer.post(`/portal/team/${await memberOf('dev-locked@example.com')}/unlock`, {})).status).toBe(403);
    expect((await admin.post(`/portal/team/${await memberOf('owner2@example.com')}/unlock`, {})).status).toBe(403);
    expect((await admin.post(`/portal/team/${await memberOf('admin@example.com')}/unlock`, {})).status).toBe(403);
    expect((await from().signIn('owner2@example.com', PASSWORD)).status).toBe(401);

    expect((await admin.post(`/portal/team/${await memberOf('dev-locked@example.com')}/unlock`, {})).headers.location).toBe('/portal/team?done=unlocked');
    expect((await from().signIn('dev-locked@example.com', PASSWORD)).status).toBe(303);
    await owner.get('/portal/team');
    expect((await owner.post(`/portal/team/${await memberOf('owner2@example.com')}/unlock`, {})).status).toBe(303);
    expect((await from().signIn('owner2@example.com', PASSWORD)).status).toBe(303);

    const log = await actions();
    expect(log).toContain('user.unlock admin@example.com {"email":"dev-locked@example.com"}');
    expect(log).toContain('user.unlock owner@example.com {"email":"owner2@example.com"}');
  });
});
