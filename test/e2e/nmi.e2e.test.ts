import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, FORMATS, startGatewayE2e, transact, type GatewayE2e, expectFaultOutcomes } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeNmi } from '../fakes/fake-nmi.js';
import type { FakeRequest } from '../fakes/fake-gateway-server.js';

/**
 * Coffer with an NMI gateway end to end: a production environment, cards vaulted in it, every
 * operation through the v1 API in JSON and XML against a fake NMI Payment API on 127.0.0.1
 * (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what NMI received.
 */

const SECURITY_KEY = 'e2eSecurityKey6457Thfj624V5r7WUwc5';
const PASSWORD = 'NmiPassw0rd-e2e';
const PAN = '5431111111111111'; // NMI's documented Mastercard test card (4111… is one of Coffer's own test cards)

describe.each(storeKinds)('NMI gateway end to end (%s)', (store) => {
  let fake: FakeNmi;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The variables of the last request NMI received. */
  const lastSent = (): Record<string, string> => FakeNmi.fieldsOf(fake.server.lastRequest());
  /** The one sale/auth/validate NMI received for a Coffer transaction (its token is the default orderid). */
  function sentFor(token: string): Record<string, string> {
    const sent = fake.server.requests.filter((request: FakeRequest) => FakeNmi.fieldsOf(request).orderid === token);
    expect(sent).toHaveLength(1);
    return FakeNmi.fieldsOf(sent[0] as FakeRequest);
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ...extra });

  beforeAll(async () => {
    fake = await FakeNmi.start({ securityKey: SECURITY_KEY, users: { demo: PASSWORD } });
    e2e = await startGatewayE2e('nmi', fake.url, store);
    gateway = await e2e.createGateway({ security_key: SECURITY_KEY, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates gateways in either mode; a missing or unknown credential is a 422 naming the field, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'nmi', login: 'demo', password: PASSWORD } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'nmi', name: 'NMI' });
    expect(created.text).not.toContain(PASSWORD);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'nmi', login: 'demo' } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'password', message: "Password can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>nmi</gateway_type><security_key>k</security_key><api_key>y</api_key></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('api_key');
  });

  it.each(FORMATS)('purchases in %s: type=sale with the card, succeeded with NMI’s transactionid, AVS and CVV', async (format) => {
    const fresh = await e2e.vault(PAN, { address1: '888 Test St', zip: '77777' });
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({
      state: 'succeeded',
      transaction_type: 'Purchase',
      gateway_type: 'nmi',
      order_id: `order-${format}`,
      response: { success: true, message: 'Transaction approved', avs_code: 'Y', cvv_code: 'M', error_code: null },
    });
    expect(fake.server.lastRequest().path).toBe('/api/transact.php');
    expect(lastSent()).toMatchObject({ type: 'sale', amount: '10.00', currency: 'USD', ccnumber: PAN, ccexp: '0330', cvv: '737', first_name: 'Ada', security_key: SECURITY_KEY, test_mode: 'enabled', orderid: `order-${format}` });
    expect(fake.transactions.get(t.gateway_transaction_id)).toMatchObject({ type: 'sale', captured: 10 });
  });

  it('turns NMI’s declines into 422 gateway_processing_failed with the standard code, JSON and XML', async () => {
    const nsf = await e2e.vault(PAN, { last_name: 'NSF' });
    for (const format of FORMATS) {
      const low = await purchase(format, card, { amount: 50 });
      expect(low.status).toBe(422);
      expect(low.t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: 'card_declined', message: 'DECLINE' } });
      const poor = await purchase(format, nsf);
      expect(poor.status).toBe(422);
      expect(poor.t.response).toMatchObject({ error_code: 'insufficient_funds', message: 'Insufficient funds' });
    }
  });

  it('authorizes, captures part, refunds part of it', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    expect(sentFor(auth.t.token)).toMatchObject({ type: 'auth', amount: '25.00' });
    const id = auth.t.gateway_transaction_id as string;

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Capture approved' } });
    expect(lastSent()).toMatchObject({ type: 'capture', transactionid: id, amount: '20.00' });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Refund approved' } });
    expect(lastSent()).toMatchObject({ type: 'refund', transactionid: id, amount: '5.00' });
    expect(fake.transactions.get(id)).toMatchObject({ captured: 20, refunded: 5 });
  });

  it('voids an authorization', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction voided' } });
    expect(lastSent()).toEqual({ type: 'void', transactionid: auth.t.gateway_transaction_id, security_key: SECURITY_KEY, test_mode: 'enabled' });
    expect(fake.transactions.get(auth.t.gateway_transaction_id)?.voided).toBe(true);
  });

  it('verifies with type=validate and sends JPY without decimals', async () => {
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(verified.status).toBe(200);
    expect(sentFor(verified.t.token)).not.toHaveProperty('amount');
    const yen = await purchase('json', card, { amount: 1500, currency_code: 'JPY' });
    expect(yen.status).toBe(200);
    expect(sentFor(yen.t.token)).toMatchObject({ amount: '1500', currency: 'JPY' });
  });

  it('stores the card in the customer vault and purchases with customer_vault_id, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    expect(lastSent()).toMatchObject({ customer_vault: 'add_customer', ccnumber: PAN });
    const vaultId = stored.t.third_party_token as string;
    expect(fake.vault.has(vaultId)).toBe(true);
    const bought = await purchase('xml', stored.t.payment_method.token as string);
    expect(bought.status).toBe(200);
    const sent = sentFor(bought.t.token);
    expect(sent).toMatchObject({ type: 'sale', customer_vault_id: vaultId });
    expect(sent).not.toHaveProperty('ccnumber');
  });

  it('records 408 result unknown when NMI hangs, 422 on a 500 or garbage, and config_error for wrong credentials', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ login: 'demo', password: 'not-the-password', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'Authentication Failed' });
  });

  it('keeps no card data or key in the transcript', async () => {
    const fresh = await e2e.vault(PAN);
    const bought = await purchase('json', fresh);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`POST ${fake.url}/api/transact.php`);
    expect(res.text).toContain('security_key=[FILTERED]');
    expect(res.text).toContain('responsetext=SUCCESS');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(SECURITY_KEY);
    expect(res.text).not.toMatch(/cvv=737/);
    expect(findCardData(res.text)).toEqual([]);
  });
});
