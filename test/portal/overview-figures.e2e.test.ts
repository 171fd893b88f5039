import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const APPROVED = '4111111111111111';
const DECLINED = '4012888888881881';
const APPROVED_MASTER = '5555555555554444';
const DECLINED_MASTER = '5105105105105100';
/** The test gateway answers this amount with a gateway error (a fault the breaker counts). */
const FAULT_AMOUNT = 5070;
const PAYMENT_TYPES = new Set(['Purchase', 'Authorization', 'OffsitePurchase', 'OffsiteAuthorization']);
const FAILED_STATES = new Set(['failed', 'gateway_processing_failed', 'gateway_processing_result_unknown']);

interface Listed {
  token: string;
  transaction_type: string;
  state: string;
  succeeded: boolean;
  gateway_token: string | null;
  message_key?: string | null;
  response?: { error_code: string | null };
  attempts?: Array<{ token: string; failover_reason: string | null }>;
  routed_by?: { workflow_key: string; rule: string | null; gateway_token: string };
}

/**
 * The overview's figures against the API's own transaction list: a mix of approved, declined and
 * faulted payments on two gateways, captures, voids, credits and a verify (not payments), a
 * redacted gateway (left out), a workflow's decisions by rule and a payment a failover rescued.
 * Every number of `overview.json` is recomputed from `GET /v1/transactions` and must agree.
 */
