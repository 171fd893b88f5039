import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

describe('request logs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('writes one JSON line per request with id, method, route, status, duration and environment', async () => {
    const before = server.logs.length;
    const res = await server.client.get('/v1/gateways.json', { headers: { 'x-request-id': 'log-check-1' } });
    expect(res.status).toBe(200);
    // The line is written once the answer has gone out (onResponse), which may be after the client has it.
    const mine = await vi.waitFor(() => {
      const found = server.logs.slice(before).map((line) => JSON.parse(line)).filter((line) => line.reqId === 'log-check-1');
      expect(found).toHaveLength(1);
      return found;
    });
    expect(mine[0]).toMatchObject({
      msg: 'request',
      method: 'GET',
      route: '/v1/gateways',
      status: 200,
      environmentKey: server.init.environment_key,
    });
    expect(typeof mine[0].durationMs).toBe('number');
  });

  it('never logs secrets, credentials, bodies or Authorization headers', async () => {
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    const prod = server.client.withAuth({ user: production.key, password: server.init.access_secret });
    const stripeKey = 'sk_live_LOGSECRET_4242424242424242';
    const description = 'BODY-MARKER-should-not-be-logged';
    await prod.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: stripeKey, description } });
    await prod.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>stripe</gateway_type><login>${stripeKey}</login></gateway>`);
    await prod.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: stripeKey, description: 'x'.repeat(2000) } });
    await server.client.get('/v1/gateways.json', { auth: { user: server.init.environment_key, password: 'WRONG-SECRET-VALUE' } });
    await server.client.request('POST', '/v1/gateways.json', { contentType: 'application/json', body: `{"gateway":{"login":"${stripeKey}"` });
    await server.client.get(`/v1/gateways.json?since_token=${stripeKey}`);
    const created = await server.client.sendJson('POST', `/v1/environments/${server.init.environment_key}/access_secrets.json`, { access_secret: { name: 'n' } });
    const newSecret = created.json().access_secret.secret as string;

    const all = server.logs.join('\n');
    for (const forbidden of [server.init.access_secret, stripeKey, description, 'WRONG-SECRET-VALUE', newSecret, 'Basic ', 'authorization']) {
      expect(all).not.toContain(forbidden);
    }
    for (const line of server.logs) expect(() => JSON.parse(line)).not.toThrow();
  });
});
