import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from '../helpers/client.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * The card form's recache (`Spreedly.setRecache` / `recache()`, docs/card-capture.md) during a live
 * migration (docs/portability.md, "Pull-through"), with a second Coffer as the upstream: a CVV
 * recached through the card form for a token only the upstream holds pulls the card first, under
 * the same token, and the recache then applies to it; a token unknown on both sides is 404. The
 * origin and signature checks come first: a refused request pulls nothing. No answer or log line
 * holds a card number (the helpers' leak guards).
 */

const EGRESS = { COFFER_EGRESS_ALLOW: '127.0.0.0/8,::1' };
const CARDS = ['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117'];

function noCard(res: ApiResponse): void {
  for (const number of CARDS) expect(res.text).not.toContain(number);
}

describe.each(storeKinds)('card form recache pulls through from the upstream (%s)', (store) => {
  let up: TestServer;
  let down: TestServer;
  let downEnv: string;
  let browser: ApiClient;
  let gateway: string;
  const upTokens: string[] = [];

  const recache = (token: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}, key = downEnv) =>
    browser.request('POST', `/v1/payment_methods/restricted/${token}/recache.json?environment_key=${key}`, {
      contentType: 'application/json',
      body: JSON.stringify({ payment_method: { credit_card: { verification_value: '123' }, ...body } }),
      headers,
    });
  const heldDownstream = async (token: string) =>
    down.core.paymentMethods.show(await down.core.tenancy.requireEnvironment(downEnv), token).then(
      () => true,
      () => false,
    );

  beforeAll(async () => {
    up = await startServer({ store, tls: false, env: EGRESS });
    down = await startServer({ store, tls: false, env: EGRESS });
    const upBase = up.client.baseUrl.replace('localhost', '127.0.0.1');
    const downBase = down.client.baseUrl.replace('localhost', '127.0.0.1');
    downEnv = down.init.environment_key;
    browser = new ApiClient(downBase, null, null);
    for (const number of CARDS) {
      const made = await up.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { number, month: 12, year: 2035, first_name: 'Ada', last_name: 'Lovelace' }, email: 'ada@example.com', retained: true } });
      expect(made.status).toBe(201);
      upTokens.push(made.json().transaction.payment_method.token);
    }
    const set = await down.client.sendJson('PUT', `/v1/environments/${downEnv}.json`, {
      environment: { upstream: { url: upBase, environment_key: up.init.environment_key, access_secret: up.init.access_secret, public_url: downBase } },
    });
    expect(set.status).toBe(200);
    const made = await down.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } });
    gateway = made.json().gateway.token;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await down?.close();
    await up?.close();
  });

  it('pulls the card named by a recache, keeps its token, recaches its CVV, and it is then charged by that token', async () => {
    const token = upTokens[0] as string;
    expect(await heldDownstream(token)).toBe(false);
    const answer = await recache(token);
    noCard(answer);
    expect(answer.status, answer.text).toBe(200);
    const transaction = answer.json().transaction;
    expect(transaction).toMatchObject({ transaction_type: 'RecacheSensitiveData', succeeded: true, payment_method: { token, last_four_digits: '1111', email: 'ada@example.com', storage_state: 'retained' } });
    expect(await heldDownstream(token)).toBe(true);
    const shown = (await down.client.get(`/v1/payment_methods/${token}.json`)).json().payment_method;
    // The CVV is held now (masked, one X a digit), for one caching window.
    expect(shown.verification_value).toBe('XXX');
    const purchase = await down.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: token, amount: 100, currency_code: 'USD' } });
    noCard(purchase);
    expect(purchase.json().transaction.succeeded).toBe(true);
    // The upstream delivered once, and still holds its card as it was.
    expect((await up.client.get(`/v1/payment_methods/${token}.json`)).json().payment_method.storage_state).toBe('retained');
  });

  it('answers 404 for a token unknown on both sides, and 401 for an unknown environment key', async () => {
    const missing = await recache('NoSuchToken000000000000000');
    expect(missing.status).toBe(404);
    expect(missing.json().errors[0].key).toBe('errors.payment_method_not_found');
    expect((await recache(upTokens[1] as string, {}, {}, 'NoSuchEnvironment')).status).toBe(401);
    expect(await heldDownstream(upTokens[1] as string)).toBe(false);
  });

  it('checks the origin and the signature before pulling anything', async () => {
    const token = upTokens[1] as string;
    const origins = await down.client.sendJson('PUT', `/v1/environments/${downEnv}.json`, { environment: { allowed_origins: ['https://shop.example'] } });
    expect(origins.status).toBe(200);
    const refused = await recache(token, {}, { origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(refused.json().errors[0].key).toBe('errors.origin_not_allowed');
    expect(await heldDownstream(token)).toBe(false);

    const enhanced = await down.client.sendJson('PUT', `/v1/environments/${downEnv}.json`, { environment: { allowed_origins: ['https://shop.example'], enhanced_iframe_security: true } });
    expect(enhanced.status).toBe(200);
    const unsigned = await recache(token, {}, { origin: 'https://shop.example' });
    expect(unsigned.status).toBe(403);
    expect(unsigned.json().errors[0].key).toBe('errors.invalid_signature');
    expect(await heldDownstream(token)).toBe(false);

    await down.client.sendJson('PUT', `/v1/environments/${downEnv}.json`, { environment: { allowed_origins: [], enhanced_iframe_security: false } });
    const allowed = await recache(token, {}, { origin: 'https://shop.example' });
    expect(allowed.status).toBe(200);
    expect(await heldDownstream(token)).toBe(true);
  });

  it('refuses a malformed CVV before pulling anything', async () => {
    const token = upTokens[2] as string;
    const bad = await recache(token, { credit_card: { verification_value: 'x'.repeat(20) } });
    expect(bad.status).toBe(422);
    noCard(bad);
    expect(await heldDownstream(token)).toBe(false);
  });
});
