import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { fieldValue, PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const VISA = '4111111111111111';

describe.each(storeKinds)('portal gateways, transactions, payment methods, overview, team, certificates, receivers (%s)', (store) => {
  let server: TestServer;
  let clock: ManualClock;
  let env: string;
  let owner: PortalClient;
  let admin: PortalClient;
  let developer: PortalClient;
  let gateway: string;
  let pm: string;
  const purchases: string[] = [];

  const card = async () => {
    const res = await server.client.sendJson('POST', '/v1/payment_methods.json', {
      payment_method: { credit_card: { first_name: 'Joe', last_name: 'Jones', number: VISA, verification_value: '123', month: 3, year: 2032 } },
    });
    return res.json().transaction.payment_method.token as string;
  };
  const purchase = async (amount: number, orderId: string) => {
    const res = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, {
      transaction: { payment_method_token: await card(), amount, currency_code: 'USD', order_id: orderId },
    });
    return res.json().transaction.token as string;
  };

  beforeAll(async () => {
    clock = new ManualClock(Date.parse('2026-03-10T12:00:00.000Z'));
    server = await startServer({ store, clock });
    env = server.init.environment_key;
    const org = server.init.organization_token;
    for (const [email, role] of [['owner@example.com', 'owner'], ['admin@example.com', 'admin'], ['dev@example.com', 'developer']] as const) {
      await server.core.portalUsers.create(org, { email, role, password: PASSWORD });
    }
    await signInAll();
  });

  /** Fresh sessions (moving the clock by days ends the old ones). */
  async function signInAll(): Promise<void> {
    owner = new PortalClient(server.client);
    admin = new PortalClient(server.client);
    developer = new PortalClient(server.client);
    await owner.signIn('owner@example.com', PASSWORD);
    await admin.signIn('admin@example.com', PASSWORD);
    await developer.signIn('dev@example.com', PASSWORD);
  }
  afterAll(() => server.close());

  it('creates a test gateway from its gateways_options fields, shows it, updates and redacts it', async () => {
    const form = await developer.get(`/portal/e/${env}/gateways?type=test`);
    expect(form.text).toContain('<label for="gateway-description">Display name');
    const created = await developer.post(`/portal/e/${env}/gateways`, { gateway_type: 'test', description: 'primary' });
    expect(created.status).toBe(303);
    gateway = /gateways\/([A-Za-z0-9]+)\?/.exec(created.headers.location as string)?.[1] as string;
    expect((await developer.post(`/portal/e/${env}/gateways/${gateway}`, { description: 'renamed' })).status).toBe(303);
    expect((await server.client.get(`/v1/gateways/${gateway}.json`)).json().gateway.description).toBe('renamed');
    const other = await developer.post(`/portal/e/${env}/gateways`, { gateway_type: 'test', description: 'to redact' });
    const otherToken = /gateways\/([A-Za-z0-9]+)\?/.exec(other.headers.location as string)?.[1] as string;
    expect((await developer.post(`/portal/e/${env}/gateways/${otherToken}/redact`, {})).status).toBe(303);
    const shown = await developer.get(`/portal/e/${env}/gateways/${otherToken}`);
    expect(shown.text).toContain('redacted');
    expect(shown.text).not.toContain('Redact this gateway');
  });

  it('refuses a production gateway type in a test environment (402 page, nothing created)', async () => {
    const before = (await server.client.get('/v1/gateways.json')).json().gateways.length;
    const res = await developer.post(`/portal/e/${env}/gateways`, { gateway_type: 'stripe', 'credential.login': 'sk_test_x' });
    expect(res.status).toBe(402);
    expect((await server.client.get('/v1/gateways.json')).json().gateways.length).toBe(before);
  });

  it('searches transactions by order id, token, state, type, gateway and date, pages by keyset', async () => {
    for (let i = 0; i < 3; i += 1) purchases.push(await purchase(1000 + i, `order-${i}`));
    clock.advance(2 * 86_400_000);
    purchases.push(await purchase(2000, 'order-later'));
    await signInAll();
    const byOrder = await owner.get(`/portal/e/${env}/transactions?order_id=order-1`);
    expect(byOrder.text).toContain(purchases[1]);
    expect(byOrder.text).not.toContain(purchases[0]);
    const byToken = await owner.get(`/portal/e/${env}/transactions?token=${purchases[2]}`);
    expect((byToken.text.match(/<tr><td class="nowrap">/g) ?? []).length).toBe(1);
    const purchasesOnly = await owner.get(`/portal/e/${env}/transactions?type=Purchase&state=succeeded&gateway=${gateway}`);
    expect((purchasesOnly.text.match(/<tr><td class="nowrap">/g) ?? []).length).toBe(4);
    expect(purchasesOnly.text).toContain('20.00 USD');
    const early = await owner.get(`/portal/e/${env}/transactions?type=Purchase&from=2026-03-10&to=2026-03-10`);
    expect((early.text.match(/<tr><td class="nowrap">/g) ?? []).length).toBe(3);
    expect(early.text).not.toContain(purchases[3]);
    expect((await owner.get(`/portal/e/${env}/transactions?state=nonsense`)).status).toBe(422);
    expect((await owner.get(`/portal/e/${env}/transactions?from=03/10/2026`)).status).toBe(422);

    // Keyset paging: 50 a page, then "Older transactions" from the last row's seq.
    const all = await owner.get(`/portal/e/${env}/transactions`);
    expect(all.text).not.toContain('Older transactions');
    const olderThanNewest = await owner.get(`/portal/e/${env}/transactions?type=Purchase&before=${await seqOf(purchases[3] as string)}`);
    expect(olderThanNewest.text).not.toContain(purchases[3]);
    expect(olderThanNewest.text).toContain(purchases[2]);
  });

  async function seqOf(token: string): Promise<number> {
    const row = await server.core.store.db.selectFrom('transactions').select('seq').where('token', '=', token).executeTakeFirstOrThrow();
    return row.seq;
  }

  it('shows a transaction with its scrubbed transcript and never a card number', async () => {
    const res = await owner.get(`/portal/e/${env}/transactions/${purchases[0]}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('10.00 USD');
    expect(res.text).toContain('XXXX-XXXX-XXXX-1111');
    expect(res.text).toContain('class="transcript"');
    expect(res.text).not.toContain(VISA);
    expect((await owner.get(`/portal/e/${env}/transactions/unknownToken`)).status).toBe(404);
  });

  it('looks up a payment method (masked), retains and redacts it; a developer may not', async () => {
    pm = await card();
    const lookup = await owner.post(`/portal/e/${env}/payment-methods/lookup`, { token: pm });
    expect(lookup.headers.location).toBe(`/portal/e/${env}/payment-methods/${pm}`);
    // A card number typed by mistake is refused without being shown, and never redirected into a URL.
    const mistaken = await owner.post(`/portal/e/${env}/payment-methods/lookup`, { token: VISA });
    expect(mistaken.status).toBe(422);
    expect(mistaken.headers.location).toBeUndefined();
    expect(mistaken.text).toContain('A full card number cannot be searched for');
    expect(mistaken.text).not.toContain(VISA);
    const shown = await owner.get(lookup.headers.location as string);
    expect(shown.text).toContain('XXXX-XXXX-XXXX-1111');
    expect(shown.text).not.toContain(VISA);
    expect(shown.text).not.toContain('>123<');
    expect((await developer.post(`/portal/e/${env}/payment-methods/${pm}/retain`, {})).status).toBe(403);
    expect((await owner.post(`/portal/e/${env}/payment-methods/${pm}/retain`, {})).status).toBe(303);
    expect((await server.client.get(`/v1/payment_methods/${pm}.json`)).json().payment_method.storage_state).toBe('retained');
    expect((await owner.post(`/portal/e/${env}/payment-methods/${pm}/redact`, {})).status).toBe(303);
    expect((await server.client.get(`/v1/payment_methods/${pm}.json`)).json().payment_method.storage_state).toBe('redacted');
  });

  it('overview: payments and approval per gateway over 24 hours and 30 days, failures, open breakers (page and JSON)', async () => {
    const figures = async (range: string) => {
      const res = await owner.get(`/portal/e/${env}/overview.json?range=${range}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toContain('application/json');
      return res.json().overview;
    };
    const res = await owner.get(`/portal/e/${env}/overview`);
    expect(res.status).toBe(200);
    expect((res.text.match(/<svg class="figure"/g) ?? []).length).toBeGreaterThanOrEqual(1);
    expect(res.text).toContain('No failures last 24 hours.');
    expect(res.text).toContain('None: every gateway is taking requests.');
    expect((await figures('24h')).totals).toMatchObject({ payments: 1, approved: 1, approval_rate: 1 });
    const month = await figures('30d');
    expect(month.totals).toMatchObject({ payments: 4, approved: 4 });
    // The redacted gateway is left out; the one shown goes by the name the merchant gave it.
    expect(month.gateways.map((g: { token: string; name: string }) => [g.token, g.name])).toEqual([[gateway, 'renamed']]);
    expect((await owner.get(`/portal/e/${env}/overview?range=1y`)).status).toBe(422);

    // Five gateway errors in a row (the test gateway's amount 5070) open the breaker.
    const failed: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const res = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: await card(), amount: 5070, currency_code: 'USD' } });
      failed.push(res.json().transaction.token as string);
    }
    const after = await owner.get(`/portal/e/${env}/overview`);
    for (const token of failed) expect(after.text).toContain(token);
    expect(after.text).toContain('breaker open');
    expect(after.text).not.toContain('None: every gateway is taking requests.');
    const day = await figures('24h');
    expect(day.totals).toMatchObject({ payments: 6, approved: 1, breaker_openings: 1 });
    expect(day.gateways[0]).toMatchObject({ breaker_open_now: true, breaker_openings: 1 });
    expect(day.decline_reasons).toEqual([{ code: 'processing_error', count: 5 }]);
    clock.advance(61_000);
    expect((await owner.get(`/portal/e/${env}/overview`)).text).toContain('None: every gateway is taking requests.');

    // An hour later those hours are read from the rollups (filled once), plus the running hour.
    clock.advance(3_600_000);
    await purchase(3000, 'order-next-hour');
    await signInAll();
    expect((await figures('24h')).totals).toMatchObject({ payments: 7, approved: 2, breaker_openings: 1 });
    expect((await figures('30d')).totals).toMatchObject({ payments: 10, approved: 5 });
    const marks = await server.core.store.db.selectFrom('overview_rollup_marks').selectAll().execute();
    expect(marks).toHaveLength(1);
    expect(Date.parse(marks[0]?.complete_until as string) % 3_600_000).toBe(0);
    expect((await owner.get(`/portal/e/${env}/overview.xml`)).status).toBe(404);
    // The client takes its form token from the last page: leave it on one for the next test.
    expect((await owner.get(`/portal/e/${env}/overview?range=30d`)).text).toContain('aria-current="true"><strong>Last 30 days</strong>');
  });

  it('team: an admin invites a developer (who chooses their password), but cannot invite or change owners', async () => {
    await admin.get('/portal/team');
    const added = await admin.post('/portal/team', { email: 'new@example.com', role: 'developer' });
    expect(added.status).toBe(201);
    const link = fieldValue(added.text, 'invitation-link') as string;
    expect(link).toMatch(/\/portal\/invitations\/[A-Za-z0-9_-]{43}$/);
    expect(added.text).not.toContain('one-time-password');
    const joined = new PortalClient(server.client);
    expect((await joined.acceptInvitation(link, { password: PASSWORD, password_again: PASSWORD })).status).toBe(303);
    expect((await joined.get('/portal/team')).text).toContain('new@example.com');
    expect((await new PortalClient(server.client).signIn('new@example.com', PASSWORD)).status).toBe(303);
    // The link worked once, and the team page shows it no more.
    expect((await new PortalClient(server.client).get(new URL(link).pathname)).status).toBe(404);
    expect((await admin.get('/portal/team')).text).not.toContain(new URL(link).pathname);

    expect((await admin.post('/portal/team', { email: 'boss@example.com', role: 'owner' })).status).toBe(403);
    const users = await server.core.portalUsers.list(server.init.organization_token);
    const ownerRow = users.find((u) => u.email === 'owner@example.com');
    const newRow = users.find((u) => u.email === 'new@example.com');
    expect((await admin.post(`/portal/team/${ownerRow?.token}/disable`, {})).status).toBe(403);
    expect((await admin.post(`/portal/team/${newRow?.token}/role`, { role: 'owner' })).status).toBe(403);
    expect((await admin.post(`/portal/team/${newRow?.token}/role`, { role: 'viewer' })).status).toBe(303);
    expect((await server.core.portalUsers.find(newRow?.token as string))?.role).toBe('viewer');
    expect((await developer.post(`/portal/team/${newRow?.token}/disable`, {})).status).toBe(403);
    const adminRow = users.find((u) => u.email === 'admin@example.com');
    expect((await admin.post(`/portal/team/${adminRow?.token}/disable`, {})).status).toBe(403);
    expect((await owner.post(`/portal/team/${newRow?.token}/disable`, {})).status).toBe(303);
    expect((await new PortalClient(server.client).signIn('new@example.com', PASSWORD)).status).toBe(401);
    const actions = (await server.core.audit.list(server.init.organization_token, { count: 50 })).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['user.invite', 'user.join', 'user.role_change', 'user.disable']));
  });

  it('certificates: generates a key pair and CSR, downloads the CSR (no private key anywhere)', async () => {
    await developer.get(`/portal/e/${env}/certificates`);
    const created = await developer.post(`/portal/e/${env}/certificates`, { cn: 'payments.example.com', algorithm: 'ec-prime256v1' });
    expect(created.status).toBe(303);
    const token = /certificates\/([A-Za-z0-9]+)\?/.exec(created.headers.location as string)?.[1] as string;
    const shown = await developer.get(`/portal/e/${env}/certificates/${token}`);
    expect(shown.text).toContain('payments.example.com');
    expect(shown.text).not.toContain('PRIVATE KEY');
    const csr = await developer.get(`/portal/e/${env}/certificates/${token}/csr`);
    expect(csr.headers['content-disposition']).toBe(`attachment; filename="${token}.csr.pem"`);
    expect(csr.text).toContain('-----BEGIN CERTIFICATE REQUEST-----');
    const blank = await developer.post(`/portal/e/${env}/certificates`, { cn: '' });
    expect(blank.status).toBe(422);
  });

  it('receivers: creates a test receiver with a credential (never shown back unless safe) and redacts it', async () => {
    await developer.get(`/portal/e/${env}/receivers`);
    const created = await developer.post(`/portal/e/${env}/receivers`, {
      receiver_type: 'test',
      hostnames: 'https://api.example.com',
      credential_name_0: 'api_key',
      credential_value_0: 'very-secret-value',
      credential_name_1: 'account',
      credential_value_1: 'acct-visible',
      credential_safe_1: 'on',
    });
    expect(created.status).toBe(303);
    const token = /receivers\/([A-Za-z0-9]+)\?/.exec(created.headers.location as string)?.[1] as string;
    const shown = await developer.get(`/portal/e/${env}/receivers/${token}`);
    expect(shown.text).toContain('acct-visible');
    expect(shown.text).not.toContain('very-secret-value');
    expect((await developer.post(`/portal/e/${env}/receivers/${token}/redact`, {})).status).toBe(303);
    expect((await developer.get(`/portal/e/${env}/receivers/${token}`)).text).toContain('redacted');
  });
});
