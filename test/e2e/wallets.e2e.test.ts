import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorKeys, FORMATS, plain, toXml, transact, type Format } from '../helpers/gateway-e2e.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { storedBytes } from '../helpers/stored-bytes.js';
import { APPLE_MERCHANT_ID, enrollApplePay, generateMerchantKey, GOOGLE_MERCHANT_ID, setGoogleMerchantId, walletRoots, type WalletRoots } from '../helpers/wallet-e2e.js';
import { applePayPaymentData, applePayToken, googlePayMessage, googlePayToken, merchantKeyPair } from '../helpers/wallet-tokens.js';
import type { ApiResponse } from '../helpers/client.js';
import type { KeyObject } from 'node:crypto';

/**
 * Apple Pay and Google Pay end to end in a test environment, over HTTPS, JSON and XML: the merchant
 * key made in Coffer, its certificate signed by a CA standing in for Apple's (trusted through
 * COFFER_APPLE_PAY_ROOT_CA), tokens made the way the wallets make them, stored through
 * POST /v1/payment_methods (and inline on purchase) and charged through the test gateway. Every
 * refusal has its own key and stores nothing; no DPAN or cryptogram leaves in clear.
 */

const DPAN = '4111111111111111';
const DECLINED_DPAN = '4012888888881881';
const APPLE_CRYPTOGRAM = 'AOWfXu1Iv1pAQwAAAAAAAAAAAAA=';
const GOOGLE_CRYPTOGRAM = 'AgAAAAAABk4DWZ4C28yUQAAAAAA=';

function applePayload(number = DPAN, overrides: Record<string, unknown> = {}) {
  return applePayPaymentData({ applicationPrimaryAccountNumber: number, cardholderName: 'Ada Lovelace', ...overrides });
}

/** A message as Google makes it: a fresh messageId each (Coffer refuses a messageId it has seen). */
function googleMessage(number = DPAN, details: Record<string, unknown> = {}): Record<string, unknown> {
  const base = googlePayMessage({ messageId: `msg-${randomUUID()}` });
  return { ...base, paymentMethodDetails: { ...(base.paymentMethodDetails as Record<string, unknown>), pan: number, ...details } };
}

/** `POST /v1/payment_methods` with a wallet in JSON, or in XML with the payment data as JSON text. */
function addWallet(client: TestServer['client'], format: Format, wallet: 'apple_pay' | 'google_pay', fields: Record<string, unknown>): Promise<ApiResponse> {
  if (format === 'json') return client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { [wallet]: fields } });
  const xmlFields = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, typeof value === 'object' ? JSON.stringify(value) : value]));
  return client.sendXml('POST', '/v1/payment_methods.xml', toXml('payment_method', { [wallet]: xmlFields }));
}

function transactionOf(format: Format, res: ApiResponse): any {
  return format === 'json' ? res.json().transaction : plain(res.xml().transaction);
}

function firstError(format: Format, res: ApiResponse): { key: string; message: string } {
  if (format === 'json') return res.json().errors[0];
  const errors = res.xml().errors.error;
  const first = Array.isArray(errors) ? errors[0] : errors;
  return { key: first['@_key'], message: first['#text'] };
}

