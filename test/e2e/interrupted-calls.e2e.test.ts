import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ABANDONED_CALL_GRACE_MS, ABANDONED_MESSAGE, abandonedPatch } from '../../src/services/transactions/abandoned-calls.js';
import { repositories } from '../../src/store/repositories.js';
import { newTransaction } from '../../src/services/transaction-records.js';
import { newTransactionRow } from '../../src/store/mappers/transaction.js';
import { EMPTY_SHIPPING_ADDRESS, type GatewayTransactionDetails } from '../../src/domain/transaction-details.js';
import { createRetainedCard, createTestGateway, transactionRows } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * A gateway call whose process died between its two commits (kill -9, a crash, the database
 * gone at the second commit) leaves a `processing` transaction. Once the call cannot be running
 * anywhere (its deadline: the call's timeout plus a grace), reading it settles it as
 * `gateway_processing_result_unknown`, as a timeout is recorded. Before that it stays
 * `processing`: another node may still be waiting for the gateway.
 */

const VISA = '4111111111111111';

function details(callDeadline: string | undefined): GatewayTransactionDetails {
  return {
    on_test_gateway: true,
    gateway_type: 'test',
    order_id: null,
    ip: null,
    description: null,
    email: null,
    merchant_name_descriptor: null,
    merchant_location_descriptor: null,
    gateway_specific_fields: null,
    gateway_specific_response_fields: {},
    gateway_transaction_id: null,
    gateway_latency_ms: null,
    retain_on_success: false,
    payment_method_added: false,
    attempt_3dsecure: false,
    shipping_address: { ...EMPTY_SHIPPING_ADDRESS },
    response: null,
    ...(callDeadline === undefined ? {} : { call_deadline: callDeadline }),
  };
}

describe.each(storeKinds)('gateway calls interrupted mid-way (%s)', (store) => {
  let server: TestServer;
  let gateway: string;
  let card: string;

  beforeAll(async () => {
    server = await startServer({ store });
    gateway = await createTestGateway(server.client);
    card = await createRetainedCard(server.client, VISA);
  });

  afterAll(async () => {
    await server?.close();
  });

  /** A `processing` Purchase as the service commits it before calling the gateway. */
  async function processing(callDeadline: string | undefined, updatedAt = new Date().toISOString()): Promise<string> {
    const row = newTransactionRow(newTransaction({
      environmentKey: server.init.environment_key,
      transactionType: 'Purchase',
      outcome: 'processing',
      gatewayToken: gateway,
      paymentMethodToken: card,
      amount: 100,
      currencyCode: 'USD',
      details: details(callDeadline),
      now: updatedAt,
    }));
    await server.core.store.db.insertInto('transactions').values(row).execute();
    return row.token as string;
  }

  it('a purchase records the end of its call while processing and drops it once finished', async () => {
    const res = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: card, amount: 100, currency_code: 'USD' } });
    expect(res.status, res.text).toBe(200);
    const [stored] = (await transactionRows(server, { gateway })).filter((row) => row.token === res.json().transaction.token);
    expect(stored?.state).toBe('succeeded');
    expect(JSON.parse(stored?.details ?? '{}')).not.toHaveProperty('call_deadline');
  });

  it('shows a call past its deadline as gateway_processing_result_unknown, result_unknown, and stores it so', async () => {
    const token = await processing(new Date(Date.now() - 1000).toISOString());
    const res = await server.client.get(`/v1/transactions/${token}.json`);
    expect(res.status, res.text).toBe(200);
    const shown = res.json().transaction;
    expect(shown).toMatchObject({ state: 'gateway_processing_result_unknown', succeeded: false, message: ABANDONED_MESSAGE });
    expect(shown.response).toMatchObject({ success: false, result_unknown: true, error_code: 'processing_error', error_detail: 'interrupted', message: ABANDONED_MESSAGE });
    const [row] = (await transactionRows(server, { gateway })).filter((candidate) => candidate.token === token);
    expect(row?.state).toBe('gateway_processing_result_unknown');
  });

  it('keeps a call within its deadline processing (it may still be running on another node)', async () => {
    const token = await processing(new Date(Date.now() + 60_000).toISOString());
    const res = await server.client.get(`/v1/transactions/${token}.json`);
    expect(res.status, res.text).toBe(200);
    expect(res.json().transaction.state).toBe('processing');
    expect(res.json().transaction.response).toBeNull();
  });

  it('settles abandoned calls in lists too, in XML as well', async () => {
    const token = await processing(new Date(Date.now() - 1).toISOString());
    const res = await server.client.get('/v1/transactions.xml?order=desc&count=5', { accept: 'application/xml' });
    expect(res.status, res.text).toBe(200);
    const listed = [res.xml().transactions.transaction].flat().find((transaction: any) => transaction.token === token);
    expect(listed.state).toBe('gateway_processing_result_unknown');
    expect(listed.response.result_unknown['#text']).toBe('true');
  });

  it('gives rows without a recorded deadline the longest possible call (600 s) plus the grace', async () => {
    const recent = await processing(undefined, new Date(Date.now() - 600_000).toISOString());
    const old = await processing(undefined, new Date(Date.now() - 600_000 - ABANDONED_CALL_GRACE_MS - 1000).toISOString());
    expect((await server.client.get(`/v1/transactions/${recent}.json`)).json().transaction.state).toBe('processing');
    expect((await server.client.get(`/v1/transactions/${old}.json`)).json().transaction.state).toBe('gateway_processing_result_unknown');
  });

  it('the sweep settles abandoned calls nobody reads, and leaves calls still within their deadline', async () => {
    const twentySecondsAgo = new Date(Date.now() - 20_000).toISOString();
    const abandoned = await processing(new Date(Date.now() - 1000).toISOString(), twentySecondsAgo);
    const running = await processing(new Date(Date.now() + 60_000).toISOString(), twentySecondsAgo);
    const result = await server.core.sweeper.sweepOnce();
    expect(result.abandonedCallsSettled).toBeGreaterThanOrEqual(1);
    const rows = await server.core.store.db.selectFrom('transactions').select(['token', 'state']).where('token', 'in', [abandoned, running]).execute();
    expect(Object.fromEntries(rows.map((row) => [row.token, row.state]))).toEqual({ [abandoned]: 'gateway_processing_result_unknown', [running]: 'processing' });
  });

  it('never overwrites an outcome written meanwhile: the settling write is conditional on processing', async () => {
    const token = await processing(new Date(Date.now() - 1000).toISOString());
    const repos = repositories(server.core.store.db, server.core.store.dialect);
    const before = (await repos.transactions.find(server.init.environment_key, token))!;
    // The outcome lands between the read and the settling write.
    await repos.transactions.update(server.init.environment_key, token, { state: 'succeeded', succeeded: true });
    expect(await repos.transactions.updateIfState(server.init.environment_key, token, 'processing', abandonedPatch(before, new Date()))).toBeUndefined();
    expect((await server.client.get(`/v1/transactions/${token}.json`)).json().transaction.state).toBe('succeeded');
  });
});
