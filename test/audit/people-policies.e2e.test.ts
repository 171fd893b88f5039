import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { fieldValue, PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery staple';

/**
 * PCI DSS requirement 8 in the portal (docs/compliance.md, "People"): the organization's two-step
 * requirement (on by default once it has a production environment), members inactive past the
 * configured days disabled, lockout and password length as configured; every change audited.
 */
describe.each(storeKinds)('people policies (%s)', (store) => {
  let server: TestServer;
  let clock: ManualClock;
  let org: string;

  beforeAll(async () => {
    clock = new ManualClock(Date.parse('2026-03-10T12:00:00.000Z'));
    server = await startServer({
      store,
      clock,
      env: { COFFER_RATE_LIMITS: '{}', COFFER_PORTAL_INACTIVE_DAYS: '30', COFFER_PORTAL_LOCKOUT_FAILURES: '3', COFFER_PORTAL_LOCKOUT_DURATION: '45m', COFFER_PORTAL_PASSWORD_MIN_LENGTH: '16' },
    });
    org = server.init.organization_token;
    await server.core.portalUsers.create(org, { email: 'owner@example.com', role: 'owner', password: PASSWORD });
  });
  afterAll(() => server.close());

  const actions = async () => (await server.core.audit.list(org, { count: 100 })).map((event) => `${event.action} ${event.actor} ${event.details === null ? '' : JSON.stringify(event.details)}`);

  it('requires two-step of every member once the organization has a production environment, unless it says otherwise', async () => {
    expect(await server.core.peoplePolicy.twoStep(org)).toEqual({ required: false, source: 'default' });
    const owner = new PortalClient(server.client);
    expect((await owner.signIn('owner@example.com', PASSWORD)).status).toBe(303);
    expect((await owner.get('/portal/environments')).status).toBe(200);

    await server.core.tenancy.createEnvironment(org, 'live', true);
    expect(await server.core.peoplePolicy.twoStep(org)).toEqual({ required: true, source: 'default' });
    // Without a second factor, every page leads to the account page, and changes are refused.
    const sent = await owner.get('/portal/environments');
    expect(sent.status).toBe(303);
    expect(sent.headers.location).toBe('/portal/account?done=two_step_required');
    const account = await owner.get('/portal/account?done=two_step_required');
    expect(account.status).toBe(200);
    expect(account.text).toContain('requires two-step verification');
    const change = await owner.post('/portal/team', { email: 'new@example.com', role: 'viewer' });
    expect(change.status).toBe(403);
    expect(change.text).toContain('requires two-step verification');

    // Once set up, the pages open again.
    const setup = await owner.post('/portal/account/totp/start', {});
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(fieldValue(setup.text, 'totp-secret') as string) });
    expect((await owner.post('/portal/account/totp/confirm', { code: totp.generate({ timestamp: clock.now().getTime() }) })).status).toBe(303);
    expect((await owner.get('/portal/team')).status).toBe(200);

    // The owner turns the requirement off, then back to the default; both audited.
    expect((await owner.post('/portal/team/two-step', { required: 'off' })).status).toBe(303);
    expect(await server.core.peoplePolicy.twoStep(org)).toEqual({ required: false, source: 'organization' });
    expect((await owner.post('/portal/team/two-step', { required: 'sideways' })).status).toBe(422);
    expect((await owner.post('/portal/team/two-step', { required: 'default' })).status).toBe(303);
    expect(await server.core.peoplePolicy.twoStep(org)).toEqual({ required: true, source: 'default' });
    const recorded = await actions();
    expect(recorded).toContain('organization.two_step_policy owner@example.com {"required":false,"source":"organization"}');
    expect(recorded).toContain('organization.two_step_policy owner@example.com {"required":true,"source":"default"}');
    await server.core.peoplePolicy.setTwoStep({ type: 'operator', id: 'cli', address: null }, org, false);
  });

  it('disables members inactive past the configured days, at the next sign-in, and audits it', async () => {
    await server.core.portalUsers.create(org, { email: 'idle@example.com', role: 'developer', password: PASSWORD });
    await server.core.portalUsers.create(org, { email: 'busy@example.com', role: 'developer', password: PASSWORD });
    const busy = new PortalClient(server.client);
    clock.advance(20 * 86_400_000);
    expect((await busy.signIn('busy@example.com', PASSWORD)).status).toBe(303);
    clock.advance(15 * 86_400_000);
    // idle: added 35 days ago, never signed in; busy: signed in 15 days ago.
    const idle = await new PortalClient(server.client).signIn('idle@example.com', PASSWORD);
    expect(idle.status).toBe(401);
    const members = await server.core.portalUsers.list(org);
    expect(members.find((member) => member.email === 'idle@example.com')?.disabledAt).not.toBeNull();
    expect(members.find((member) => member.email === 'busy@example.com')?.disabledAt).toBeNull();
    expect((await actions()).find((line) => line.startsWith('user.disable coffer'))).toContain('"reason":"inactive"');
    // Enabled again by an owner: inactivity counts from then, so the next sweep leaves it alone.
    const idleMember = members.find((member) => member.email === 'idle@example.com')?.token as string;
    await server.core.portalUsers.setDisabled(idleMember, false);
    expect(await server.core.peoplePolicy.disableInactive()).toBe(0);
    expect((await new PortalClient(server.client).signIn('idle@example.com', PASSWORD)).status).toBe(303);
  });

  it('locks after the configured failures for the configured time, and refuses passwords shorter than configured', async () => {
    await server.core.portalUsers.create(org, { email: 'target@example.com', role: 'viewer', password: PASSWORD });
    for (let i = 0; i < 3; i += 1) expect((await new PortalClient(server.client).signIn('target@example.com', 'wrong password entirely')).status).toBe(401);
    expect((await new PortalClient(server.client).signIn('target@example.com', PASSWORD)).status).toBe(401);
    const lock = (await actions()).find((line) => line.startsWith('user.lock target@example.com'));
    expect(lock).toContain('"failures":3');
    clock.advance(44 * 60_000);
    expect((await new PortalClient(server.client).signIn('target@example.com', PASSWORD)).status).toBe(401);
    clock.advance(2 * 60_000);
    expect((await new PortalClient(server.client).signIn('target@example.com', PASSWORD)).status).toBe(303);
    await expect(server.core.portalUsers.create(org, { email: 'short@example.com', role: 'viewer', password: 'fifteen chars!!' })).rejects.toThrow('minimum is 16 characters');
  });
});