describe.each(storeKinds)('Apple Pay and Google Pay end to end (%s)', (store) => {
  let roots: WalletRoots;
  let server: TestServer;
  let gateway: string;
  let appleKey: { token: string; publicKey: KeyObject; publicKeyHash: string };
  let googleKey: { token: string; publicKey: KeyObject };

  const appleToken = (payload = applePayload(), extra: Partial<Parameters<typeof applePayToken>[0]> = {}) =>
    applePayToken({ ca: roots.apple, merchantPublicKey: appleKey.publicKey, merchantIdentifier: APPLE_MERCHANT_ID, payload, ...extra });
  const googleToken = (message = googleMessage(), extra: Partial<Parameters<typeof googlePayToken>[0]> = {}) =>
    googlePayToken({ root: roots.google, merchantPublicKey: googleKey.publicKey, recipientId: `merchant:${GOOGLE_MERCHANT_ID}`, message, ...extra });
  const listed = async () => (await server.client.request('GET', '/v1/payment_methods.json?state=cached,retained,used,redacted&count=100')).json().payment_methods.length as number;

  beforeAll(async () => {
    roots = await walletRoots();
    server = await startServer({ store, env: roots.env });
    appleKey = await enrollApplePay(server.client, roots.apple);
    // Google's key is a second ec-prime256v1 key of the environment (Google's console takes its public key).
    googleKey = await generateMerchantKey(server.client, 'Google Pay');
    const created = await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } });
    gateway = created.json().gateway.token;
  });

  afterAll(async () => {
    await server?.close();
    roots?.cleanup();
  });

  it('advertises apple_pay and google_pay for the test gateway in gateways_options', async () => {
    const res = await server.client.request('GET', '/v1/gateways_options.json');
    const test = res.json().gateways.find((entry: { gateway_type: string }) => entry.gateway_type === 'test');
    expect(test.payment_methods).toEqual(expect.arrayContaining(['apple_pay', 'google_pay']));
  });

  it.each(FORMATS)('stores an Apple Pay token (%s): a card view of the DPAN, single-use, no payment data echoed', async (format) => {
    const res = await addWallet(server.client, format, 'apple_pay', { payment_data: appleToken() });
    expect(res.status, res.text).toBe(201);
    const t = transactionOf(format, res);
    expect(t).toMatchObject({ transaction_type: 'AddPaymentMethod', succeeded: true });
    expect(t.payment_method).toMatchObject({
      payment_method_type: 'apple_pay',
      card_type: 'visa',
      last_four_digits: '1111',
      first_six_digits: '411111',
      month: 12,
      year: 2029,
      first_name: 'Ada',
      last_name: 'Lovelace',
      number: 'XXXX-XXXX-XXXX-1111',
      storage_state: 'cached',
      test: true,
    });
    expect(t.payment_method.payment_data).toBeUndefined();
    expect(t.payment_method.verification_value).toBeUndefined();
    expect(res.text).not.toContain(DPAN);
    expect(res.text).not.toContain(APPLE_CRYPTOGRAM);
  });

  it.each(FORMATS)('charges a stored Apple Pay method through the test gateway once (%s); the cryptogram is sent, never shown', async (format) => {
    const added = await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { apple_pay: { payment_data: JSON.stringify(appleToken()) } } });
    expect(added.status, added.text).toBe(201);
    const token = added.json().transaction.payment_method.token;
    const { status, t, res } = await transact(server.client, format, `gateways/${gateway}/purchase`, { payment_method_token: token, amount: 1999, currency_code: 'USD' });
    expect(status, res.text).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', transaction_type: 'Purchase', payment_method: { payment_method_type: 'apple_pay' } });
    expect((await server.client.request('GET', `/v1/payment_methods/${token}.json`)).json().payment_method.storage_state).toBe('used');
    const transcript = await server.client.request('GET', `/v1/transactions/${t.token}/transcript`);
    expect(transcript.text).toContain('apple_pay network token, eci 7, cryptogram present');
    expect(transcript.text).not.toContain(APPLE_CRYPTOGRAM);
    expect(transcript.text).not.toContain(DPAN);

    // Single-use: the method is used up, its cryptogram gone.
    const again = await transact(server.client, format, `gateways/${gateway}/purchase`, { payment_method_token: token, amount: 1999, currency_code: 'USD' });
    expect(again.status).toBe(422);
    expect(again.t).toMatchObject({ state: 'failed', message: 'The payment method was single-use and has been used.' });
  });

  it('recurring on a retained wallet method: the cardholder-initiated charge keeps the network transaction id, the merchant-initiated one goes with it and without a cryptogram', async () => {
    const added = await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { retained: true, single_use: false, apple_pay: { payment_data: appleToken() } } });
    expect(added.status, added.text).toBe(201);
    const token = added.json().transaction.payment_method.token;
    const first = await transact(server.client, 'json', `gateways/${gateway}/purchase`, { payment_method_token: token, amount: 1000, currency_code: 'USD', stored_credential_initiator: 'cardholder', stored_credential_reason_type: 'recurring' });
    expect(first.t.state).toBe('succeeded');
    const firstTranscript = (await server.client.request('GET', `/v1/transactions/${first.t.token}/transcript`)).text;
    expect(firstTranscript).toContain('cryptogram present');

    // Without stored credentials, a second cardholder charge has no cryptogram left: declined.
    const again = await transact(server.client, 'json', `gateways/${gateway}/purchase`, { payment_method_token: token, amount: 1000, currency_code: 'USD' });
    expect(again.t).toMatchObject({ state: 'gateway_processing_failed', message: 'The network token has no cryptogram: it was used already.' });

    const next = await transact(server.client, 'json', `gateways/${gateway}/purchase`, { payment_method_token: token, amount: 1000, currency_code: 'USD', stored_credential_initiator: 'merchant', stored_credential_reason_type: 'recurring' });
    expect(next.t.state).toBe('succeeded');
    const transcript = (await server.client.request('GET', `/v1/transactions/${next.t.token}/transcript`)).text;
    expect(transcript).toContain(`stored credential: merchant recurring, network transaction id test_nti_${first.t.token}`);
    expect(transcript).toContain('cryptogram none');
  });

  it('declines a declining DPAN on the test gateway', async () => {
    const { status, t } = await transact(server.client, 'json', `gateways/${gateway}/purchase`, { apple_pay: { payment_data: appleToken(applePayload(DECLINED_DPAN)) }, amount: 100, currency_code: 'USD' });
    expect(status).toBe(422);
    expect(t).toMatchObject({ state: 'gateway_processing_failed', payment_method: { payment_method_type: 'apple_pay', last_four_digits: '1881' } });
  });

  it.each(FORMATS)('purchases with an inline Apple Pay token (%s)', async (format) => {
    const fields = format === 'json' ? { payment_data: appleToken() } : { payment_data: JSON.stringify(appleToken()) };
    const { status, t, res } = await transact(server.client, format, `gateways/${gateway}/purchase`, { apple_pay: fields, amount: 500, currency_code: 'USD' });
    expect(status, res.text).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', payment_method_added: true, payment_method: { payment_method_type: 'apple_pay', last_four_digits: '1111' } });
  });

  it('refuses a replayed Apple Pay token with its own key, storing nothing the second time', async () => {
    const data = appleToken();
    expect((await addWallet(server.client, 'json', 'apple_pay', { payment_data: data })).status).toBe(201);
    const before = await listed();
    const replay = await addWallet(server.client, 'json', 'apple_pay', { payment_data: data });
    expect(replay.status).toBe(422);
    expect(replay.json().errors).toEqual([{ key: 'errors.wallet_token_replayed', attribute: 'payment_data', message: 'The Apple Pay payment token was already used.' }]);
    // Inline, on a purchase: the same 422, no transaction.
    const inline = await transact(server.client, 'json', `gateways/${gateway}/purchase`, { apple_pay: { payment_data: data }, amount: 100, currency_code: 'USD' });
    expect(inline.status).toBe(422);
    expect(errorKeys('json', inline.res)).toEqual(['errors.wallet_token_replayed']);
    expect(await listed()).toBe(before);
  });

  describe('each Apple Pay refusal is a 422 with its own key, in JSON and XML, and stores nothing', () => {
    const tampered = () => {
      const token = appleToken();
      const data = Buffer.from(token.data as string, 'base64');
      data[0] = (data[0] ?? 0) ^ 0x01;
      return { ...token, data: data.toString('base64') };
    };
    const cases: Array<[string, () => unknown, string]> = [
      ['a tampered ciphertext', tampered, 'errors.wallet_token_bad_signature'],
      ['the signature of another token', () => ({ ...appleToken(), signature: appleToken().signature }), 'errors.wallet_token_bad_signature'],
      ['a token signed 10 minutes ago', () => appleToken(applePayload(), { signingTime: new Date(Date.now() - 10 * 60_000) }), 'errors.wallet_token_expired'],
      ['a token for an unknown certificate', () => applePayToken({ ca: roots.apple, merchantPublicKey: merchantKeyPair().publicKey, merchantIdentifier: APPLE_MERCHANT_ID, payload: applePayload() }), 'errors.wallet_token_unknown_key'],
      ['a token for another merchant identifier', () => applePayToken({ ca: roots.apple, merchantPublicKey: appleKey.publicKey, merchantIdentifier: 'merchant.com.other', payload: applePayload() }), 'errors.wallet_token_decryption_failed'],
      ['something that is not a token', () => ({ version: 'EC_v1', data: 'not base64!' }), 'errors.wallet_token_malformed'],
    ];
    it.each(FORMATS.flatMap((format) => cases.map(([name, make, key]) => [format, name, make, key] as const)))('%s: %s', async (format, _name, make, key) => {
      const before = await listed();
      const res = await addWallet(server.client, format, 'apple_pay', { payment_data: make() });
      expect(res.status, res.text).toBe(422);
      expect(firstError(format, res).key).toBe(key);
      expect(res.text).not.toContain(DPAN);
      expect(await listed()).toBe(before);
    });
  });

  it('refuses a missing payment_data, and a test_card_number that is not a test card', async () => {
    const blank = await addWallet(server.client, 'json', 'apple_pay', {});
    expect(blank.status).toBe(422);
    expect(blank.json().errors[0]).toMatchObject({ key: 'errors.blank', attribute: 'payment_data' });
    const real = await addWallet(server.client, 'json', 'apple_pay', { test_card_number: '4242424242424243' });
    expect(real.status).toBe(422);
    expect(real.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'test_card_number' });
  });

  it.each(FORMATS)('takes test_card_number in a test environment (%s) and charges it', async (format) => {
    const res = await addWallet(server.client, format, 'google_pay', { test_card_number: '5555555555554444' });
    expect(res.status, res.text).toBe(201);
    const method = transactionOf(format, res).payment_method;
    expect(method).toMatchObject({ payment_method_type: 'google_pay', card_type: 'master', last_four_digits: '4444', test: true });
    const { status, t } = await transact(server.client, format, `gateways/${gateway}/purchase`, { payment_method_token: method.token, amount: 100, currency_code: 'USD' });
    expect(status).toBe(200);
    expect(t.state).toBe('succeeded');
  });

  describe('Google Pay', () => {
    it('is refused until the environment names its Google merchant id', async () => {
      const res = await addWallet(server.client, 'json', 'google_pay', { payment_data: googleToken() });
      expect(res.status).toBe(422);
      expect(res.json().errors[0]).toMatchObject({ key: 'errors.wallet_not_configured' });
      await setGoogleMerchantId(server.client, server.init.environment_key);
    });

    it.each(FORMATS)('stores a CRYPTOGRAM_3DS token (%s) and charges it through the test gateway', async (format) => {
      const res = await addWallet(server.client, format, 'google_pay', { payment_data: JSON.stringify(googleToken()) });
      expect(res.status, res.text).toBe(201);
      const method = transactionOf(format, res).payment_method;
      expect(method).toMatchObject({ payment_method_type: 'google_pay', card_type: 'visa', last_four_digits: '1111', month: 12, year: 2030, test: true });
      expect(res.text).not.toContain(GOOGLE_CRYPTOGRAM);
      const { status, t } = await transact(server.client, format, `gateways/${gateway}/purchase`, { payment_method_token: method.token, amount: 1000, currency_code: 'USD' });
      expect(status).toBe(200);
      expect(t.state).toBe('succeeded');
      const transcript = await server.client.request('GET', `/v1/transactions/${t.token}/transcript`);
      expect(transcript.text).toContain('google_pay network token, eci 05, cryptogram present');
      expect(transcript.text).not.toContain(GOOGLE_CRYPTOGRAM);
    });

    it('stores a PAN_ONLY token as a plain card of the wallet', async () => {
      const message = googleMessage(DPAN, { authMethod: 'PAN_ONLY', cryptogram: undefined, eciIndicator: undefined });
      const res = await addWallet(server.client, 'json', 'google_pay', { payment_data: googleToken(message) });
      expect(res.status, res.text).toBe(201);
      const { t } = await transact(server.client, 'json', `gateways/${gateway}/purchase`, { payment_method_token: res.json().transaction.payment_method.token, amount: 100, currency_code: 'USD' });
      expect(t.state).toBe('succeeded');
      const transcript = await server.client.request('GET', `/v1/transactions/${t.token}/transcript`);
      expect(transcript.text).toContain('google_pay card (PAN_ONLY), eci none, cryptogram none');
    });

    const cases: Array<[string, () => unknown, string]> = [
      ['a wrong recipient', () => googlePayToken({ root: roots.google, merchantPublicKey: googleKey.publicKey, recipientId: 'merchant:999', message: googleMessage() }), 'errors.wallet_token_wrong_recipient'],
      ['an expired intermediate key', () => googleToken(googleMessage(), { intermediateKeyExpiration: Date.now() - 1000 }), 'errors.wallet_token_expired'],
      ['an expired message', () => googleToken({ ...googleMessage(), messageExpiration: String(Date.now() - 1000) }), 'errors.wallet_token_expired'],
      ['a tampered ciphertext', () => googleToken(googleMessage(), { alterCiphertextBeforeSigning: true }), 'errors.wallet_token_decryption_failed'],
      ['a token for another key', () => googlePayToken({ root: roots.google, merchantPublicKey: merchantKeyPair().publicKey, recipientId: `merchant:${GOOGLE_MERCHANT_ID}`, message: googleMessage() }), 'errors.wallet_token_decryption_failed'],
      ['a signed message altered after signing', () => {
        const token = googleToken();
        const signed = JSON.parse(token.signedMessage as string);
        const tag = Buffer.from(signed.tag, 'base64');
        tag[0] = (tag[0] ?? 0) ^ 0x01;
        return { ...token, signedMessage: JSON.stringify({ ...signed, tag: tag.toString('base64') }) };
      }, 'errors.wallet_token_bad_signature'],
      // ECDSA cannot tell a signature altered alone from one for another recipient (docs/wallets.md).
      ['a signature altered alone', () => ({ ...googleToken(), signature: Buffer.alloc(70, 1).toString('base64') }), 'errors.wallet_token_wrong_recipient'],
    ];
    it.each(cases)('refuses %s with its own key, storing nothing', async (_name, make, key) => {
      const before = await listed();
      const res = await addWallet(server.client, 'json', 'google_pay', { payment_data: make() });
      expect(res.status, res.text).toBe(422);
      expect(res.json().errors[0]).toMatchObject({ key, attribute: 'payment_data' });
      expect(await listed()).toBe(before);
    });

    it('refuses a replayed Google Pay token', async () => {
      const data = googleToken();
      expect((await addWallet(server.client, 'json', 'google_pay', { payment_data: data })).status).toBe(201);
      const replay = await addWallet(server.client, 'json', 'google_pay', { payment_data: data });
      expect(replay.status).toBe(422);
      expect(replay.json().errors[0].key).toBe('errors.wallet_token_replayed');
    });
  });

  it('keeps no DPAN, cryptogram or payment data in clear in logs or anywhere in the database (every table, every column)', async () => {
    const logs = server.logs.join('\n');
    const secrets = [DPAN, DECLINED_DPAN, APPLE_CRYPTOGRAM, GOOGLE_CRYPTOGRAM, 'applicationPrimaryAccountNumber', 'onlinePaymentCryptogram'];
    for (const secret of secrets) expect(logs).not.toContain(secret);
    const bytes = await storedBytes(server);
    expect(bytes.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(bytes.includes(Buffer.from(secret)), `${secret.slice(0, 4)}… stored in clear`).toBe(false);
  });
});
