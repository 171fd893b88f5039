import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../helpers/client.js';
import { createRetainedCard, createTestGateway } from '../helpers/fixtures.js';
import { ManualClock, currentWholeSecond } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/**
 * API.md §7 (docs/security.md, "Card-testing limits"): every way a card enters the vault — POST payment_methods and an inline
 * `credit_card` on purchase, authorize, verify, store and general credit — spends the same three
 * budgets (BIN6 + last four, BIN8 + last four, client IP), checked before any gateway call: a
 * refused request vaults nothing and records nothing.
 */

const VISA = '4111111111111111';
const DAY = 86_400_000;
const OPERATIONS = ['purchase', 'authorize', 'verify', 'store', 'general_credit'] as const;
/** Six test cards (src/vault/test-cards.ts). */
const NUMBERS = ['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117', '5105105105105100', '4012888888881881'];

const creditCard = (number: string) => ({ first_name: 'Joe', last_name: 'Jones', number, month: 3, year: 2035 });

function inlineXml(number: string): string {
  const card = Object.entries(creditCard(number)).map(([name, value]) => `<${name}>${value}</${name}>`).join('');
  return `<transaction><credit_card>${card}</credit_card><amount>100</amount><currency_code>USD</currency_code></transaction>`;
}

function expectRateLimited(format: 'json' | 'xml', res: ApiResponse): void {
  expect(res.status, res.text).toBe(429);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.headers['ratelimit-remaining']).toBe('0');
  const error = format === 'json' ? res.json().errors[0] : res.xml().errors.error;
  if (format === 'json') expect(error.key).toBe('errors.rate_limited');
  else expect(error['@_key']).toBe('errors.rate_limited');
}

describe.each(storeKinds)('inline cards count against the tokenization budgets (%s)', (store) => {
  let server: TestServer;
  let gateway: string;
  let stored: string;
  const clock = new ManualClock(currentWholeSecond());

  beforeAll(async () => {
    // Defaults (30 a minute per IP), and a small BIN + last four budget to reach it quickly.
    server = await startServer({ store, clock, env: { COFFER_RATE_LIMITS: JSON.stringify({ payment_methods_bin6_last4: { limit: 6, window_seconds: 86_400 } }) } });
    gateway = await createTestGateway(server.client);
    stored = await createRetainedCard(server.client, VISA);
  });
  afterAll(() => server.close());

  const count = async (table: 'payment_methods' | 'transactions') =>
    Number((await server.core.store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  const inlineJson = (operation: string, number: string) =>
    server.client.sendJson('POST', `/v1/gateways/${gateway}/${operation}.json`, { transaction: { credit_card: creditCard(number), amount: 100, currency_code: 'USD' } });

  it('after POST payment_methods answered 429, an inline-card verify from the same address is 429 too (JSON and XML) and vaults nothing', async () => {
    clock.advance(DAY);
    // 30 cards in a minute (5 each of 6 numbers, under the BIN + last four budget of 6).
    for (let index = 0; index < 30; index += 1) {
      const res = await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: creditCard(NUMBERS[index % NUMBERS.length] as string) } });
      expect(res.status, res.text).toBe(201);
    }
    expectRateLimited('json', await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: creditCard('4556761029983886') } }));

    const methods = await count('payment_methods');
    const transactions = await count('transactions');
    expectRateLimited('json', await inlineJson('verify', '3569990010030400'));
    expectRateLimited('xml', await server.client.sendXml('POST', `/v1/gateways/${gateway}/verify.xml`, inlineXml('3569990010030400')));
    for (const operation of OPERATIONS) expectRateLimited('json', await inlineJson(operation, '6011000990139424'));
    expect(await count('payment_methods')).toBe(methods);
    expect(await count('transactions')).toBe(transactions);

    // A transaction on a card already vaulted spends nothing: it still goes through.
    const byToken = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: stored, amount: 100, currency_code: 'USD' } });
    expect(byToken.status).toBe(200);
    expect(byToken.headers['ratelimit-limit']).toBeUndefined();
  });

  it('inline cards on every operation spend the per-IP budget that POST payment_methods then finds spent', async () => {
    clock.advance(DAY);
    // Every operation with each of 6 cards: 30 inline tokenizations in one minute.
    let spent = 0;
    for (const number of NUMBERS) {
      for (const operation of OPERATIONS) {
        const res = await inlineJson(operation, number);
        expect(res.status, `${operation} ${res.text}`).not.toBe(429);
        expect(res.headers['ratelimit-limit']).toBeDefined();
        spent += 1;
      }
    }
    expect(spent).toBe(30);
    expectRateLimited('json', await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: creditCard('4242424242424242') } }));
  });

  it('one card has one BIN + last four budget, whichever way it comes in', async () => {
    clock.advance(DAY);
    const number = '4000056655665556';
    for (let index = 0; index < 6; index += 1) {
      clock.advance(61_000); // past the per-IP minute: only the card budget counts
      const res = index % 2 === 0 ? await inlineJson('purchase', number) : await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: creditCard(number) } });
      expect(res.status, res.text).not.toBe(429);
    }
    clock.advance(61_000);
    expectRateLimited('json', await inlineJson('authorize', number));
    expectRateLimited('json', await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: creditCard(number) } }));
  });
});
