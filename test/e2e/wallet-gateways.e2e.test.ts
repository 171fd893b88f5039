import { randomUUID, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeStripe, type FakeStripe } from '../fakes/fake-stripe.js';
import { errorKeys, FORMATS, startGatewayE2e, toXml, transact, type Format, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { storeKinds } from '../helpers/postgres.js';
import { APPLE_MERCHANT_ID, enrollApplePay, generateMerchantKey, GOOGLE_MERCHANT_ID, setGoogleMerchantId, walletRoots, type WalletRoots } from '../helpers/wallet-e2e.js';
import { applePayPaymentData, applePayToken, googlePayMessage, googlePayToken } from '../helpers/wallet-tokens.js';

/**
 * Wallet tokens through a real adapter end to end: a production environment, the merchant keys made
 * in Coffer (Apple's certificate signed by a test CA trusted through COFFER_APPLE_PAY_ROOT_CA, the
 * Google key beside it), Apple Pay and Google Pay tokens stored through POST /v1/payment_methods in
 * JSON and XML, charged through Stripe's fake, which must receive the DPAN as a network token and the
 * cryptogram in payment_method_options. A gateway whose adapter takes no wallet tokens refuses them
 * with a 422 before any call.
 */

const LIVE_KEY = 'sk_live_CofferWalletE2eKey000000001';
/** Luhn-valid, not one of Coffer's test cards: a real DPAN for a production environment. */
const DPAN = '4242424242424242';
const APPLE_CRYPTOGRAM = 'AOWfXu1Iv1pAQwAAAAAAAAAAAAA=';
const GOOGLE_CRYPTOGRAM = 'AgAAAAAABk4DWZ4C28yUQAAAAAA=';

describe.each(storeKinds)('wallet tokens through Stripe end to end (%s)', (storeKind) => {
  let roots: WalletRoots;
  let fake: FakeStripe;
  let e2e: GatewayE2e;
  let stripe: string;
  let appleKey: { publicKey: KeyObject };
  let googleKey: { publicKey: KeyObject };

  const appleToken = () =>
    applePayToken({ ca: roots.apple, merchantPublicKey: appleKey.publicKey, merchantIdentifier: APPLE_MERCHANT_ID, payload: applePayPaymentData({ applicationPrimaryAccountNumber: DPAN }) });
  const googleToken = () => {
    const base = googlePayMessage({ messageId: `msg-${randomUUID()}` });
    const message = { ...base, paymentMethodDetails: { ...(base.paymentMethodDetails as Record<string, unknown>), pan: DPAN } };
    return googlePayToken({ root: roots.google, merchantPublicKey: googleKey.publicKey, recipientId: `merchant:${GOOGLE_MERCHANT_ID}`, message });
  };

  async function addWallet(format: Format, wallet: 'apple_pay' | 'google_pay', paymentData: Record<string, unknown>): Promise<string> {
    const res =
      format === 'json'
        ? await e2e.live.sendJson('POST', '/v1/payment_methods.json', { payment_method: { [wallet]: { payment_data: paymentData } } })
        : await e2e.live.sendXml('POST', '/v1/payment_methods.xml', toXml('payment_method', { [wallet]: { payment_data: JSON.stringify(paymentData) } }));
    expect(res.status, res.text).toBe(201);
    return format === 'json' ? res.json().transaction.payment_method.token : res.xml().transaction.payment_method.token;
  }

  beforeAll(async () => {
    roots = await walletRoots();
    fake = await startFakeStripe([LIVE_KEY]);
    e2e = await startGatewayE2e('stripe', fake.url, storeKind, roots.env);
    appleKey = await enrollApplePay(e2e.live, roots.apple);
    googleKey = await generateMerchantKey(e2e.live, 'Google Pay');
    const environments = (await e2e.live.request('GET', '/v1/environments.json')).json().environments as Array<{ key: string; name: string }>;
    await setGoogleMerchantId(e2e.live, (environments.find((environment) => environment.name === 'live') as { key: string }).key);
    stripe = await e2e.createGateway({ login: LIVE_KEY });
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
    roots?.cleanup();
  });

  it('advertises apple_pay and google_pay for Stripe in gateways_options, and not for a gateway that cannot send them', async () => {
    const gateways = (await e2e.live.request('GET', '/v1/gateways_options.json')).json().gateways as Array<{ gateway_type: string; payment_methods: string[] }>;
    const byType = new Map(gateways.map((entry) => [entry.gateway_type, entry.payment_methods]));
    for (const type of ['stripe', 'adyen', 'braintree', 'checkout_v2', 'cyber_source', 'authorize_net', 'worldpay']) {
      expect(byType.get(type), type).toEqual(expect.arrayContaining(['apple_pay', 'google_pay']));
    }
    expect(byType.get('nmi')).not.toContain('apple_pay');
  });

  it.each(FORMATS)('charges a stored Apple Pay token through Stripe (%s): the DPAN as a network token, the cryptogram and ECI as options', async (format) => {
    const token = await addWallet(format, 'apple_pay', appleToken());
    const before = fake.requests.length;
    const { status, t, res } = await transact(e2e.live, format, `gateways/${stripe}/purchase`, { payment_method_token: token, amount: 1999, currency_code: 'USD' });
    expect(status, res.text).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', gateway_type: 'stripe', payment_method: { payment_method_type: 'apple_pay', last_four_digits: '4242' } });
    const sent = fake.requests.slice(before).find((request) => request.path === '/v1/payment_intents');
    expect(sent?.form).toMatchObject({
      'payment_method_data[card][network_token][number]': DPAN,
      'payment_method_data[card][network_token][tokenization_method]': 'apple_pay',
      'payment_method_options[card][network_token][cryptogram]': APPLE_CRYPTOGRAM,
      'payment_method_options[card][network_token][electronic_commerce_indicator]': '07',
    });
    const transcript = await e2e.live.request('GET', `/v1/transactions/${t.token}/transcript`);
    expect(transcript.text).not.toContain(APPLE_CRYPTOGRAM);
    expect(transcript.text).not.toContain(DPAN);
    expect(res.text).not.toContain(APPLE_CRYPTOGRAM);
  });

  it.each(FORMATS)('charges an inline Google Pay token through Stripe (%s) as google_pay_dpan', async (format) => {
    const before = fake.requests.length;
    const data = format === 'json' ? googleToken() : JSON.stringify(googleToken());
    const { status, t, res } = await transact(e2e.live, format, `gateways/${stripe}/purchase`, { google_pay: { payment_data: data }, amount: 500, currency_code: 'USD' });
    expect(status, res.text).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', payment_method: { payment_method_type: 'google_pay' } });
    const sent = fake.requests.slice(before).find((request) => request.path === '/v1/payment_intents');
    expect(sent?.form).toMatchObject({
      'payment_method_data[card][network_token][tokenization_method]': 'google_pay_dpan',
      'payment_method_options[card][network_token][cryptogram]': GOOGLE_CRYPTOGRAM,
      'payment_method_options[card][network_token][electronic_commerce_indicator]': '05',
    });
  });

  it('refuses a test_card_number in a production environment', async () => {
    const res = await e2e.live.sendJson('POST', '/v1/payment_methods.json', { payment_method: { apple_pay: { test_card_number: '4111111111111111' } } });
    expect(res.status).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'test_card_number' });
  });

  it.each(FORMATS)('refuses a wallet method on a gateway that cannot send it with a 422 before any call (%s)', async (format) => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'nmi', security_key: 'nmi-security-key-1' } });
    expect(created.status, created.text).toBe(201);
    const nmi = created.json().gateway.token;
    const token = await addWallet('json', 'apple_pay', appleToken());
    const { status, res } = await transact(e2e.live, format, `gateways/${nmi}/purchase`, { payment_method_token: token, amount: 100, currency_code: 'USD' });
    expect(status).toBe(422);
    expect(errorKeys(format, res)).toEqual(['errors.gateway_does_not_support_payment_method']);
    // The method was not used up: it still charges where it can go.
    const ok = await transact(e2e.live, format, `gateways/${stripe}/purchase`, { payment_method_token: token, amount: 100, currency_code: 'USD' });
    expect(ok.t.state).toBe('succeeded');
  });
});
