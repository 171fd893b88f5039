import { expect } from 'vitest';
import type { ApiClient } from './client.js';
import type { TestServer } from './server.js';

/**
 * Fixtures the e2e tests build over the API (gateways, vaulted cards, transactions) and the
 * stored rows they read back. Every creation asserts its 201, so a broken fixture fails at once.
 */

type JsonSender = Pick<ApiClient, 'sendJson'>;

/** A gateway of type `test`; its token. */
export async function createTestGateway(client: JsonSender): Promise<string> {
  const res = await client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } });
  expect(res.status, res.text).toBe(201);
  return res.json().gateway.token;
}

/** POSTs `{ payment_method: paymentMethod }` in JSON, expects 201; the AddPaymentMethod transaction. */
export async function addPaymentMethod(client: JsonSender, paymentMethod: Record<string, unknown>): Promise<any> {
  const res = await client.sendJson('POST', '/v1/payment_methods.json', { payment_method: paymentMethod });
  expect(res.status, res.text).toBe(201);
  return res.json().transaction;
}

/** A retained card (Joe Jones, 3/2035) with `number`, so that moving a clock does not redact it; its token. */
export async function createRetainedCard(client: JsonSender, number: string): Promise<string> {
  const transaction = await addPaymentMethod(client, {
    credit_card: { first_name: 'Joe', last_name: 'Jones', number, month: 3, year: 2035 },
    retained: true,
  });
  return transaction.payment_method.token;
}

/** A transaction body as the Ruby gem sends it in XML (USD, empty order_id and gateway_specific_fields). */
export function transactionXml(amount: number, paymentMethod: string): string {
  return `<transaction><amount>${amount}</amount><currency_code>USD</currency_code><order_id/><payment_method_token>${paymentMethod}</payment_method_token><gateway_specific_fields/></transaction>`;
}

/** The stored row of a payment method. */
export function paymentMethodRow(server: TestServer, token: string) {
  return server.core.store.db.selectFrom('payment_methods').selectAll().where('token', '=', token).executeTakeFirstOrThrow();
}

/** Stored transactions, oldest first, filtered by payment method, gateway and/or type. */
export function transactionRows(server: TestServer, where: { paymentMethod?: string; gateway?: string; type?: string }) {
  let query = server.core.store.db.selectFrom('transactions').selectAll();
  if (where.paymentMethod !== undefined) query = query.where('payment_method_token', '=', where.paymentMethod);
  if (where.gateway !== undefined) query = query.where('gateway_token', '=', where.gateway);
  if (where.type !== undefined) query = query.where('transaction_type', '=', where.type);
  return query.orderBy('seq').execute();
}
