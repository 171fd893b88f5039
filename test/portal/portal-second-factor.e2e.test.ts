import { storeAccess } from '../../src/store/store-access.js';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PortalUserService } from '../../src/services/portal-users.service.js';
import { PortalSecretBox } from '../../src/vault/portal-secret-box.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { fieldValue, PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';

/**
 * docs/portal.md "Two-step verification": changing or removing the second factor needs a current
 * code and is audited, and a code is accepted once (its time step must be newer than the last
 * accepted one, kept in the store: across nodes and restarts).
 */
describe.each(storeKinds)('portal second factor (%s)', (store) => {
  let server: TestServer;
  let clock: ManualClock;
  let org: string;
  let people = 0;

  beforeAll(async () => {
    clock = new ManualClock(Date.parse('2026-03-10T12:00:00.000Z'));
    server = await startServer({ store, clock });
    org = server.init.organization_token;
  });
  afterAll(() => server.close());

  const codeAt = (totp: OTPAuth.TOTP, offsetMs = 0) => totp.generate({ timestamp: clock.now().getTime() + offsetMs });
  const actions = async () => (await server.core.audit.list(org, { count: 100 })).map((event) => `${event.action} ${event.actor}`);

  /** A new person with two-step on, signed in; the clock moved past the code that turned it on. */
  async function enrolled(): Promise<{ email: string; client: PortalClient; totp: OTPAuth.TOTP }> {
    people += 1;
    const email = `two-step-${people}@example.com`;
    await server.core.portalUsers.create(org, { email, role: 'developer', password: PASSWORD });
    const client = new PortalClient(server.client);
    expect((await client.signIn(email, PASSWORD)).status).toBe(303);
    await client.get('/portal/account');
    const setup = await client.post('/portal/account/totp/start', {});
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(fieldValue(setup.text, 'totp-secret') as string) });
    expect((await client.post('/portal/account/totp/confirm', { code: codeAt(totp) })).status).toBe(303);
    clock.advance(30_000);
    await client.get('/portal/account');
    return { email, client, totp };
  }

  /** Signs in with password and code; the status of the code step. */
  async function signInWithCode(email: string, code: string): Promise<number> {
    const client = new PortalClient(server.client);
    expect((await client.signIn(email, PASSWORD)).headers.location).toBe('/portal/sign-in/code');
    await client.get('/portal/sign-in/code');
    return (await client.post('/portal/sign-in/code', { code })).status;
  }

  it('refuses to set up a new authenticator without a current code: two-step stays on and sign-in still asks for it', async () => {
    const { email, client, totp } = await enrolled();
    for (const code of [null, '000000', 'abcdef']) {
      const res = await client.post('/portal/account/totp/start', code === null ? {} : { code: code === '000000' && codeAt(totp) === '000000' ? '111111' : code });
      expect(res.status).toBe(422);
      expect(res.text).toContain('a current code of your authenticator app is needed');
      expect(fieldValue(res.text, 'totp-secret')).toBeNull();
    }
    const person = await server.core.portalUsers.requireByEmail(email);
    expect(person).toMatchObject({ totpEnabled: true, totpPendingSecret: null });
    expect(await signInWithCode(email, codeAt(totp))).toBe(303);
    expect((await actions()).filter((a) => a.endsWith(email) && a.startsWith('user.totp_'))).toEqual([`user.totp_enable ${email}`]);
  });

  it('changes the authenticator with a current code: the old one works until the new one is confirmed, then never; audited', async () => {
    const { email, client, totp } = await enrolled();
    const started = await client.post('/portal/account/totp/start', { code: codeAt(totp) });
    expect(started.status).toBe(200);
    const next = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(fieldValue(started.text, 'totp-secret') as string) });
    clock.advance(30_000);
    // Not confirmed yet: the app in use still signs in.
    expect(await signInWithCode(email, codeAt(totp))).toBe(303);
    clock.advance(30_000);
    expect((await client.post('/portal/account/totp/confirm', { code: codeAt(next) })).status).toBe(303);
    expect((await client.get('/portal/account?done=totp_changed')).text).toContain('codes of the previous one no longer work');
    clock.advance(30_000);
    expect(await signInWithCode(email, codeAt(totp))).toBe(401);
    expect(await signInWithCode(email, codeAt(next))).toBe(303);
    expect(await actions()).toContain(`user.totp_change ${email}`);
  });

  it('turns two-step off only with a current code, and audits it', async () => {
    const { email, client, totp } = await enrolled();
    for (const code of [null, codeAt(totp, -5 * 60_000)]) {
      const refused = await client.post('/portal/account/totp/disable', code === null ? {} : { code });
      expect(refused.status).toBe(422);
    }
    expect((await server.core.portalUsers.requireByEmail(email)).totpEnabled).toBe(true);
    expect((await client.post('/portal/account/totp/disable', { code: codeAt(totp) })).status).toBe(303);
    expect((await server.core.portalUsers.requireByEmail(email)).totpEnabled).toBe(false);
    expect(await actions()).toContain(`user.totp_disable ${email}`);
    expect((await new PortalClient(server.client).signIn(email, PASSWORD)).headers.location).toBe('/portal/');
  });

  it('accepts a code once: the same code, or one of an earlier step, is refused at the next sign-in', async () => {
    const { email, totp } = await enrolled();
    const code = codeAt(totp);
    expect(await signInWithCode(email, code)).toBe(303);
    expect(await signInWithCode(email, code)).toBe(401);
    // Still within the drift window, but older than the step just used.
    expect(await signInWithCode(email, codeAt(totp, -30_000))).toBe(401);
    clock.advance(30_000);
    expect(await signInWithCode(email, codeAt(totp))).toBe(303);
  });

  it('refuses a code the second time when another node (a second service on the same store) took it first', async () => {
    const { email, totp } = await enrolled();
    const otherNode = new PortalUserService(storeAccess(server.core.store), new PortalSecretBox(server.core.keyring), clock);
    const code = codeAt(totp);
    const person = await server.core.portalUsers.requireByEmail(email);
    const answers = await Promise.all([server.core.portalUsers.checkCode(person, code, null), otherNode.checkCode(person, code, null)]);
    expect(answers.sort()).toEqual([false, true]);
    // And after a "restart" (a third service, nothing in memory): still refused.
    const restarted = new PortalUserService(storeAccess(server.core.store), new PortalSecretBox(server.core.keyring), clock);
    expect(await restarted.checkCode(await restarted.requireByEmail(email), code, null)).toBe(false);
  });
});
