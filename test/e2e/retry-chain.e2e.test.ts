import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { errorKeys, FORMATS, plain, toXml, type Format } from '../helpers/gateway-e2e.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { FakeAdyen } from '../fakes/fake-adyen.js';
import { startFakeStripe, type FakeStripe } from '../fakes/fake-stripe.js';

/**
 * Retry on backup gateways (Spreedly's `retry`, docs/routing-retry.md), end to end over real sockets: a Stripe
 * fake and an Adyen fake that answer, a Checkout.com endpoint on a closed port (connection
 * refused), and a dLocal endpoint that answers 503 to everything. Every attempt is its own
 * transaction; the answer is the attempt that settled the chain.
 */

const STRIPE_KEY = 'sk_live_CofferRetryE2eKey000000001';
const ADYEN_KEY = 'AQE-retry-e2e-key';
const MERCHANT = 'CofferRetryECOM';
const CVV = '739';
const CARDS = {
  approve: '4242424242424242',
  softDecline: '4000000000000119', // Stripe: processing_error
  genericDecline: '4000000000000002', // Stripe: card_declined (generic_decline)
  hardDecline: '4000000000009995', // Stripe: card_declined / insufficient_funds → insufficient_funds
  cvcDecline: '4000000000000127', // Stripe: incorrect_cvc, "Your card's security code is incorrect."
} as const;

