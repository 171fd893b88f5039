import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/domain/environment.js';
import type { AdoptedPaymentMethod } from '../../src/services/portability/adopt-payment-method.js';
import { addPaymentMethod, createTestGateway, paymentMethodRow, transactionRows } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * Adoption: a card from another vault sealed as tokenization seals it, under the token it had,
 * with its ImportPaymentMethod transaction and event; skipped when the token already holds the
 * same card, a conflict when it holds another; refused input writes nothing.
 */

const VISA = '4111111111111111';
const MASTER = '5555555555554444';
const ROUTING = '021000021';
const ACCOUNT = '9876543210';

function card(token: string, number = VISA, extra: Partial<AdoptedPaymentMethod> = {}): AdoptedPaymentMethod {
  return {
    token,
    type: 'credit_card',
    card: { number, month: 4, year: 2040, first_name: 'Ada', last_name: 'Lovelace', city: 'London' },
    storageState: 'retained',
    createdAt: '2021-03-04T05:06:07Z',
    email: 'ada@example.com',
    metadata: { customer: '42' },
    data: { note: 'kept' },
    networkTransactionId: 'NTI-123',
    ...extra,
  };
}

describe.each(storeKinds)('adoptPaymentMethod (%s)', (store) => {
  let server: TestServer;
  let environment: Environment;

  beforeAll(async () => {
    server = await startServer({ store });
    environment = await server.core.tenancy.requireEnvironment(server.init.environment_key);
  });
  afterAll(() => server.close());

  it('imports under the given token, sealed like a tokenized card, and it is chargeable at once', async () => {
    const token = 'OldVaultToken0000000000000A1';
    const result = await server.core.adopter.adopt(environment, card(token));
    expect(result.outcome).toBe('imported');
    const shown = await server.client.get(`/v1/payment_methods/${token}.json`);
    expect(shown.status, shown.text).toBe(200);
    const method = shown.json().payment_method;
    expect(method).toMatchObject({
      token,
      created_at: '2021-03-04T05:06:07Z',
      storage_state: 'retained',
      email: 'ada@example.com',
      metadata: { customer: '42' },
      data: { note: 'kept' },
      last_four_digits: '1111',
      first_name: 'Ada',
      city: 'London',
      payment_method_type: 'credit_card',
    });
    // The same fingerprint as the same card tokenized.
    const tokenized = await addPaymentMethod(server.client, { credit_card: { number: VISA, month: 4, year: 2040, first_name: 'A', last_name: 'B' } });
    expect(method.fingerprint).toBe(tokenized.payment_method.fingerprint);
    const row = await paymentMethodRow(server, token);
    expect(row.sealed_number).toMatch(/^c1\./);
    expect(row.sealed_cvv).toBeNull();
    expect(JSON.parse(row.details).network_transaction_id).toBe('NTI-123');
    const [transaction] = await transactionRows(server, { paymentMethod: token, type: 'ImportPaymentMethod' });
    expect(transaction).toMatchObject({ state: 'succeeded' });
    const events = await server.core.store.db.selectFrom('events').select('event_type').where('object_key', '=', token).execute();
    expect(events.map((event) => event.event_type)).toEqual(['ImportPaymentMethod']);

    const gateway = await createTestGateway(server.client);
    const purchase = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: token, amount: 100, currency_code: 'USD' } });
    expect(purchase.status, purchase.text).toBe(200);
    expect(purchase.json().transaction.succeeded).toBe(true);
  });

  it('skips the same card under the same token, and reports a different card as a conflict', async () => {
    const token = 'OldVaultToken0000000000000B2';
    expect((await server.core.adopter.adopt(environment, card(token))).outcome).toBe('imported');
    expect((await server.core.adopter.adopt(environment, card(token))).outcome).toBe('skipped');
    expect((await server.core.adopter.adopt(environment, card(token, MASTER))).outcome).toBe('conflict');
    expect(await transactionRows(server, { paymentMethod: token })).toHaveLength(1);
    expect((await paymentMethodRow(server, token)).details).toContain('"last_four_digits":"1111"');
  });

  it('in one batch: the same token twice is imported once, a different card under it is a conflict', async () => {
    const results = await server.core.adopter.adoptMany(environment, [card('BatchToken1'), card('BatchToken1'), card('BatchToken1', MASTER), card('BatchToken2', MASTER)]);
    expect(results.map((result) => result.outcome)).toEqual(['imported', 'skipped', 'conflict', 'imported']);
  });

  it('a token held in another environment is a conflict, even for the same card', async () => {
    const other = await server.core.tenancy.createEnvironment(environment.organizationToken, 'other', false);
    expect((await server.core.adopter.adopt(environment, card('SharedToken1'))).outcome).toBe('imported');
    expect((await server.core.adopter.adopt(other, card('SharedToken1'))).outcome).toBe('conflict');
  });

  it('bank accounts and third-party tokens: imported, skipped when the same, conflict when not', async () => {
    const bank = (account: string): AdoptedPaymentMethod => ({
      token: 'BankToken1',
      type: 'bank_account',
      bankAccount: { bank_routing_number: ROUTING, bank_account_number: account, first_name: 'A', last_name: 'B', bank_account_type: 'checking' },
      storageState: 'retained',
    });
    expect((await server.core.adopter.adopt(environment, bank(ACCOUNT))).outcome).toBe('imported');
    expect((await server.core.adopter.adopt(environment, bank(ACCOUNT))).outcome).toBe('skipped');
    expect((await server.core.adopter.adopt(environment, bank('1234567890'))).outcome).toBe('conflict');
    const reference = (ref: string): AdoptedPaymentMethod => ({ token: 'ThirdParty1', type: 'third_party_token', thirdParty: { reference: ref, gateway_type: 'test' }, storageState: 'retained' });
    expect((await server.core.adopter.adopt(environment, reference('cus_1'))).outcome).toBe('imported');
    expect((await server.core.adopter.adopt(environment, reference('cus_1'))).outcome).toBe('skipped');
    expect((await server.core.adopter.adopt(environment, reference('cus_2'))).outcome).toBe('conflict');
  });

  it('refuses a CVV, an expired card, a bad created_at, and writes nothing', async () => {
    const cases: Array<[AdoptedPaymentMethod, string]> = [
      [card('Refused1', VISA, { card: { number: VISA, month: 4, year: 2040, verification_value: '123' } }), 'verification_value'],
      [card('Refused3', VISA, { card: { number: VISA, month: 4, year: 2001 } }), 'year'],
      [card('Refused4', VISA, { createdAt: 'yesterday' }), 'created_at'],
      [card('Refused5', VISA, { email: 'nope' }), 'email'],
    ];
    for (const [input, attribute] of cases) {
      const result = await server.core.adopter.adopt(environment, input);
      expect(result.outcome).toBe('rejected');
      if (result.outcome !== 'rejected') continue;
      expect(result.errors.map((error) => error.attribute)).toContain(attribute);
      expect(JSON.stringify(result.errors)).not.toContain('411111');
      expect(await server.core.store.db.selectFrom('payment_methods').select('token').where('token', '=', input.token).executeTakeFirst()).toBeUndefined();
    }
    // allowExpired keeps an expired card.
    expect((await server.core.adopter.adopt(environment, card('Expired1', VISA, { card: { number: VISA, month: 4, year: 2001 } }), { allowExpired: true })).outcome).toBe('imported');
  });

  it('refuses a real card in an environment not activated for production, a bad check digit included (as tokenization does)', async () => {
    for (const [token, number] of [['RealCard1', '4242424242424242'], ['Refused2', '4111111111111112']] as const) {
      const result = await server.core.adopter.adopt(environment, card(token, number));
      expect(result).toMatchObject({ outcome: 'rejected', errors: [{ key: 'errors.account_inactive' }] });
      expect(JSON.stringify(result)).not.toContain('411111');
      expect(await server.core.store.db.selectFrom('payment_methods').select('token').where('token', '=', token).executeTakeFirst()).toBeUndefined();
    }
    // In a production environment the same bad check digit is an invalid number.
    const live = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    const result = await server.core.adopter.adopt(live, card('Refused3', '4111111111111112'));
    expect(result).toMatchObject({ outcome: 'rejected', errors: [{ key: 'errors.invalid', attribute: 'number' }] });
  });
});
