import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { storeKinds } from '../helpers/postgres.js';
import { gatewayOf } from '../../src/store/mappers/gateway.js';

const CHARACTERISTIC_ORDER = ['supports_purchase', 'supports_authorize', 'supports_capture'];

describe.each(storeKinds)('gateways over HTTPS (%s)', (store) => {
  let server: TestServer;
  let productionAuth: { user: string; password: string };

  beforeAll(async () => {
    server = await startServer({ store });
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    productionAuth = { user: production.key, password: server.init.access_secret };
  });
  afterAll(() => server.close());

  it('creates a test gateway in JSON (201) with fields in wire order', async () => {
    const res = await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', login: 'ignored' } });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const gateway = res.json().gateway;
    expect(Object.keys(gateway)).toEqual([
      'token', 'gateway_type', 'name', 'description', 'merchant_profile_key', 'sub_merchant_key', 'characteristics',
      'credentials', 'gateway_settings', 'gateway_specific_fields', 'payment_methods', 'state', 'redacted', 'sandbox',
      'created_at', 'updated_at',
    ]);
    expect(gateway).toMatchObject({ gateway_type: 'test', name: 'Spreedly Test', state: 'retained', redacted: false, credentials: [] });
    expect(gateway.token).toMatch(/^[A-Za-z0-9]{29}$/);
    expect(gateway.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Object.keys(gateway.characteristics).slice(0, 3)).toEqual(CHARACTERISTIC_ORDER);
    expect(gateway.payment_methods).toContain('credit_card');
    expect(res.text).not.toContain('ignored');
  });

  it('creates a test gateway in XML (201) with Rails typing', async () => {
    const res = await server.client.sendXml('POST', '/v1/gateways.xml', '<gateway><gateway_type>test</gateway_type><sandbox>true</sandbox><description/></gateway>');
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(res.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(res.text).toContain('<name>Spreedly Test</name>');
    expect(res.text).toContain('<description nil="true"/>');
    expect(res.text).toContain('<sandbox type="boolean">true</sandbox>');
    expect(res.text).toMatch(/<created_at type="dateTime">\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ<\/created_at>/);
    expect(res.text).toMatch(/<payment_methods>\s*<payment_method>credit_card<\/payment_method>/);
    const gateway = res.xml().gateway;
    expect(gateway.state).toBe('retained');
    expect(gateway.redacted['#text']).toBe('false');
    // Element order: the gem reads the first match, so token/state come in wire order.
    const order = ['<token>', '<gateway_type>', '<name>', '<characteristics>', '<credentials', '<payment_methods>', '<state>', '<created_at'];
    const positions = order.map((tag) => res.text.indexOf(tag));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('accepts application/xml with a charset and untyped values', async () => {
    const res = await server.client.request('POST', '/v1/gateways.xml', {
      contentType: 'application/xml; charset=utf-8',
      body: '<?xml version="1.0"?><gateway><gateway_type>test</gateway_type><sandbox>1</sandbox></gateway>',
    });
    expect(res.status).toBe(201);
    expect(res.xml().gateway.sandbox['#text']).toBe('true');
  });

  it('shows, lists and paginates gateways', async () => {
    const created: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', description: `page-${i}` } });
      created.push(res.json().gateway.token);
    }
    const shown = await server.client.get(`/v1/gateways/${created[0]}.json`);
    expect(shown.status).toBe(200);
    expect(shown.json().gateway.description).toBe('page-0');

    const all = await server.client.get('/v1/gateways.json?count=100');
    const tokens = all.json().gateways.map((g: { token: string }) => g.token);
    expect(tokens.slice(-3)).toEqual(created);

    const after = await server.client.get(`/v1/gateways.json?since_token=${created[0]}`);
    expect(after.json().gateways.map((g: { token: string }) => g.token)).toEqual(created.slice(1));

    const desc = await server.client.get(`/v1/gateways.json?order=desc&count=2`);
    expect(desc.json().gateways.map((g: { token: string }) => g.token)).toEqual([created[2], created[1]]);

    const xml = await server.client.get(`/v1/gateways.xml?since_token=${created[1]}`);
    expect(xml.status).toBe(200);
    const listed = xml.xml().gateways.gateway;
    expect((Array.isArray(listed) ? listed : [listed]).map((g: { token: string }) => g.token)).toEqual([created[2]]);

    const big = await server.client.get('/v1/gateways.json?count=500');
    expect(big.status).toBe(200);
    expect(big.json().gateways.length).toBeLessThanOrEqual(100);
  });

  it('refuses bad list parameters with 422 field errors', async () => {
    const order = await server.client.get('/v1/gateways.json?order=sideways');
    expect(order.status).toBe(422);
    expect(order.json().errors[0]).toMatchObject({ key: 'errors.inclusion', attribute: 'order' });
    const count = await server.client.get('/v1/gateways.xml?count=-4');
    expect(count.status).toBe(422);
    expect(count.xml().errors.error['@_attribute']).toBe('count');
    const since = await server.client.get('/v1/gateways.json?since_token=nope');
    expect(since.status).toBe(422);
    expect(since.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'since_token' });
  });

  it('answers 404 for an unknown gateway in JSON and XML', async () => {
    const json = await server.client.get('/v1/gateways/unknown.json');
    expect(json.status).toBe(404);
    expect(json.json()).toEqual({ errors: [{ key: 'errors.gateway_not_found', message: 'Unable to find the specified gateway.' }] });
    const xml = await server.client.get('/v1/gateways/unknown.xml');
    expect(xml.status).toBe(404);
    expect(xml.text).toContain('<error key="errors.gateway_not_found">Unable to find the specified gateway.</error>');
  });

  it('refuses an unknown gateway_type with 422 errors.invalid_gateway_type', async () => {
    for (const body of [{ gateway: { gateway_type: 'nonesuch' } }, { gateway: {} }]) {
      const res = await server.client.sendJson('POST', '/v1/gateways.json', body);
      expect(res.status).toBe(422);
      expect(res.json().errors).toEqual([{ key: 'errors.invalid_gateway_type', message: 'The gateway_type parameter is invalid.' }]);
    }
    const xml = await server.client.sendXml('POST', '/v1/gateways.xml', '<gateway><gateway_type>__proto__</gateway_type></gateway>');
    expect(xml.status).toBe(422);
    expect(xml.xml().errors.error['@_key']).toBe('errors.invalid_gateway_type');
  });

  it('refuses a production gateway in a test environment with 402', async () => {
    const res = await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: 'sk_test_123' } });
    expect(res.status).toBe(402);
    const error = res.json().errors[0];
    expect(error.key).toBe('errors.account_inactive');
    expect(error.message).toBe(
      `Your environment (${server.init.environment_key}) has not been activated for real transactions with real payment methods. ` +
        "If you're using a Test Gateway you can *ONLY* use Test payment methods - ( https://docs.spreedly.com/test-data). " +
        'All other credit card numbers are considered real credit cards; real credit cards are not allowed when using a Test Gateway.',
    );
    const xml = await server.client.sendXml('POST', '/v1/gateways.xml', '<gateway><gateway_type>stripe</gateway_type><login>sk_test_123</login></gateway>');
    expect(xml.status).toBe(402);
    expect(xml.xml().errors.error['@_key']).toBe('errors.account_inactive');
  });

  it('creates a Stripe gateway in production without ever echoing its secret key', async () => {
    const secretKey = 'sk_live_SECRETVALUE0123456789';
    const prod = server.client.withAuth(productionAuth);
    const missing = await prod.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe' } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'login', message: "Login can't be blank" }]);

    const res = await prod.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: secretKey } });
    expect(res.status).toBe(201);
    const gateway = res.json().gateway;
    expect(gateway.name).toBe('Stripe');
    expect(gateway.credentials).toEqual([]);
    expect(res.text).not.toContain(secretKey);
    const shown = await prod.get(`/v1/gateways/${gateway.token}.xml`);
    expect(shown.text).not.toContain(secretKey);
    expect(shown.text).toContain('<credentials/>');
    // Sealed at rest: the secret key is not in the database in clear.
    const row = await server.core.store.db.selectFrom('gateways').selectAll().where('token', '=', gateway.token).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(secretKey);
    expect(await server.core.gateways.openCredentials(gatewayOf(row))).toEqual({ login: secretKey });
    expect(server.logs.join('\n')).not.toContain(secretKey);

    const rotated = await prod.sendXml('PUT', `/v1/gateways/${gateway.token}.xml`, '<gateway><login>sk_live_ROTATED</login><description>main</description></gateway>');
    expect(rotated.status).toBe(200);
    expect(rotated.text).not.toContain('sk_live_ROTATED');
    const after = await server.core.store.db.selectFrom('gateways').selectAll().where('token', '=', gateway.token).executeTakeFirstOrThrow();
    expect(await server.core.gateways.openCredentials(gatewayOf(after))).toEqual({ login: 'sk_live_ROTATED' });
  });

  it('refuses a credential field the gateway type does not declare, naming it, in JSON and XML (nothing created)', async () => {
    const prod = server.client.withAuth(productionAuth);
    const before = (await prod.get('/v1/gateways.json')).json().gateways.length;
    const json = await prod.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: 'sk_live_x', pasword: 'typo' } });
    expect(json.status).toBe(422);
    expect(json.json().errors).toEqual([{ key: 'errors.invalid', attribute: 'pasword', message: 'pasword is not a credential of the Stripe gateway' }]);
    const xml = await prod.sendXml('POST', '/v1/gateways.xml', '<gateway><gateway_type>stripe</gateway_type><api_key>k</api_key></gateway>');
    expect(xml.status).toBe(422);
    const errors = xml.xml().errors.error;
    const entries = Array.isArray(errors) ? errors : [errors];
    expect(entries.map((entry: any) => [entry['@_key'], entry['@_attribute']])).toEqual([['errors.invalid', 'api_key'], ['errors.blank', 'login']]);
    expect((await prod.get('/v1/gateways.json')).json().gateways.length).toBe(before);

    const created = await prod.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: 'sk_live_x' } });
    const update = await prod.sendJson('PUT', `/v1/gateways/${created.json().gateway.token}.json`, { gateway: { secret: 'x' } });
    expect(update.status).toBe(422);
    expect(update.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'secret' });
  });

  it('updates a gateway and refuses a gateway_type change with 422', async () => {
    const token = (await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).json().gateway.token;
    const updated = await server.client.sendJson('PUT', `/v1/gateways/${token}.json`, { gateway: { description: 'renamed', gateway_type: 'test' } });
    expect(updated.status).toBe(200);
    expect(updated.json().gateway.description).toBe('renamed');
    const changed = await server.client.sendXml('PUT', `/v1/gateways/${token}.xml`, '<gateway><gateway_type>stripe</gateway_type></gateway>');
    expect(changed.status).toBe(422);
    expect(changed.xml().errors.error['@_key']).toBe('errors.gateway_gateway_type_cannot_be_changed');
    const unchanged = await server.client.get(`/v1/gateways/${token}.json`);
    expect(unchanged.json().gateway.gateway_type).toBe('test');
    const missing = await server.client.sendJson('PUT', '/v1/gateways/nope.json', { gateway: { description: 'x' } });
    expect(missing.status).toBe(404);
  });

  it('redacts a gateway: a RedactGateway transaction wrapping it, credentials destroyed', async () => {
    const prod = server.client.withAuth(productionAuth);
    const token = (await prod.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: 'sk_live_TO_DESTROY' } })).json().gateway.token;
    const res = await prod.request('PUT', `/v1/gateways/${token}/redact.xml`, { body: '' });
    expect(res.status).toBe(200);
    const transaction = res.xml().transaction;
    expect(transaction.transaction_type).toBe('RedactGateway');
    expect(transaction.succeeded['#text']).toBe('true');
    expect(transaction.message).toEqual({ '#text': 'Succeeded!', '@_key': 'messages.transaction_succeeded' });
    expect(transaction.gateway.token).toBe(token);
    expect(transaction.gateway.state).toBe('redacted');
    expect(transaction.gateway.redacted['#text']).toBe('true');
    // The transaction's own scalars precede the nested gateway (the Ruby gem reads the first match).
    expect(res.text.indexOf('<transaction_type>')).toBeLessThan(res.text.indexOf('<gateway>'));
    const row = await server.core.store.db.selectFrom('gateways').selectAll().where('token', '=', token).executeTakeFirstOrThrow();
    expect(row.sealed_credentials).toBeNull();
    expect(row.safe_credentials).toBeNull();
    const stored = await server.core.store.db.selectFrom('transactions').selectAll().where('gateway_token', '=', token).execute();
    expect(stored.map((t) => t.transaction_type)).toEqual(['RedactGateway']);

    const json = await prod.request('POST', `/v1/gateways/${token}/redact.json`);
    expect(json.status).toBe(200);
    expect(json.json().transaction).toMatchObject({ transaction_type: 'RedactGateway', message_key: 'messages.transaction_succeeded', message: 'Succeeded!' });
    expect(json.json().transaction.gateway.state).toBe('redacted');

    const retain = await prod.request('PUT', `/v1/gateways/${token}/retain.json`);
    expect(retain.status).toBe(422);
    expect(retain.json().errors[0].key).toBe('errors.gateway_redacted');
    const update = await prod.sendJson('PUT', `/v1/gateways/${token}.json`, { gateway: { description: 'x' } });
    expect(update.status).toBe(422);
    const missing = await prod.request('PUT', '/v1/gateways/nope/redact.json');
    expect(missing.status).toBe(404);
  });

  it('retains a gateway (PUT or POST, empty body)', async () => {
    const token = (await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).json().gateway.token;
    const put = await server.client.request('PUT', `/v1/gateways/${token}/retain.xml`, { body: '', contentType: 'text/xml' });
    expect(put.status).toBe(200);
    expect(put.xml().gateway.state).toBe('retained');
    const post = await server.client.request('POST', `/v1/gateways/${token}/retain.json`);
    expect(post.status).toBe(200);
  });

  it('serves gateways_options without auth, in JSON and XML', async () => {
    const json = await server.client.get('/v1/gateways_options.json', { auth: null });
    expect(json.status).toBe(200);
    const types = json.json().gateways.map((g: { gateway_type: string }) => g.gateway_type);
    expect(types).toEqual(['test', 'stripe', 'adyen', 'braintree', 'authorize_net', 'checkout_v2', 'cyber_source_rest', 'paypal_commerce_platform', 'worldpay', 'nmi', 'moneris', 'elavon', 'realex', 'mercado_pago', 'd_local', 'cyber_source', 'paysafe', 'commerce_hub', 'global_collect', 'nuvei', 'shift4_v2', 'redsys_rest', 'ebanx', 'orbital', 'litle']);
    const stripe = json.json().gateways[1];
    expect(stripe.auth_modes[0].credentials).toEqual([{ name: 'login', label: 'Secret Key', safe: false }]);
    expect(stripe.characteristics).toMatchObject({ supports_purchase: true, supports_store: true, supports_remove: false });
    expect(stripe.payment_methods).toEqual(['credit_card', 'third_party_token', 'apple_pay', 'google_pay']);
    // The test gateway advertises what it does, and only payment methods POST payment_methods takes.
    const test = json.json().gateways[0];
    expect(test.payment_methods).toEqual(['credit_card', 'third_party_token', 'bank_account', 'apple_pay', 'google_pay']);
    expect(test.characteristics).toMatchObject({ supports_purchase: true, supports_general_credit: true, supports_3dsecure_purchase: true, supports_remove: false, supports_adjust: false, supports_offsite_purchase: false });
    const adyen = json.json().gateways[2];
    expect(adyen.auth_modes.map((mode: { auth_mode_type: string }) => mode.auth_mode_type)).toEqual(['default', 'api_key']);
    expect(adyen.characteristics).toMatchObject({ supports_purchase: true, supports_void: true, supports_store: true, supports_general_credit: false, supports_remove: false });
    const xml = await server.client.get('/v1/gateways_options.xml', { auth: null });
    expect(xml.status).toBe(200);
    expect(xml.text).toContain('<supported_countries>');
    expect(xml.text).toContain('<regions>');
    expect(xml.text).toContain('<safe type="boolean">false</safe>');
    const legacy = await server.client.request('OPTIONS', '/v1/gateways.xml', { auth: null });
    expect(legacy.status).toBe(200);
    expect(legacy.text).toBe(xml.text);
  });
});
