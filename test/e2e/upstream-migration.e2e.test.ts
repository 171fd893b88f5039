import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from '../helpers/client.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { PortalClient } from '../helpers/portal-client.js';
import { storeAccess } from '../../src/store/store-access.js';
import { intakeCredentialHash } from '../../src/services/upstream/intake-credential.js';

/*
 * Live migration end to end (docs/portability.md, "Live migration"): a second Coffer is the
 * upstream (it speaks Spreedly's API). Cards created upstream are charged downstream by their
 * upstream tokens (pull-through), the backfill copies every retained card, the intake refuses a
 * forged or reused credential, and no PAN appears in either side's answers, logs or transcripts
 * (the helpers' leak guards check every answer and log line; close() scans the SQLite files).
 */

const CARDS = ['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '4012888888881881', '5105105105105100'];
const EGRESS = { COFFER_EGRESS_ALLOW: '127.0.0.0/8,::1' };

function card(number: string, retained = true, extra: Record<string, unknown> = {}) {
  return { payment_method: { credit_card: { number, month: 12, year: 2035, first_name: 'Ada', last_name: 'Lovelace' }, email: 'ada@example.com', metadata: { customer: 'c1' }, retained, ...extra } };
}

function noCard(res: ApiResponse): void {
  for (const number of CARDS) expect(res.text).not.toContain(number);
}

describe.each(storeKinds)('live migration from a Spreedly-compatible upstream (%s)', (store) => {
  let up: TestServer;
  let down: TestServer;
  let upBase: string;
  let downBase: string;
  let downEnv: string;
  let gateway: string;
  const upTokens: string[] = [];

  const upstreamBody = (overrides: Record<string, unknown> = {}) => ({
    environment: { upstream: { url: upBase, environment_key: up.init.environment_key, access_secret: up.init.access_secret, public_url: downBase, ...overrides } },
  });

  beforeAll(async () => {
    up = await startServer({ store, tls: false, env: EGRESS });
    down = await startServer({ store, tls: false, env: EGRESS });
    upBase = up.client.baseUrl.replace('localhost', '127.0.0.1');
    downBase = down.client.baseUrl.replace('localhost', '127.0.0.1');
    downEnv = down.init.environment_key;
    for (const number of CARDS.slice(0, 4)) {
      const res = await up.client.sendJson('POST', '/v1/payment_methods.json', card(number));
      expect(res.status).toBe(201);
      upTokens.push(res.json().transaction.payment_method.token);
    }
    const made = await down.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } });
    expect(made.status).toBe(201);
    gateway = made.json().gateway.token;
  }, 60_000);

  afterAll(async () => {
    await down?.close();
    await up?.close();
  });

  it('refuses a wrong secret (422) and an unreachable upstream (502), keeping nothing', async () => {
    const wrong = await down.client.sendJson('PUT', `/v1/environments/${downEnv}.json`, upstreamBody({ access_secret: 'not-the-secret' }));
    expect(wrong.status).toBe(422);
    expect(wrong.json().errors[0].attribute).toBe('access_secret');
    const unreachable = await down.client.sendJson('PUT', `/v1/environments/${downEnv}.json`, upstreamBody({ url: 'http://127.0.0.1:1' }));
    expect(unreachable.status).toBe(502);
    expect(unreachable.json().errors[0].key).toBe('errors.upstream_unavailable');
    const blank = await down.client.sendJson('PUT', `/v1/environments/${downEnv}.json`, upstreamBody({ url: '' }));
    expect(blank.status).toBe(422);
    expect((await down.client.get(`/v1/environments/${downEnv}/upstream.json`)).status).toBe(404);
  });

  it('takes the upstream in XML too', async () => {
    const xml = `<environment><upstream><url>${upBase}</url><environment_key>${up.init.environment_key}</environment_key><access_secret>${up.init.access_secret}</access_secret><public_url>${downBase}</public_url></upstream></environment>`;
    const set = await down.client.sendXml('PUT', `/v1/environments/${downEnv}.xml`, xml);
    expect(set.status).toBe(200);
    expect(set.text).not.toContain(up.init.access_secret);
    expect(set.xml().environment.upstream.url).toBe(upBase);
    const cleared = await down.client.sendJson('PUT', `/v1/environments/${downEnv}.json`, { environment: { upstream: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.json().environment.upstream).toBeUndefined();
  });

  it('sets the upstream: the secret is never shown again', async () => {
    const set = await down.client.sendJson('PUT', `/v1/environments/${downEnv}.json`, upstreamBody());
    expect(set.status).toBe(200);
    expect(set.text).not.toContain(up.init.access_secret);
    expect(set.json().environment.upstream).toMatchObject({ url: upBase, environment_key: up.init.environment_key, public_url: downBase });
    const shown = await down.client.get(`/v1/environments/${downEnv}.json`);
    expect(shown.text).not.toContain(up.init.access_secret);
    expect(shown.json().environment.upstream.url).toBe(upBase);
    const audit = await down.client.get('/v1/audit_events.json');
    expect(audit.status).toBe(200);
    expect(audit.text).toContain('environment.upstream_set');
    expect(audit.text).not.toContain(up.init.access_secret);
  });

  it('charges a card created upstream by its upstream token (pull-through)', async () => {
    const token = upTokens[0] as string;
    const purchase = await down.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: token, amount: 100, currency_code: 'USD' } });
    noCard(purchase);
    expect(purchase.status).toBe(200);
    expect(purchase.json().transaction.succeeded).toBe(true);
    const shown = await down.client.get(`/v1/payment_methods/${token}.json`);
    expect(shown.status).toBe(200);
    const method = shown.json().payment_method;
    expect(method).toMatchObject({ token, email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', last_four_digits: '1111', storage_state: 'retained', metadata: { customer: 'c1' } });
    const upstreamView = (await up.client.get(`/v1/payment_methods/${token}.json`)).json().payment_method;
    expect(method.fingerprint === null || typeof method.fingerprint === 'string').toBe(true);
    expect(method.created_at).toBe(upstreamView.created_at);
  });

  it('pulls once for two concurrent requests, and keeps the upstream card as it was', async () => {
    const token = upTokens[1] as string;
    const [first, second] = await Promise.all([down.client.get(`/v1/payment_methods/${token}.json`), down.client.get(`/v1/payment_methods/${token}.json`)]);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    const history = (await up.client.get(`/v1/payment_methods/${token}/transactions.json`)).json().transactions as Array<{ transaction_type: string; token: string }>;
    const deliveries = history.filter((transaction) => transaction.transaction_type === 'DeliverPaymentMethod');
    expect(deliveries).toHaveLength(1);
    // The upstream's transcript of the delivery holds no card number.
    const transcript = await up.client.get(`/v1/transactions/${deliveries[0]?.token}/transcript`);
    noCard(transcript);
    expect((await up.client.get(`/v1/payment_methods/${token}.json`)).json().payment_method.storage_state).toBe('retained');
  });

  it('stamps the pulled card\'s events with the id of the request that named it (pull-through on show)', async () => {
    const token = upTokens[2] as string;
    const shown = await down.client.get(`/v1/payment_methods/${token}.json`, { headers: { 'X-Request-Id': 'req-pull-show-1' } });
    expect(shown.status).toBe(200);
    const events = (await down.client.get('/v1/events.json?count=100')).json().events as { request_id: string | null; event_type: string; object_key: string }[];
    const imported = events.filter((event) => event.event_type === 'ImportPaymentMethod' && event.object_key === token);
    expect(imported.map((event) => event.request_id)).toEqual(['req-pull-show-1']);
    const transaction = ((await down.client.get(`/v1/payment_methods/${token}/transactions.json`)).json().transactions as { token: string; transaction_type: string }[]).find((item) => item.transaction_type === 'ImportPaymentMethod');
    const transactionEvents = events.filter((event) => event.object_key === transaction?.token);
    expect(transactionEvents.length).toBeGreaterThan(0);
    for (const event of transactionEvents) expect(event.request_id).toBe('req-pull-show-1');
  });

  it('answers the usual 404/422 for a token unknown upstream too', async () => {
    expect((await down.client.get('/v1/payment_methods/NoSuchToken000000000000000.json')).status).toBe(404);
    const purchase = await down.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: 'NoSuchToken000000000000000', amount: 100, currency_code: 'USD' } });
    expect(purchase.status).toBe(422);
  });

  it('refuses a forged, reused or mismatched intake credential and stores nothing', async () => {
    const intake = new ApiClient(downBase, null, null);
    const body = (token: string) => JSON.stringify({ intake: { payment_method_token: token, number: CARDS[5], month: '12', year: '2035' } });
    const send = (credential: string | null, token: string) =>
      intake.request('POST', '/v1/upstream/intake.json', { contentType: 'application/json', body: body(token), headers: credential === null ? {} : { 'X-Coffer-Intake-Credential': credential } });
    const forged = await send('forged-credential', 'IntakeToken0000000000000001');
    expect(forged.status).toBe(403);
    expect((await send(null, 'IntakeToken0000000000000001')).status).toBe(403);
    // A genuine grant, as a pull makes it: good once, for its token only.
    const repos = storeAccess(down.core.store).repos;
    const fields = { token: 'IntakeToken0000000000000001', paymentMethodType: 'credit_card', storageState: 'retained', email: null, createdAt: null, metadata: null, data: null, firstName: 'Ada', lastName: 'Lovelace', month: 12, year: 2035, address: {}, eligibleForCardUpdater: null, bankName: null, accountType: null, accountHolderType: null, thirdPartyToken: null, gatewayType: null };
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    await repos.upstreams.grant({ environmentKey: downEnv, credentialHash: intakeCredentialHash('good-once'), paymentMethodToken: fields.token, fields, purpose: 'on_demand', expiresAt, requestId: null });
    await repos.upstreams.grant({ environmentKey: downEnv, credentialHash: intakeCredentialHash('other-token'), paymentMethodToken: fields.token, fields, purpose: 'on_demand', expiresAt, requestId: null });
    const mismatched = await send('other-token', 'IntakeToken0000000000000002');
    expect(mismatched.status).toBe(403);
    expect((await down.client.get('/v1/payment_methods/IntakeToken0000000000000002.json')).status).toBe(404);
    const first = await send('good-once', fields.token);
    expect(first.status).toBe(200);
    noCard(first);
    const reused = await send('good-once', fields.token);
    expect(reused.status).toBe(403);
    expect(reused.json().errors[0].key).toBe('errors.intake_refused');
    await intake.close();
  });

  it('backfills every retained card, resumably, and shows progress', async () => {
    for (const number of CARDS.slice(4, 6)) {
      const res = await up.client.sendJson('POST', '/v1/payment_methods.json', card(number));
      upTokens.push(res.json().transaction.payment_method.token);
    }
    const cached = await up.client.sendJson('POST', '/v1/payment_methods.json', card(CARDS[0] as string, false));
    const cachedToken = cached.json().transaction.payment_method.token as string;
    const started = await down.client.sendJson('POST', `/v1/environments/${downEnv}/upstream/backfill.json`, {}, { headers: { 'X-Request-Id': 'req-backfill-start-1' } });
    expect([200, 202]).toContain(started.status);
    await down.core.upstreams.backfill.drain();
    // The walk runs in the background: the cards it copies carry the id of the request that started it.
    const events = (await down.client.get('/v1/events.json?count=100&event_type=ImportPaymentMethod')).json().events as { request_id: string | null; object_key: string }[];
    for (const token of upTokens.slice(4)) expect(events.find((event) => event.object_key === token)?.request_id, token).toBe('req-backfill-start-1');
    const progress = (await down.client.get(`/v1/environments/${downEnv}/upstream.json`)).json().upstream;
    expect(progress.backfill.state).toBe('done');
    expect(progress.remaining).toBe(0);
    expect(progress.backfill.failed).toBe(0);
    for (const token of upTokens) expect((await down.client.get(`/v1/payment_methods/${token}.json`)).status).toBe(200);
    expect(progress.backfill.backfilled + progress.backfill.already_here).toBe(progress.backfill.seen);
    expect(progress.backfilled).toBeGreaterThanOrEqual(2);
    expect(progress.pulled_on_demand).toBeGreaterThanOrEqual(2);
    // The cached card was not listed as retained: it is pulled only when asked for.
    const xml = await down.client.get(`/v1/environments/${downEnv}/upstream.xml`);
    expect(xml.status).toBe(200);
    expect((await down.client.get(`/v1/payment_methods/${cachedToken}.json`)).status).toBe(200);
    // Walking again finds everything here already: nothing is copied twice.
    await down.client.sendJson('POST', `/v1/environments/${downEnv}/upstream/backfill.json`, { backfill: { restart: true } });
    await down.core.upstreams.backfill.drain();
    const again = (await down.client.get(`/v1/environments/${downEnv}/upstream.json`)).json().upstream;
    expect(again.backfill.backfilled).toBe(0);
    expect(again.backfill.already_here).toBe(again.backfill.seen);
  });

  it('shows the migration on the environment page of the portal (never the secret)', async () => {
    await down.core.portalUsers.create(down.init.organization_token, { email: 'owner@example.com', role: 'owner', password: 'a long enough password' });
    const portal = new PortalClient(down.client);
    await portal.signIn('owner@example.com', 'a long enough password');
    const page = await portal.get(`/portal/environments/${downEnv}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Migration from an upstream vault');
    expect(page.text).toContain(upBase);
    expect(page.text).not.toContain(up.init.access_secret);
  });
});

describe('gateways keep their upstream tokens', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ tls: false });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('creates a gateway under a given token (admin only, refused if taken or malformed)', async () => {
    const token = 'LlGTNoFJ6JbwQfDFXeR3dWcb0ma';
    const made = await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', token } });
    expect(made.status).toBe(201);
    expect(made.json().gateway.token).toBe(token);
    expect((await server.client.get(`/v1/gateways/${token}.json`)).status).toBe(200);
    const taken = await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', token } });
    expect(taken.status).toBe(422);
    expect(taken.json().errors[0]).toMatchObject({ key: 'errors.taken', attribute: 'token' });
    const malformed = await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', token: 'no spaces/allowed' } });
    expect(malformed.status).toBe(422);
    const secret = await server.client.sendJson('POST', `/v1/environments/${server.init.environment_key}/access_secrets.json`, { access_secret: { name: 'app', role: 'transact' } });
    const transact = server.client.withAuth({ user: server.init.environment_key, password: secret.json().access_secret.secret });
    const refused = await transact.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', token: 'AnotherToken123' } });
    expect(refused.status).toBe(403);
    expect((await server.client.get('/v1/gateways/AnotherToken123.json')).status).toBe(404);
    // Without a token, a transact secret creates gateways as before.
    expect((await transact.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).status).toBe(201);
  });
});
