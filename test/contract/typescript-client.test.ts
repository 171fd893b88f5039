import fs from 'node:fs';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCofferClient, type CofferClient } from '../../clients/typescript/src/index.js';
import { renderClientTypes } from '../../clients/typescript/scripts/render.mjs';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * The generated TypeScript client (clients/typescript): its checked-in types are those of the live
 * document, and it works against a running Coffer: a gateway, a card, a purchase, and the errors.
 */

const SCHEMA_FILE = new URL('../../clients/typescript/src/schema.d.ts', import.meta.url);

describe('the TypeScript client', () => {
  let server: TestServer;
  let client: CofferClient;
  let agent: Agent;

  beforeAll(async () => {
    server = await startServer();
    agent = new Agent({ connect: server.ca === null ? {} : { ca: server.ca } });
    const trustingFetch = ((url: string, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch;
    client = createCofferClient({ baseUrl: server.client.baseUrl, environmentKey: server.init.environment_key, accessSecret: server.init.access_secret, fetch: trustingFetch });
  });

  afterAll(async () => {
    await agent?.close();
    await server?.close();
  });

  it('has the types of the live document (run `npm run client:generate` when this fails)', async () => {
    const res = await server.client.get('/v1/openapi.json', { auth: null });
    expect(res.status).toBe(200);
    const expected = await renderClientTypes(res.json());
    expect(fs.readFileSync(SCHEMA_FILE, 'utf8') === expected, 'clients/typescript/src/schema.d.ts is not the document of this checkout: npm run client:generate').toBe(true);
  });

  it('creates a gateway, tokenizes a card and purchases with it', async () => {
    const gateway = await client.post('/v1/gateways', { body: { gateway: { gateway_type: 'test' } } });
    expect(gateway.status).toBe(201);
    if (!gateway.ok) throw new Error('gateway');
    const gatewayToken: string = gateway.data.gateway.token;

    const added = await client.post('/v1/payment_methods', {
      body: { payment_method: { credit_card: { first_name: 'Joe', last_name: 'Jones', number: '4111111111111111', month: 3, year: 2035, verification_value: '123' } } },
    });
    expect(added.status).toBe(201);
    if (!added.ok) throw new Error('tokenize');
    const card = added.data.transaction.payment_method;
    // A payment method that failed validation has no token (InvalidPaymentMethod): the types say so.
    if (card === undefined || card.token === null) throw new Error('no payment method');
    expect(card.number).toBe('XXXX-XXXX-XXXX-1111');
    const cardToken = card.token;

    const purchase = await client.post('/v1/gateways/{token}/purchase', {
      path: { token: gatewayToken },
      body: { transaction: { payment_method_token: cardToken, amount: 1234, currency_code: 'USD' } },
      idempotencyKey: 'client-test-1',
    });
    expect(purchase.status).toBe(200);
    if (!purchase.ok) throw new Error('purchase');
    expect(purchase.data.transaction).toMatchObject({ succeeded: true, state: 'succeeded', transaction_type: 'Purchase', amount: 1234, gateway_token: gatewayToken });

    const shown = await client.get('/v1/transactions/{token}', { path: { token: purchase.data.transaction.token } });
    expect(shown.ok && shown.data.transaction.amount).toBe(1234);

    const page = await client.get('/v1/transactions', { query: { count: 1, order: 'desc' } });
    expect(page.ok && page.data.transactions.map((transaction) => transaction.token)).toEqual([purchase.data.transaction.token]);
  });

  it('gives a decline as ok: false with the transaction, and an unknown token as the errors body', async () => {
    const gateway = await client.post('/v1/gateways', { body: { gateway: { gateway_type: 'test' } } });
    if (!gateway.ok) throw new Error('gateway');
    const added = await client.post('/v1/payment_methods', { body: { payment_method: { credit_card: { first_name: 'Joe', last_name: 'Jones', number: '4012888888881881', month: 3, year: 2035 } } } });
    if (!added.ok) throw new Error('tokenize');
    const declined = await client.post('/v1/gateways/{token}/purchase', {
      path: { token: gateway.data.gateway.token },
      body: { transaction: { payment_method_token: added.data.transaction.payment_method?.token ?? undefined, amount: 100, currency_code: 'USD' } },
    });
    expect(declined).toMatchObject({ ok: false, status: 422 });
    expect(!declined.ok && declined.error !== undefined && 'transaction' in declined.error && declined.error.transaction.succeeded).toBe(false);

    const missing = await client.get('/v1/gateways/{token}', { path: { token: 'NoSuchGateway' } });
    expect(missing).toMatchObject({ ok: false, status: 404 });
    expect(!missing.ok && missing.error?.errors[0]?.key).toBe('errors.gateway_not_found');
  });

  it('answers 401 to a wrong secret and never sends a path parameter it lacks', async () => {
    const stranger = createCofferClient({ baseUrl: server.client.baseUrl, environmentKey: server.init.environment_key, accessSecret: 'wrong', fetch: ((url: string, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch });
    const refused = await stranger.get('/v1/gateways');
    expect(refused).toMatchObject({ ok: false, status: 401 });
    // @ts-expect-error the path parameter is required by the types
    await expect(client.get('/v1/gateways/{token}', {})).rejects.toThrow(/missing path parameter token/);
  });
});