describe.each(storeKinds)('overview figures agree with the API transaction list (%s)', (store) => {
  let server: TestServer;
  let clock: ManualClock;
  let env: string;
  let owner: PortalClient;
  const gateways: Record<'alpha' | 'beta' | 'gone', string> = { alpha: '', beta: '', gone: '' };

  const card = async (number: string) =>
    (await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number, verification_value: '123', month: 3, year: 2032 } } })).json().transaction.payment_method.token as string;
  const transact = async (path: string, body: Record<string, unknown>) => (await server.client.sendJson('POST', path, { transaction: body })).json().transaction as Listed;
  const pay = async (gateway: string, number: string, operation: 'purchase' | 'authorize' = 'purchase', amount = 1000) =>
    transact(`/v1/gateways/${gateway}/${operation}.json`, { payment_method_token: await card(number), amount, currency_code: 'USD' });

  beforeAll(async () => {
    clock = new ManualClock(Date.parse('2026-03-10T12:30:00.000Z'));
    server = await startServer({ store, clock });
    env = server.init.environment_key;
    await server.core.portalUsers.create(server.init.organization_token, { email: 'owner@example.com', role: 'owner', password: PASSWORD });
    owner = new PortalClient(server.client);
    await owner.signIn('owner@example.com', PASSWORD);
    for (const [name, description] of [['alpha', 'Alpha'], ['beta', 'Beta'], ['gone', 'Gone']] as const) {
      gateways[name] = (await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', description } })).json().gateway.token as string;
    }
  });

  afterAll(() => server.close());

  async function apiList(): Promise<Listed[]> {
    const all: Listed[] = [];
    let since = '';
    for (;;) {
      const page = (await server.client.get(`/v1/transactions.json?count=100${since === '' ? '' : `&since_token=${since}`}`)).json().transactions as Listed[];
      all.push(...page);
      if (page.length < 100) return all;
      since = (page[page.length - 1] as Listed).token;
    }
  }

  it('counts what the API lists: payments, approvals, declines by code, rescues, routing by rule, breaker openings', async () => {
    const { alpha, beta, gone } = gateways;
    for (let i = 0; i < 3; i += 1) await pay(alpha, APPROVED);
    for (let i = 0; i < 2; i += 1) await pay(alpha, DECLINED);
    const captured = await pay(alpha, APPROVED, 'authorize');
    expect((await transact(`/v1/transactions/${captured.token}/capture.json`, {})).succeeded).toBe(true);
    const voided = await pay(alpha, APPROVED, 'authorize');
    expect((await transact(`/v1/transactions/${voided.token}/void.json`, {})).succeeded).toBe(true);
    const refunded = await pay(alpha, APPROVED);
    expect((await transact(`/v1/transactions/${refunded.token}/credit.json`, {})).succeeded).toBe(true);
    expect((await transact(`/v1/gateways/${alpha}/verify.json`, { payment_method_token: await card(APPROVED), currency_code: 'USD' })).transaction_type).toBe('Verification');
    await pay(beta, APPROVED_MASTER);
    await pay(beta, DECLINED_MASTER);
    await pay(gone, APPROVED);
    await pay(gone, APPROVED);
    expect((await server.client.sendJson('PUT', `/v1/gateways/${gone}/redact.json`, {})).status).toBe(200);

    const workflow = {
      key: 'checkout',
      name: 'Checkout',
      retry_mode: 'outage_only',
      rules: [{ name: 'euro', condition: { currencies: ['EUR'] }, target: { gateway_token: beta } }],
      default_target: { gateway_token: alpha },
      backup_gateway_tokens: [beta],
    };
    expect((await server.client.sendJson('POST', '/v1/workflows.json', { workflow })).status).toBe(201);
    const euro = await transact('/v1/transactions/purchase.json', { workflow_key: 'checkout', payment_method_token: await card(APPROVED), amount: 2500, currency_code: 'EUR' });
    expect(euro).toMatchObject({ succeeded: true, gateway_token: beta, routed_by: { rule: 'euro' } });

    // Five faults in a row open Alpha's breaker; the next routed payment passes Alpha over and Beta approves it.
    for (let i = 0; i < 5; i += 1) expect((await pay(alpha, APPROVED, 'purchase', FAULT_AMOUNT)).succeeded).toBe(false);
    const rescued = await transact('/v1/transactions/purchase.json', { workflow_key: 'checkout', payment_method_token: await card(APPROVED), amount: 1200, currency_code: 'USD' });
    expect(rescued).toMatchObject({ succeeded: true, gateway_token: beta, routed_by: { rule: null, gateway_token: alpha } });

    const figures = (await owner.get(`/portal/e/${env}/overview.json?range=24h`)).json().overview;
    const listed = await apiList();
    const payments = listed.filter((t) => PAYMENT_TYPES.has(t.transaction_type) && t.gateway_token !== null && t.gateway_token !== gone);
    // What the API lists, counted by hand, gateway by gateway.
    for (const token of [alpha, beta]) {
      const own = payments.filter((t) => t.gateway_token === token);
      const shown = figures.gateways.find((g: { token: string }) => g.token === token);
      expect(shown).toMatchObject({ payments: own.length, approved: own.filter((t) => t.succeeded).length });
      expect(shown.series.reduce((n: number, p: { payments: number }) => n + p.payments, 0)).toBe(own.length);
    }
    expect(figures.gateways.map((g: { name: string }) => g.name)).toEqual(['Alpha', 'Beta']);
    expect(figures.totals).toMatchObject({ payments: payments.length, approved: payments.filter((t) => t.succeeded).length, breaker_openings: 1, failover_rescues: 1, retry_rescues: 0 });
    // Alpha: 3 + 2 + 2 authorizations + 1 refunded purchase + 5 faults; Beta: 2 + the euro + the rescue.
    expect(figures.totals.payments).toBe(17);

    const declines = new Map<string, number>();
    for (const t of payments.filter((p) => FAILED_STATES.has(p.state))) {
      const code = t.response?.error_code ?? t.message_key ?? 'unknown';
      declines.set(code, (declines.get(code) ?? 0) + 1);
    }
    expect(figures.decline_reasons).toEqual([...declines.entries()].map(([code, count]) => ({ code, count })).sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)));
    expect(figures.decline_reasons[0]).toEqual({ code: 'processing_error', count: 5 });

    const rescuedListed = payments.filter((t) => t.succeeded && (t.attempts ?? []).some((a) => a.token === t.token && a.failover_reason !== null));
    expect(rescuedListed.map((t) => t.token)).toEqual([rescued.token]);
    expect(figures.gateways.find((g: { token: string }) => g.token === beta)).toMatchObject({ failover_rescues: 1 });

    const decisions = payments.filter((t) => t.routed_by !== undefined);
    expect(figures.routing).toEqual([
      { workflow_key: 'checkout', rule: 'euro', decisions: decisions.filter((t) => t.routed_by?.rule === 'euro').length, gateways: [{ token: beta, name: 'Beta', count: 1 }] },
      { workflow_key: 'checkout', rule: null, decisions: decisions.filter((t) => t.routed_by?.rule === null).length, gateways: [{ token: alpha, name: 'Alpha', count: 1 }] },
    ]);
    expect(figures.gateways.find((g: { token: string }) => g.token === alpha)).toMatchObject({ breaker_openings: 1, breaker_open_now: true });
    expect(figures.gateways.find((g: { token: string }) => g.token === alpha).latency.samples).toBe(payments.filter((t) => t.gateway_token === alpha).length);
    expect(JSON.stringify(figures)).not.toContain(gone);

    // The same counts once the hour has ended and is read from the rollups, in every range.
    clock.advance(3_600_000);
    owner = new PortalClient(server.client);
    await owner.signIn('owner@example.com', PASSWORD);
    for (const range of ['24h', '7d', '30d']) {
      const later = (await owner.get(`/portal/e/${env}/overview.json?range=${range}`)).json().overview;
      expect(later.totals).toEqual({ ...figures.totals });
      expect(later.decline_reasons).toEqual(figures.decline_reasons);
      expect(later.routing).toEqual(figures.routing);
    }
    // The page draws the same figures.
    const page = (await owner.get(`/portal/e/${env}/overview?range=7d`)).text;
    expect(page).toContain('<dt>Payments</dt><dd>17</dd>');
    expect(page).toContain('Decline reasons');
    expect(page).toContain('checkout · euro');
    expect(page).not.toContain(APPROVED);
  });
});
