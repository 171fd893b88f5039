import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PaymentMethodsRepo } from '../../src/store/repositories/payment-methods.repo.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { storeKinds } from '../helpers/postgres.js';
import { addPaymentMethod, createTestGateway } from '../helpers/fixtures.js';

const CARD = { first_name: 'Ada', last_name: 'Lovelace', number: '4111111111111111', verification_value: '123', month: 12, year: 2031 };

/**
 * A purchase with a retained token reads its payment method once (the 422 check and
 * the plan share the row; its use is decided by the conditional update under the lock).
 */
describe.each(storeKinds)('statements of a purchase (%s)', (store) => {
  let server: TestServer;
  let gateway: string;
  let card: string;
  beforeAll(async () => {
    server = await startServer({ store });
    gateway = await createTestGateway(server.client);
    card = (await addPaymentMethod(server.client, { retained: true, credit_card: CARD })).payment_method.token;
  });
  afterAll(() => server.close());

  it('reads the payment method once, then succeeds; an unknown token is still a 422 before anything else', async () => {
    const find = vi.spyOn(PaymentMethodsRepo.prototype, 'find');
    try {
      const res = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: card } });
      expect(res.status).toBe(200);
      expect(res.json().transaction.state).toBe('succeeded');
      expect(find.mock.calls.filter(([, token]) => token === card)).toHaveLength(1);
      const unknown = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: 'NoSuchToken1234567890abcd' } });
      expect(unknown.status).toBe(422);
      expect(unknown.json().errors[0].key).toBe('errors.payment_method_not_found');
    } finally {
      find.mockRestore();
    }
  });

  it('names its transaction, its events and a new payment method with tokens that lead with their creation time', async () => {
    const started = Date.now();
    const res = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', credit_card: CARD } });
    expect(res.status).toBe(200);
    const { transaction } = res.json();
    const listed = (await server.client.get('/v1/events.json')).json().events as Array<{ id: string; object_key: string }>;
    const events = listed.filter((event) => event.object_key === transaction.token);
    expect(events.length).toBeGreaterThan(1); // created, then succeeded
    const timeOf = (token: string) => Number.parseInt(token.slice(0, 9), 36);
    for (const token of [transaction.token as string, transaction.payment_method.token as string, ...events.map((event) => event.id)]) {
      expect(token).toMatch(/^[0-9a-z]{9}[A-Za-z0-9]{20}$/);
      expect(timeOf(token)).toBeGreaterThanOrEqual(started);
      expect(timeOf(token)).toBeLessThanOrEqual(Date.now());
    }
  });

  it("nests the payment method as the purchase's own writes left it, without reading it again", async () => {
    const token = (await addPaymentMethod(server.client, { credit_card: CARD })).payment_method.token as string;
    const findMany = vi.spyOn(PaymentMethodsRepo.prototype, 'findMany');
    try {
      const res = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: token, retain_on_success: true } });
      expect(res.status).toBe(200);
      expect(findMany).not.toHaveBeenCalled();
      // Exactly what a read shows: the transaction read back nests the method read afresh.
      const nested = res.json().transaction.payment_method;
      const readBack = (await server.client.get(`/v1/transactions/${res.json().transaction.token}.json`)).json().transaction.payment_method;
      expect(findMany).toHaveBeenCalledTimes(1);
      expect(nested).toEqual(readBack);
      // The nested storage_state is the one the purchase began with (Spreedly's); the method itself is retained now.
      expect(nested.storage_state).toBe('cached');
      expect((await server.client.get(`/v1/payment_methods/${token}.json`)).json().payment_method.storage_state).toBe('retained');
    } finally {
      findMany.mockRestore();
    }
  });
});
