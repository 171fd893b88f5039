import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { fieldValue, PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const SHARED_PASSWORD = 'the shared person own password';

/**
 * docs/portal.md "Accounts and organizations": one person, several organizations (a membership
 * each), signing in once and switching; no answer tells one organization about another's people.
 * Organization A ("Acme") invites; "shared@example.com" already belongs to organization B ("Bravo").
 */
describe.each(storeKinds)('portal memberships across organizations (%s)', (store) => {
  let server: TestServer;
  let clock: ManualClock;
  let orgA: string;
  let orgB: string;
  let envB: string;
  let ownerA: PortalClient;

  beforeAll(async () => {
    clock = new ManualClock(Date.parse('2026-03-10T12:00:00.000Z'));
    server = await startServer({ store, clock });
    orgA = server.init.organization_token;
    const bravo = await server.core.tenancy.createOrganization('Bravo');
    orgB = bravo.token;
    envB = (await server.core.tenancy.createEnvironment(orgB, 'bravo-sandbox', false)).key;
    await server.core.portalUsers.create(orgA, { email: 'owner-a@example.com', role: 'owner', password: PASSWORD });
    await server.core.portalUsers.create(orgB, { email: 'owner-b@example.com', role: 'owner', password: PASSWORD });
    await server.core.portalUsers.create(orgB, { email: 'shared@example.com', role: 'owner', password: SHARED_PASSWORD });
    ownerA = new PortalClient(server.client);
    expect((await ownerA.signIn('owner-a@example.com', PASSWORD)).status).toBe(303);
  });
  afterAll(() => server.close());

  const personOf = (email: string) => server.core.portalUsers.requireByEmail(email);
  const memberIn = async (org: string, email: string) => (await server.core.portalUsers.list(org)).find((m) => m.email === email);

  /** Invites from organization A's team page; the response and the link shown. */
  async function invite(email: string, role = 'developer'): Promise<{ status: number; text: string; link: string }> {
    await ownerA.get('/portal/team');
    const res = await ownerA.post('/portal/team', { email, role });
    return { status: res.status, text: res.text, link: fieldValue(res.text, 'invitation-link') ?? '' };
  }

  /** The answer to an invitation without what differs by construction: the address, tokens and the link. */
  function normalized(text: string, email: string): string {
    return text
      .replaceAll(email, '<email>')
      .replace(/name="(_csrf|_once)" value="[^"]*"/g, 'name="$1"')
      .replace(/\/portal\/invitations\/[A-Za-z0-9_-]+/g, '/portal/invitations/<secret>')
      .replace(/\/portal\/team\/invitations\/[A-Za-z0-9]+\//g, '/portal/team/invitations/<token>/');
  }

  it('answers an invitation the same whether the address has an account in another organization or not, and changes nothing of that account', async () => {
    const before = await personOf('shared@example.com');
    const elsewhere = await invite('shared@example.com');
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.text).not.toContain('already');
    expect(elsewhere.text).not.toContain('Bravo');
    // Cancelled, so that the next answer's list of open invitations is the same as this one's.
    await server.core.portalUsers.invitations.cancel(orgA, (await server.core.portalUsers.invitations.list(orgA))[0]?.token as string);
    const nowhere = await invite('fresh@example.com');
    await server.core.portalUsers.invitations.cancel(orgA, (await server.core.portalUsers.invitations.list(orgA))[0]?.token as string);
    expect(nowhere.status).toBe(201);
    expect(normalized(elsewhere.text, 'shared@example.com')).toBe(normalized(nowhere.text, 'fresh@example.com'));
    // Nothing happened to the person until they accept: no membership in A, same password and lock.
    expect(await memberIn(orgA, 'shared@example.com')).toBeUndefined();
    expect(await personOf('shared@example.com')).toEqual(before);
  });

  it('refuses only an address already in the inviting organization itself', async () => {
    const res = await invite('owner-a@example.com');
    expect(res.status).toBe(422);
    expect(res.text).toContain('Email is already a member of this organization');
  });

  it('lets the invited person with an account elsewhere join only with their own password; the inviting admin cannot set one', async () => {
    const { link } = await invite('shared@example.com');
    const page = await new PortalClient(server.client).get(new URL(link).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('If you already use the Coffer portal with this email, type its password');
    // The admin, holding the link, tries to pick a password: refused, and nothing changes.
    const hijack = await new PortalClient(server.client).acceptInvitation(link, { password: 'admin picked this one', password_again: 'admin picked this one' });
    expect(hijack.status).toBe(401);
    expect(hijack.headers['set-cookie'] ?? '').not.toContain('coffer_session=');
    expect(await memberIn(orgA, 'shared@example.com')).toBeUndefined();
    expect((await new PortalClient(server.client).signIn('shared@example.com', 'admin picked this one')).status).toBe(401);

    const shared = new PortalClient(server.client);
    const joined = await shared.acceptInvitation(link, { password: SHARED_PASSWORD });
    expect(joined.status).toBe(303);
    expect((await memberIn(orgA, 'shared@example.com'))?.role).toBe('developer');
    expect((await memberIn(orgB, 'shared@example.com'))?.role).toBe('owner');
    expect((await shared.get('/portal/team')).text).toContain('owner-a@example.com');
    // Used once.
    expect((await new PortalClient(server.client).acceptInvitation(link, { password: SHARED_PASSWORD })).status).toBe(404);
    const audit = (await server.core.audit.list(orgA, { count: 100 })).map((e) => `${e.action} ${e.actor}`);
    expect(audit).toEqual(expect.arrayContaining(['user.invite owner-a@example.com', 'user.join shared@example.com']));
  });

  it('lets a new person choose their own password through the link (twice the same, long enough)', async () => {
    const { link } = await invite('fresh@example.com', 'viewer');
    const person = new PortalClient(server.client);
    expect((await person.acceptInvitation(link, { password: 'short', password_again: 'short' })).status).toBe(422);
    const differ = await person.acceptInvitation(link, { password: 'my own long password', password_again: 'my own long passwort' });
    expect(differ.status).toBe(422);
    expect(differ.text).toContain('The two passwords differ');
    expect((await person.acceptInvitation(link, { password: 'my own long password', password_again: 'my own long password' })).status).toBe(303);
    expect((await new PortalClient(server.client).signIn('fresh@example.com', 'my own long password')).headers.location).toBe('/portal/');
  });

  it('signs a person of two organizations in once, to the chooser; each session acts in one organization with that role', async () => {
    const client = new PortalClient(server.client);
    expect((await client.signIn('shared@example.com', SHARED_PASSWORD)).headers.location).toBe('/portal/organizations');
    const chooser = await client.get('/portal/organizations');
    expect(chooser.text).toContain('<td>default</td><td>developer</td>');
    expect(chooser.text).toContain('<td>Bravo</td><td>owner</td><td><span class="badge ok">current</span>');
    expect(chooser.text).toContain('id="organization-switch"');
    // In Bravo (owner): its environment and audit log; not Acme's environment.
    expect((await client.get(`/portal/e/${envB}/overview`)).status).toBe(200);
    expect((await client.get('/portal/audit')).status).toBe(200);
    expect((await client.get(`/portal/e/${server.init.environment_key}/overview`)).status).toBe(404);
    const bravoPage = await client.get('/portal/environments');
    const bravoCsrf = client.csrf;

    const switched = await client.post('/portal/organizations/switch', { organization: orgA });
    expect(switched.headers.location).toBe('/portal/');
    expect((await client.get('/portal/')).headers.location).toBe(`/portal/e/${server.init.environment_key}/overview`);
    expect((await client.get(`/portal/e/${envB}/overview`)).status).toBe(404);
    // A developer in Acme: no audit log, no team changes.
    expect((await client.get('/portal/audit')).status).toBe(403);
    // A form of a Bravo page (another tab) cannot act in Acme: the CSRF token changed with the switch.
    expect(bravoPage.text).toContain(bravoCsrf as string);
    const stale = await client.post('/portal/environments', { _csrf: bravoCsrf, name: 'made-from-a-stale-tab' });
    expect(stale.status).toBe(403);
    const names = (await server.core.tenancy.listEnvironments(orgA, { sinceToken: null, order: 'asc', count: 100 })).map((e) => e.name);
    expect(names).not.toContain('made-from-a-stale-tab');
    // Not a member: "not found", whatever the organization.
    await client.get('/portal/organizations');
    expect((await client.post('/portal/organizations/switch', { organization: 'no-such-organization' })).status).toBe(404);
    const acmeLog = (await server.core.audit.list(orgA, { count: 100 })).map((e) => `${e.action} ${e.actor}`);
    expect(acmeLog).toContain('user.sign_in shared@example.com');
  });

  it('keeps each organization to itself: Bravo\'s audit log and team never mention Acme', async () => {
    const bravoLog = JSON.stringify(await server.core.audit.list(orgB, { count: 100 }));
    expect(bravoLog).not.toContain(orgA);
    expect(bravoLog).not.toContain('owner-a@example.com');
    const ownerB = new PortalClient(server.client);
    await ownerB.signIn('owner-b@example.com', PASSWORD);
    const team = await ownerB.get('/portal/team');
    expect(team.text).toContain('shared@example.com');
    expect(team.text).not.toContain('owner-a@example.com');
    expect(team.text).not.toContain('fresh@example.com');
    // A membership token of Acme is "not found" to Bravo's owner.
    const acmeMember = (await memberIn(orgA, 'shared@example.com'))?.token as string;
    expect((await ownerB.post(`/portal/team/${acmeMember}/disable`, {})).status).toBe(404);
  });

  it('removes a member from one organization only: sessions there end, the other membership and the person stay', async () => {
    const inAcme = new PortalClient(server.client);
    await inAcme.signIn('shared@example.com', SHARED_PASSWORD);
    await inAcme.get('/portal/organizations');
    await inAcme.post('/portal/organizations/switch', { organization: orgA });
    expect((await inAcme.get('/portal/environments')).status).toBe(200);

    const member = (await memberIn(orgA, 'shared@example.com'))?.token as string;
    await ownerA.get('/portal/team');
    expect((await ownerA.post(`/portal/team/${member}/remove`, {})).headers.location).toBe('/portal/team?done=member_removed');
    expect((await inAcme.get('/portal/environments')).headers.location).toBe('/portal/sign-in');
    expect(await memberIn(orgA, 'shared@example.com')).toBeUndefined();
    expect((await memberIn(orgB, 'shared@example.com'))?.role).toBe('owner');
    expect((await new PortalClient(server.client).signIn('shared@example.com', SHARED_PASSWORD)).headers.location).toBe('/portal/');
    const acmeLog = (await server.core.audit.list(orgA, { count: 100 })).map((e) => `${e.action} ${e.actor} ${e.details === null ? '' : JSON.stringify(e.details)}`);
    expect(acmeLog).toContain('user.remove owner-a@example.com {"email":"shared@example.com","role":"developer"}');
  });

  it('applies the owner rule per organization: the last owner of one cannot be removed, whatever they are elsewhere', async () => {
    const ownerOfA = (await memberIn(orgA, 'owner-a@example.com'))?.token as string;
    await expect(server.core.portalUsers.remove(ownerOfA)).rejects.toThrow('The last owner cannot be demoted, disabled or removed');
    await expect(server.core.portalUsers.setRole(ownerOfA, 'admin')).rejects.toThrow('The last owner');
    // Bravo has two owners: one of them may go.
    await server.core.portalUsers.remove((await memberIn(orgB, 'owner-b@example.com'))?.token as string);
    expect((await memberIn(orgB, 'shared@example.com'))?.role).toBe('owner');
    // owner-b had no other membership: the person is gone too (no password hash kept for nothing).
    await expect(personOf('owner-b@example.com')).rejects.toThrow('Unable to find the specified user.');
  });

  it('cancels an open invitation: its link stops working; audited', async () => {
    const { link } = await invite('later@example.com');
    const invitation = (await server.core.portalUsers.invitations.list(orgA)).find((i) => i.email === 'later@example.com');
    await ownerA.get('/portal/team');
    expect((await ownerA.post(`/portal/team/invitations/${invitation?.token}/cancel`, {})).headers.location).toBe('/portal/team?done=invitation_cancelled');
    expect((await new PortalClient(server.client).get(new URL(link).pathname)).status).toBe(404);
    const expired = await invite('late@example.com');
    clock.advance(7 * 86_400_000 + 1000);
    expect((await new PortalClient(server.client).get(new URL(expired.link).pathname)).status).toBe(404);
    const acmeLog = (await server.core.audit.list(orgA, { count: 100 })).map((e) => e.action);
    expect(acmeLog).toContain('user.invite_cancel');
  });

  it('takes no new member into a deactivated organization: its invitation links answer 402 with the API\'s reason', async () => {
    const charlie = await server.core.tenancy.createOrganization('Charlie');
    const { secret } = await server.core.portalUsers.invitations.invite(charlie.token, { email: 'shared@example.com', role: 'viewer', invitedBy: 'operator' });
    await server.core.tenancy.setOrganizationActive(charlie.token, false);
    const path = `/portal/invitations/${secret}`;
    const page = await new PortalClient(server.client).get(path);
    expect(page.status).toBe(402);
    expect(page.text).toContain('Your organization has been deactivated');
    const joined = await new PortalClient(server.client).post(path, { password: SHARED_PASSWORD });
    expect(joined.status).toBe(402);
    expect(await memberIn(charlie.token, 'shared@example.com')).toBeUndefined();
  });
});