/** An HTTP server that answers 503 to everything, counting connections and requests. */
async function startUnavailable(): Promise<{ url: string; requests: number; connections: number; close(): Promise<void> }> {
  const state = { requests: 0, connections: 0 };
  const server = http.createServer((_request, response) => {
    state.requests += 1;
    response.writeHead(503, { 'content-type': 'application/json' }).end('{"code":"5000","message":"Service unavailable"}');
  });
  server.on('connection', () => {
    state.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return state.requests;
    },
    get connections() {
      return state.connections;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port nothing listens on: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Retry {
  gateway_tokens: string[];
  mode?: string;
  custom_errors?: { error_codes?: string[]; messages?: string[]; override_default_error_codes?: boolean };
}

/** `retry` as an XML client writes it: repeated elements for the lists. */
function retryXml(retry: Retry): string {
  const list = (outer: string, inner: string, values: string[] | undefined) => (values === undefined ? '' : `<${outer}>${values.map((value) => `<${inner}>${value}</${inner}>`).join('')}</${outer}>`);
  const custom = retry.custom_errors;
  const customXml =
    custom === undefined
      ? ''
      : `<custom_errors>${list('error_codes', 'error_code', custom.error_codes)}${list('messages', 'message', custom.messages)}${custom.override_default_error_codes === undefined ? '' : `<override_default_error_codes>${String(custom.override_default_error_codes)}</override_default_error_codes>`}</custom_errors>`;
  return `<retry>${list('gateway_tokens', 'gateway_token', retry.gateway_tokens)}${retry.mode === undefined ? '' : `<mode>${retry.mode}</mode>`}${customXml}</retry>`;
}

interface Answer {
  status: number;
  t: any;
  res: ApiResponse;
}

/** The `attempts` of a transaction view as a list, whichever the format (`t.raw`: the XML element before `plain`). */
function attemptsOf(t: any): any[] {
  if (Array.isArray(t.attempts)) return t.attempts;
  const items = t.raw?.attempts?.attempt;
  if (items === undefined) return [];
  const list = (Array.isArray(items) ? items : [items]).map(plain);
  // An XML list of one element is not an array once parsed; `skipped_gateways` is compared as a list.
  return list.map((attempt: any) => ({ ...attempt, skipped_gateways: xmlList(t.raw === undefined ? undefined : attempt.skipped_gateways, 'skipped_gateway') }));
}

function xmlList(node: any, item: string): any[] {
  if (node === undefined || node === '' || node === null) return [];
  const items = node[item];
  if (items === undefined) return [];
  return Array.isArray(items) ? items : [items];
}

/** The `transaction` of an answer; in XML decoded with `plain`, the raw element kept as `raw` for its lists. */
function parsed(format: Format, res: ApiResponse): any {
  if (res.status >= 500) return null;
  if (format === 'json') return res.json().transaction;
  const raw = res.xml().transaction;
  return raw === undefined ? undefined : { ...plain(raw), raw };
}

describe.each(storeKinds)('retry on backup gateways (%s)', (store) => {
  let stripe: FakeStripe;
  let adyen: FakeAdyen;
  let unavailable: Awaited<ReturnType<typeof startUnavailable>>;
  let server: TestServer;
  let live: ApiClient;
  let environmentKey: string;
  const gw = { stripe: '', adyen: '', refusing: '', unavailable: '' };

  async function createGateway(fields: Record<string, unknown>): Promise<string> {
    const res = await live.sendJson('POST', '/v1/gateways.json', { gateway: fields });
    expect(res.status, res.text).toBe(201);
    return res.json().gateway.token as string;
  }

  async function vault(number: string): Promise<string> {
    const res = await live.sendJson('POST', '/v1/payment_methods.json', {
      payment_method: { email: 'ada@example.com', credit_card: { first_name: 'Ada', last_name: 'Lovelace', number, verification_value: CVV, month: 12, year: 2034, address1: '12 St James Sq', city: 'London', zip: 'SW1Y 4JH', country: 'GB' } },
    });
    expect(res.status, res.text).toBe(201);
    return res.json().transaction.payment_method.token as string;
  }

  /** A purchase on `primary` with `retry`, in `format`. */
  async function purchase(format: Format, primary: string, fields: Record<string, unknown>, retry: Retry | null, headers: Record<string, string> = {}): Promise<Answer> {
    const body = { amount: 1000, currency_code: 'USD', ...fields };
    const url = `/v1/gateways/${primary}/purchase.${format}`;
    const res =
      format === 'json'
        ? await live.sendJson('POST', url, { transaction: { ...body, ...(retry === null ? {} : { retry }) } }, { headers })
        : await live.sendXml('POST', url, toXml('transaction', body).replace('</transaction>', `${retry === null ? '' : retryXml(retry)}</transaction>`), { headers });
    return { status: res.status, t: parsed(format, res), res };
  }

  async function show(format: Format, token: string): Promise<any> {
    const res = await live.get(`/v1/transactions/${token}.${format}`);
    expect(res.status).toBe(200);
    return parsed(format, res);
  }

  const stripeCharges = (token: string) => stripe.requestsWithKey(token).filter((request) => request.path === '/v1/payment_intents');
  const adyenPayments = (token: string) => adyen.server.requestsWith('idempotency-key', token);
  const transactionCount = async () =>
    Number((await server.core.store.db.selectFrom('transactions').select((eb) => eb.fn.countAll().as('n')).where('environment_key', '=', environmentKey).executeTakeFirstOrThrow()).n);
  const paymentMethodCount = async () =>
    Number((await server.core.store.db.selectFrom('payment_methods').select((eb) => eb.fn.countAll().as('n')).where('environment_key', '=', environmentKey).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    stripe = await startFakeStripe([STRIPE_KEY]);
    adyen = await FakeAdyen.start({ merchantAccount: MERCHANT, apiKeys: [ADYEN_KEY] });
    unavailable = await startUnavailable();
    const refused = `http://127.0.0.1:${await closedPort()}`;
    server = await startServer({
      store,
      env: {
        COFFER_GATEWAY_ENDPOINTS: JSON.stringify({ stripe: stripe.url, adyen: adyen.url, checkout_v2: refused, d_local: unavailable.url }),
        COFFER_EGRESS_ALLOW: '127.0.0.1',
        COFFER_GATEWAY_TIMEOUTS: JSON.stringify({ stripe: 2, adyen: 2, checkout_v2: 2, d_local: 2 }),
      },
    });
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    environmentKey = production.key;
    live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
    gw.stripe = await createGateway({ gateway_type: 'stripe', login: STRIPE_KEY });
    gw.adyen = await createGateway({ gateway_type: 'adyen', merchant_account: MERCHANT, api_key: ADYEN_KEY, sandbox: true });
    gw.refusing = await createGateway({ gateway_type: 'checkout_v2', secret_key: 'sk_retry_e2e_refused' });
    gw.unavailable = await createGateway({ gateway_type: 'd_local', login: 'retry-login', trans_key: 'retry-trans', secret_key: 'retry-secret' });
  });

  afterAll(async () => {
    await server?.close();
    await stripe?.close();
    await adyen?.close();
    await unavailable?.close();
  });

  beforeEach(() => {
    stripe.setMode('normal');
    adyen.server.setMode('normal');
  });

  it.each(FORMATS)('the primary refuses connections: the backup takes the payment exactly once, with the CVV the vault then drops (%s)', async (format) => {
    const card = await vault(CARDS.approve);
    const started = performance.now();
    const { status, t } = await purchase(format, gw.refusing, { payment_method_token: card }, { gateway_tokens: [gw.stripe], mode: 'outage_only' });
    const chainMs = performance.now() - started;
    expect(status, JSON.stringify(t)).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', gateway_token: gw.stripe, gateway_type: 'stripe' });
    const attempts = attemptsOf(t);
    expect(attempts.map((attempt) => [attempt.gateway_token, attempt.state])).toEqual([
      [gw.refusing, 'gateway_processing_failed'],
      [gw.stripe, 'succeeded'],
    ]);
    expect(attempts[0]).toMatchObject({ gateway_type: 'checkout_v2', message: 'Unable to connect to the gateway.', failover_reason: null });
    expect(attempts[1].failover_reason).toContain('ECONNREFUSED');
    expect(attempts[1].token).toBe(t.token);
    // Exactly one charge reached Stripe, and it carried the CVV the first attempt had consumed from the vault.
    const charges = stripeCharges(t.token);
    expect(charges).toHaveLength(1);
    expect(charges[0]?.form['payment_method_data[card][cvc]']).toBe(CVV);
    const row = await server.core.store.db.selectFrom('payment_methods').selectAll().where('token', '=', card).executeTakeFirstOrThrow();
    expect(row.sealed_cvv).toBeNull();

    // The first attempt, shown on its own, is failed with the fault and shows the chain and where it went.
    const first = await show(format, attempts[0].token);
    expect(first).toMatchObject({ state: 'gateway_processing_failed', gateway_token: gw.refusing, response: { error_code: 'processing_error', error_detail: 'ECONNREFUSED' } });
    expect(attemptsOf(first).map((attempt) => attempt.token)).toEqual(attempts.map((attempt) => attempt.token));
    if (format === 'json') expect(first.api_urls).toEqual([{ failover_transaction: [`/v1/transactions/${t.token}`] }]);
    else expect(first.raw.api_urls).toEqual({ api_url: { failover_transaction: { url: `/v1/transactions/${t.token}` } } });

    // The failover is an event of the attempt it moved on to.
    const events = (await live.get('/v1/events.json?order=asc&count=100')).json().events as Array<{ object_key: string; event_type: string }>;
    expect(events.filter((event) => event.object_key === t.token).map((event) => event.event_type)).toEqual(['TransactionCreated', 'TransactionFailedOver', 'TransactionSucceeded']);

    const direct = performance.now();
    expect((await purchase(format, gw.stripe, { payment_method_token: card }, null)).status).toBe(200);
    // Not asserted (a shared machine): what a failover on a refused connection adds, for the report.
    console.log(`[retry-chain ${store} ${format}] refused primary then backup: ${chainMs.toFixed(1)} ms; backup alone: ${(performance.now() - direct).toFixed(1)} ms`);
  });

  it.each(FORMATS)('a decline in outage_only mode does not move on (%s)', async (format) => {
    const card = await vault(CARDS.softDecline);
    const before = adyen.server.requests.length;
    const { status, t } = await purchase(format, gw.stripe, { payment_method_token: card }, { gateway_tokens: [gw.adyen], mode: 'outage_only' });
    expect(status).toBe(422);
    expect(t).toMatchObject({ state: 'gateway_processing_failed', gateway_token: gw.stripe, response: { error_code: 'processing_error' } });
    expect(attemptsOf(t)).toHaveLength(1);
    expect(adyen.server.requests.length).toBe(before);
  });

  it.each(FORMATS)('a soft decline in standard mode moves on; the backup answers once (%s)', async (format) => {
    for (const number of [CARDS.softDecline, CARDS.genericDecline]) {
      const card = await vault(number);
      const { status, t } = await purchase(format, gw.stripe, { payment_method_token: card }, { gateway_tokens: [gw.adyen], mode: 'standard' });
      expect(status, JSON.stringify(t)).toBe(200);
      expect(t).toMatchObject({ state: 'succeeded', gateway_token: gw.adyen, gateway_type: 'adyen' });
      const attempts = attemptsOf(t);
      expect(attempts.map((attempt) => attempt.gateway_token)).toEqual([gw.stripe, gw.adyen]);
      expect(attempts[1].failover_reason).toMatch(/^soft decline: (processing_error|card_declined)$/);
      expect(adyenPayments(t.token)).toHaveLength(1);
      expect(JSON.parse(adyenPayments(t.token)[0]?.rawBody ?? '{}').paymentMethod.cvc).toBe(CVV);
    }
  });

  it.each(FORMATS)('a hard decline does not move on, even in standard mode (%s)', async (format) => {
    const card = await vault(CARDS.hardDecline);
    const before = adyen.server.requests.length;
    const { status, t } = await purchase(format, gw.stripe, { payment_method_token: card }, { gateway_tokens: [gw.adyen] });
    expect(status).toBe(422);
    expect(t).toMatchObject({ gateway_token: gw.stripe, response: { error_code: 'insufficient_funds' } });
    expect(attemptsOf(t)).toHaveLength(1);
    expect(adyen.server.requests.length).toBe(before);
  });

  it('a result-unknown (timeout, 408) never moves on: the money may have moved', async () => {
    const card = await vault(CARDS.approve);
    const before = adyen.server.requests.length;
    stripe.setMode('hang');
    const { status, t } = await purchase('json', gw.stripe, { payment_method_token: card }, { gateway_tokens: [gw.adyen], mode: 'standard' });
    expect(status).toBe(408);
    expect(t).toMatchObject({ state: 'gateway_processing_result_unknown', gateway_token: gw.stripe, response: { result_unknown: true } });
    expect(attemptsOf(t)).toHaveLength(1);
    expect(adyen.server.requests.length).toBe(before);
  });

  it('a 500 may come after the gateway acted: it does not move on; a 503 does', async () => {
    const card = await vault(CARDS.approve);
    stripe.setMode('error500');
    const broken = await purchase('json', gw.stripe, { payment_method_token: card }, { gateway_tokens: [gw.adyen], mode: 'outage_only' });
    expect(broken.status).toBe(422);
    expect(broken.t).toMatchObject({ gateway_token: gw.stripe, response: { error_detail: 'HTTP 500' } });
    expect(attemptsOf(broken.t)).toHaveLength(1);
    stripe.setMode('normal');
    const requestsBefore = unavailable.requests;
    const moved = await purchase('xml', gw.unavailable, { payment_method_token: card }, { gateway_tokens: [gw.stripe], mode: 'outage_only' });
    expect(moved.status, JSON.stringify(moved.t)).toBe(200);
    expect(unavailable.requests).toBe(requestsBefore + 1);
    expect(attemptsOf(moved.t).map((attempt) => [attempt.gateway_token, attempt.state])).toEqual([
      [gw.unavailable, 'gateway_processing_failed'],
      [gw.stripe, 'succeeded'],
    ]);
  });

  it.each(FORMATS)('three gateways where the first two fault before acceptance: the third answers (%s)', async (format) => {
    const card = await vault(CARDS.approve);
    const requestsBefore = unavailable.requests;
    const started = performance.now();
    const { status, t } = await purchase(format, gw.refusing, { payment_method_token: card }, { gateway_tokens: [gw.unavailable, gw.stripe], mode: 'outage_only' });
    const chainMs = performance.now() - started;
    expect(status, JSON.stringify(t)).toBe(200);
    expect(t).toMatchObject({ gateway_token: gw.stripe, state: 'succeeded' });
    expect(attemptsOf(t).map((attempt) => [attempt.gateway_type, attempt.state])).toEqual([
      ['checkout_v2', 'gateway_processing_failed'],
      ['d_local', 'gateway_processing_failed'],
      ['stripe', 'succeeded'],
    ]);
    expect(unavailable.requests).toBe(requestsBefore + 1);
    expect(stripeCharges(t.token)).toHaveLength(1);
    expect(stripeCharges(t.token)[0]?.form['payment_method_data[card][cvc]']).toBe(CVV);
    console.log(`[retry-chain ${store} ${format}] refused, 503, then backup: ${chainMs.toFixed(1)} ms`);
  });

  it('an open breaker is passed over without a socket; the chain notes it', async () => {
    // A gateway of its own, so that opening its breaker leaves the other tests alone.
    const doomed = await createGateway({ gateway_type: 'd_local', login: 'breaker-login', trans_key: 'breaker-trans', secret_key: 'breaker-secret' });
    const card = await vault(CARDS.approve);
    for (let i = 0; i < 5; i += 1) expect((await purchase('json', doomed, { payment_method_token: card }, null)).status).toBe(422);
    expect((await purchase('json', doomed, { payment_method_token: card }, null)).status).toBe(503);
    const connections = unavailable.connections;
    const requests = unavailable.requests;
    const transactions = await transactionCount();
    const { status, t } = await purchase('json', doomed, { payment_method_token: card }, { gateway_tokens: [gw.stripe], mode: 'outage_only' });
    expect(status, JSON.stringify(t)).toBe(200);
    expect(t).toMatchObject({ gateway_token: gw.stripe, state: 'succeeded' });
    expect(unavailable.connections).toBe(connections);
    expect(unavailable.requests).toBe(requests);
    // One record only: the passed-over gateway has none, its skip is noted on the attempt that followed.
    expect(await transactionCount()).toBe(transactions + 1);
    const [only] = attemptsOf(t);
    expect(only).toMatchObject({ gateway_token: gw.stripe, skipped_gateways: [{ gateway_token: doomed }] });
    expect(only.failover_reason).toContain('passed over without a call');

    // Every gateway of the chain open: the primary's 503, nothing persisted.
    const otherDoomed = await createGateway({ gateway_type: 'd_local', login: 'breaker-login-2', trans_key: 'breaker-trans', secret_key: 'breaker-secret' });
    for (let i = 0; i < 5; i += 1) expect((await purchase('json', otherDoomed, { payment_method_token: card }, null)).status).toBe(422);
    const settled = await transactionCount();
    const allOpen = await purchase('json', doomed, { payment_method_token: card }, { gateway_tokens: [otherDoomed] });
    expect(allOpen.status).toBe(503);
    expect(allOpen.res.json().errors[0]).toMatchObject({ key: 'errors.circuit_breaker_open' });
    expect(await transactionCount()).toBe(settled);
  });

  it.each(FORMATS)('custom_errors: codes and messages move on in either mode; override replaces the default list (%s)', async (format) => {
    const expired = await vault(CARDS.hardDecline);
    const byCode = await purchase(format, gw.stripe, { payment_method_token: expired }, { gateway_tokens: [gw.adyen], mode: 'outage_only', custom_errors: { error_codes: ['insufficient_funds'] } });
    expect(byCode.status, JSON.stringify(byCode.t)).toBe(200);
    expect(attemptsOf(byCode.t)[1]?.failover_reason).toBe('custom error code: insufficient_funds');

    const cvc = await vault(CARDS.cvcDecline);
    const byMessage = await purchase(format, gw.stripe, { payment_method_token: cvc }, { gateway_tokens: [gw.adyen], custom_errors: { messages: ['SECURITY CODE'] } });
    expect(byMessage.status, JSON.stringify(byMessage.t)).toBe(200);
    expect(attemptsOf(byMessage.t)[1]?.failover_reason).toBe('custom error message: SECURITY CODE');

    // override_default_error_codes: a soft decline not in the custom list stays.
    const soft = await vault(CARDS.softDecline);
    const overridden = await purchase(format, gw.stripe, { payment_method_token: soft }, { gateway_tokens: [gw.adyen], mode: 'standard', custom_errors: { error_codes: ['insufficient_funds'], override_default_error_codes: true } });
    expect(overridden.status).toBe(422);
    expect(attemptsOf(overridden.t)).toHaveLength(1);
  });

  it.each(FORMATS)('bad retry input is a 422 naming the problem, before anything is persisted or vaulted (%s)', async (format) => {
    const inline = { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: CARDS.approve, verification_value: CVV, month: 12, year: 2034 } };
    const cases: Array<[Retry, string, string]> = [
      [{ gateway_tokens: ['NoSuchGateway000000000000000'] }, 'errors.retry_gateway_not_found', 'retry.gateway_tokens'],
      [{ gateway_tokens: [gw.adyen], mode: 'sometimes' }, 'errors.inclusion', 'mode'],
      [{ gateway_tokens: [gw.adyen, gw.unavailable, gw.refusing] }, 'errors.invalid', 'gateway_tokens'],
      [{ gateway_tokens: [gw.adyen, gw.adyen] }, 'errors.invalid', 'gateway_tokens'],
      [{ gateway_tokens: [gw.stripe] }, 'errors.invalid', 'retry.gateway_tokens'],
    ];
    const transactions = await transactionCount();
    const methods = await paymentMethodCount();
    for (const [retry, key, attribute] of cases) {
      const { res } = await purchase(format, gw.stripe, inline, retry);
      expect(res.status, `${JSON.stringify(retry)}: ${res.text}`).toBe(422);
      expect(errorKeys(format, res)).toEqual([key]);
      if (format === 'json') expect(res.json().errors[0].attribute).toBe(attribute);
    }
    expect(await transactionCount()).toBe(transactions);
    expect(await paymentMethodCount()).toBe(methods);
  });

  it('a backup that cannot take the chain is a 422 before anything is persisted (redacted, lacking the operation, test gateway)', async () => {
    const redacted = await createGateway({ gateway_type: 'adyen', merchant_account: MERCHANT, api_key: ADYEN_KEY, sandbox: true });
    expect((await live.request('PUT', `/v1/gateways/${redacted}/redact.json`)).status).toBe(200);
    const noVerify = await createGateway({ gateway_type: 'mercado_pago', access_token: 'retry-access-token' });
    const testGateway = await createGateway({ gateway_type: 'test' });
    const card = await vault(CARDS.approve);
    const transactions = await transactionCount();
    const cases: Array<[string, string, RegExp]> = [
      ['purchase', redacted, /is redacted/],
      ['verify', noVerify, /does not support verify/],
      ['purchase', testGateway, /is a test gateway but the primary is not/],
    ];
    for (const [operation, backup, message] of cases) {
      const res = await live.sendJson('POST', `/v1/gateways/${gw.stripe}/${operation}.json`, { transaction: { payment_method_token: card, amount: 100, currency_code: 'USD', retry: { gateway_tokens: [backup] } } });
      expect(res.status, res.text).toBe(422);
      expect(res.json().errors[0]).toMatchObject({ key: 'errors.retry_gateway_invalid', attribute: 'retry.gateway_tokens' });
      expect(res.json().errors[0].message).toMatch(message);
    }
    expect(await transactionCount()).toBe(transactions);
  });

  it('an Idempotency-Key on a chained purchase replays the final answer; the backup was charged once', async () => {
    const card = await vault(CARDS.approve);
    const headers = { 'Idempotency-Key': `retry-chain-${store}-${Date.now()}` };
    const refusing = await createGateway({ gateway_type: 'checkout_v2', secret_key: 'sk_retry_e2e_refused_3' });
    const first = await purchase('json', refusing, { payment_method_token: card }, { gateway_tokens: [gw.stripe] }, headers);
    expect(first.status).toBe(200);
    const again = await purchase('json', refusing, { payment_method_token: card }, { gateway_tokens: [gw.stripe] }, headers);
    expect(again.status).toBe(200);
    expect(again.t.token).toBe(first.t.token);
    expect(attemptsOf(again.t)).toHaveLength(2);
    expect(stripeCharges(first.t.token)).toHaveLength(1);
  });

  it('an inline card is vaulted once; the backup gets it and its CVV from memory', async () => {
    const refusing = await createGateway({ gateway_type: 'checkout_v2', secret_key: 'sk_retry_e2e_refused_4' });
    const methods = await paymentMethodCount();
    const inline = { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: CARDS.approve, verification_value: CVV, month: 12, year: 2034 } };
    const { status, t } = await purchase('json', refusing, inline, { gateway_tokens: [gw.stripe] });
    expect(status, JSON.stringify(t)).toBe(200);
    expect(await paymentMethodCount()).toBe(methods + 1);
    expect(t).toMatchObject({ payment_method_added: true, gateway_token: gw.stripe });
    const [first, second] = attemptsOf(t);
    expect((await show('json', first.token)).payment_method.token).toBe(t.payment_method.token);
    expect(second.token).toBe(t.token);
    expect(stripeCharges(t.token)[0]?.form['payment_method_data[card][cvc]']).toBe(CVV);
    const row = await server.core.store.db.selectFrom('payment_methods').selectAll().where('token', '=', t.payment_method.token).executeTakeFirstOrThrow();
    expect(row.sealed_cvv).toBeNull();
  });

  it('failover latency: chains after a refused or 503 primary against purchases on the backup alone (logged, not asserted)', async () => {
    const refusing = await createGateway({ gateway_type: 'checkout_v2', secret_key: 'sk_retry_e2e_refused_5' });
    const unavailableToo = await createGateway({ gateway_type: 'd_local', login: 'latency-login', trans_key: 'latency-trans', secret_key: 'latency-secret' });
    const card = await vault(CARDS.approve);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    const timed = async (primary: string, retry: Retry | null): Promise<number> => {
      const started = performance.now();
      const { status, t } = await purchase('json', primary, { payment_method_token: card }, retry);
      const elapsed = performance.now() - started;
      expect(status).toBe(200);
      expect(t.gateway_token).toBe(gw.stripe);
      return elapsed;
    };
    await timed(gw.stripe, null); // warm-up
    const alone: number[] = [];
    const refused: number[] = [];
    const unavailableFirst: number[] = [];
    // Four of each (a fifth consecutive fault would open the primaries' breakers).
    for (let i = 0; i < 4; i += 1) {
      alone.push(await timed(gw.stripe, null));
      refused.push(await timed(refusing, { gateway_tokens: [gw.stripe], mode: 'outage_only' }));
      unavailableFirst.push(await timed(unavailableToo, { gateway_tokens: [gw.stripe], mode: 'outage_only' }));
    }
    console.log(
      `[retry-chain ${store}] median of 4: backup alone ${median(alone).toFixed(1)} ms; refused primary then backup ${median(refused).toFixed(1)} ms; 503 primary then backup ${median(unavailableFirst).toFixed(1)} ms`,
    );
  });

  it('authorize and verify take retry too', async () => {
    const card = await vault(CARDS.approve);
    // A refusing gateway of its own: the suite's has faulted often enough to open its breaker by now.
    const refusing = await createGateway({ gateway_type: 'checkout_v2', secret_key: 'sk_retry_e2e_refused_2' });
    for (const operation of ['authorize', 'verify']) {
      const res = await live.sendJson('POST', `/v1/gateways/${refusing}/${operation}.json`, { transaction: { payment_method_token: card, amount: 500, currency_code: 'USD', retry: { gateway_tokens: [gw.stripe], mode: 'outage_only' } } });
      expect(res.status, res.text).toBe(200);
      expect(res.json().transaction).toMatchObject({ gateway_token: gw.stripe, transaction_type: operation === 'authorize' ? 'Authorization' : 'Verification' });
      expect(attemptsOf(res.json().transaction)).toHaveLength(2);
    }
  });
});
