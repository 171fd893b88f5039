import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultyGateway } from '../fakes/faulty-gateway.js';
import type { ApiClient } from '../helpers/client.js';
import { startServer, type TestServer } from '../helpers/server.js';

// The deployment waits 20 s for a gateway; one gateway is told to wait only 1 s.
describe('per-gateway timeout (gateway_settings.timeout_seconds)', () => {
  let fake: FaultyGateway;
  let server: TestServer;
  let live: ApiClient;
  let card: string;

  beforeAll(async () => {
    fake = await FaultyGateway.start('hang');
    server = await startServer({ env: { COFFER_GATEWAY_ENDPOINTS: fake.endpoints(), COFFER_EGRESS_ALLOW: '127.0.0.1', COFFER_GATEWAY_TIMEOUT: '20' } });
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
    const vaulted = await live.sendJson('POST', '/v1/payment_methods.json', {
      payment_method: { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: '4242424242424242', month: 12, year: 2035 }, retained: true },
    });
    card = vaulted.json().transaction.payment_method.token;
  });
  afterAll(async () => {
    fake.dropHung();
    await server.close();
    await fake.close();
  });

  it('is stored, shown under gateway_settings, and validated', async () => {
    const created = await live.sendXml('POST', '/v1/gateways.xml', '<gateway><gateway_type>stripe</gateway_type><login>sk_live_x</login><gateway_settings><timeout_seconds>1</timeout_seconds></gateway_settings></gateway>');
    expect(created.status).toBe(201);
    expect(created.xml().gateway.gateway_settings.timeout_seconds['#text']).toBe('1');
    const token = created.xml().gateway.token as string;
    const json = await live.get(`/v1/gateways/${token}.json`);
    expect(json.json().gateway.gateway_settings).toEqual({ timeout_seconds: 1 });

    const tooLong = await live.sendJson('PUT', `/v1/gateways/${token}.json`, { gateway: { gateway_settings: { timeout_seconds: 601 } } });
    expect(tooLong.status).toBe(422);
    expect(tooLong.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'timeout_seconds' });
    expect((await live.get(`/v1/gateways/${token}.json`)).json().gateway.gateway_settings).toEqual({ timeout_seconds: 1 });
  });

  it('bounds calls to that gateway, not to the others', async () => {
    const quick = (await live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: 'sk_live_x', gateway_settings: { timeout_seconds: 1 } } })).json().gateway.token;
    const started = performance.now();
    const res = await live.sendJson('POST', `/v1/gateways/${quick}/purchase.json`, { transaction: { payment_method_token: card, amount: 100, currency_code: 'USD' } });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(408);
    expect(res.json().transaction.state).toBe('gateway_processing_result_unknown');
    expect(elapsed).toBeLessThan(5_000);

    // The same hang on a gateway without its own setting is still waiting after 3 s (deployment: 20 s).
    const patient = (await live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: 'sk_live_x' } })).json().gateway.token;
    const pending = live.sendJson('POST', `/v1/gateways/${patient}/purchase.json`, { transaction: { payment_method_token: card, amount: 100, currency_code: 'USD' } });
    const outcome = await Promise.race([pending.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3_000))]);
    expect(outcome).toBe('still waiting');
    fake.dropHung();
    expect((await pending).status).toBe(408);
  });
});
