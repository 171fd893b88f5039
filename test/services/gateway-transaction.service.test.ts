import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import type { Environment } from '../../src/domain/environment.js';
import type { TransactionInput } from '../../src/services/transactions/transaction-input.js';
import type { GatewayTransactionService } from '../../src/services/transactions/gateway-transaction.service.js';
import { SINGLE_ATTEMPT } from '../../src/services/transactions/gateway-transaction.service.js';
import { addPaymentMethod, createRetainedCard, createTestGateway } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * GatewayTransactionService called directly (not through HTTP): each operation runs the one
 * pipeline (services/transactions/pipeline) against a real store and the built-in test gateway.
 */

const VISA = '4111111111111111';
const ENROLLED = '4556761029983886';
const BROWSER_INFO = Buffer.from(JSON.stringify({ width: 1280, height: 800, depth: 24, timezone: 0, user_agent: 'test', java: false, language: 'en-GB' })).toString('base64');

function input(fields: Partial<TransactionInput>): TransactionInput {
  return { retainOnSuccess: false, attempt3dsecure: false, ...fields };
}

describe.each(storeKinds)('GatewayTransactionService (%s)', (store) => {
  let server: TestServer;
  let service: GatewayTransactionService;
  let environment: Environment;
  let gateway: string;

  beforeAll(async () => {
    server = await startServer({ store });
    service = server.core.transactions;
    environment = await server.core.tenancy.requireEnvironment(server.init.environment_key);
    gateway = await createTestGateway(server.client);
  });
  afterAll(async () => {
    await server?.close();
  });

  const eventsOf = async (token: string) =>
    (await server.core.store.db.selectFrom('events').select(['event_type']).where('object_key', '=', token).orderBy('created_at').orderBy('seq').execute()).map((row) => row.event_type);

  it('direct: a purchase is committed processing, called, then succeeded; the answer holds the method as its own write left it', async () => {
    const card = await createRetainedCard(server.client, VISA);
    const result = await service.direct(environment, gateway, 'purchase', input({ paymentMethodToken: card, amount: 100, currencyCode: 'USD' }));
    expect(result.status).toBe(200);
    expect(result.transaction).toMatchObject({ transactionType: 'Purchase', state: 'succeeded', succeeded: true, amount: 100, currencyCode: 'USD', gatewayToken: gateway, paymentMethodToken: card });
    expect(result.transaction.details).not.toHaveProperty('call_deadline');
    expect(result.paymentMethod).toMatchObject({ token: card, sealed: expect.objectContaining({ cvv: null }), cvvLength: null });
    expect(await eventsOf(result.transaction.token)).toEqual(['TransactionCreated', 'TransactionSucceeded']);
    expect(await server.core.store.db.selectFrom('transactions').select('state').where('token', '=', result.transaction.token).executeTakeFirstOrThrow()).toEqual({ state: 'succeeded' });
  });

  it('direct: a timeout is recorded as an unknown result (408)', async () => {
    const card = await createRetainedCard(server.client, '4000000000000408');
    const result = await service.direct(environment, gateway, 'purchase', input({ paymentMethodToken: card, amount: 100, currencyCode: 'USD' }));
    expect(result.status).toBe(408);
    expect(result.transaction).toMatchObject({ state: 'gateway_processing_result_unknown', succeeded: false });
    expect(result.transaction.reconcileNextAt).not.toBeNull();
  });

  it('direct: a redacted single-use method is refused before any call, recorded as failed', async () => {
    const added = await addPaymentMethod(server.client, { credit_card: { first_name: 'Joe', last_name: 'Jones', number: VISA, month: 3, year: 2035 }, retained: true });
    const token = added.payment_method.token as string;
    expect((await server.client.sendJson('PUT', `/v1/payment_methods/${token}/redact.json`, {})).status).toBe(200);
    const result = await service.direct(environment, gateway, 'purchase', input({ paymentMethodToken: token, amount: 100, currencyCode: 'USD' }));
    expect(result.status).toBe(422);
    expect(result.transaction).toMatchObject({ state: 'failed', messageKey: 'messages.payment_method_redacted', succeeded: false });
    expect(await eventsOf(result.transaction.token)).toEqual(['TransactionCreated', 'TransactionFailed']);
  });

  it('attemptDirect: a later attempt of a chain sends the held card and names the first attempt', async () => {
    const card = await createRetainedCard(server.client, VISA);
    const gatewayRecord = await server.core.gateways.show(environment, gateway);
    const planned = await service.planDirect(environment, gatewayRecord, 'purchase', input({ paymentMethodToken: card, amount: 100, currencyCode: 'USD' }));
    if (!('plan' in planned)) throw new Error('refused');
    const first = await service.attemptDirect(planned.plan, gatewayRecord, { ...SINGLE_ATTEMPT, chained: true, keepCard: true });
    expect(first.card).not.toBeNull();
    expect(first.result.transaction.firstAttemptToken).toBe(first.result.transaction.token);
    const failover = { from_transaction_token: first.result.transaction.token, from_gateway_token: gateway, reason: 'a test', skipped: [] };
    const second = await service.attemptDirect(planned.plan, gatewayRecord, { chained: true, firstAttemptToken: first.result.transaction.token, heldCard: first.card, keepCard: false, failover });
    expect(second.card).toBeNull();
    expect(second.result.transaction).toMatchObject({ state: 'succeeded', firstAttemptToken: first.result.transaction.token, details: { failover } });
    expect(await eventsOf(second.result.transaction.token)).toEqual(['TransactionCreated', 'TransactionFailedOver', 'TransactionSucceeded']);
  });

  it('reference: captures take what remains of the authorization, and no more', async () => {
    const card = await createRetainedCard(server.client, VISA);
    const auth = await service.direct(environment, gateway, 'authorize', input({ paymentMethodToken: card, amount: 100, currencyCode: 'USD' }));
    const partial = await service.reference(environment, auth.transaction.token, 'capture', input({ amount: 60 }));
    expect(partial.transaction).toMatchObject({ transactionType: 'Capture', state: 'succeeded', amount: 60, referenceToken: auth.transaction.token });
    await expect(service.reference(environment, auth.transaction.token, 'capture', input({ amount: 41 }))).rejects.toMatchObject({ entries: [{ key: 'errors.invalid_amount' }] });
    const rest = await service.reference(environment, auth.transaction.token, 'capture', input({}));
    expect(rest.transaction.amount).toBe(40);
    await expect(service.reference(environment, auth.transaction.token, 'void', input({}))).rejects.toBeInstanceOf(AppError);
  });

  it('complete: a pending 3-D Secure purchase is completed once; the next completion is a 422', async () => {
    const card = await createRetainedCard(server.client, ENROLLED);
    const pending = await service.direct(
      environment,
      gateway,
      'purchase',
      input({ paymentMethodToken: card, amount: 3002, currencyCode: 'USD', attempt3dsecure: true, threeDsVersion: '2.1.0', browserInfo: BROWSER_INFO, redirectUrl: 'https://shop.example/3ds/return' }),
    );
    expect(pending.transaction.state).toBe('pending');
    const completed = await service.complete(environment, pending.transaction.token);
    expect(completed.transaction).toMatchObject({ token: pending.transaction.token, state: 'succeeded' });
    await expect(service.complete(environment, pending.transaction.token)).rejects.toMatchObject({ entries: [{ key: 'errors.transaction_not_pending' }] });
    expect(await eventsOf(pending.transaction.token)).toEqual(['TransactionCreated', 'TransactionPending', 'TransactionSucceeded']);
  });
});
