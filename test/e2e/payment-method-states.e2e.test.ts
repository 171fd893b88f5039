import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../helpers/client.js';
import { cardDataGuard, type GuardedClient } from '../helpers/card-data-guard.js';
import { paymentMethodRow } from '../helpers/fixtures.js';
import { ManualClock, currentWholeSecond } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { asList, childOrder, type ErrorEntry as ExpectedError } from '../helpers/xml.js';

/*
 * Storage states of payment methods and their transitions over real HTTPS, JSON and XML:
 * retain, redact, recache, the caching window (lazy on read and by the sweeper, with an injected
 * clock), and a payment method's transactions. Every response is checked for card data.
 */

const VISA = '4111111111111111';
const MASTER = '5555555555554444';
const AMEX = '378282246310005';
const ROUTING = '021000021';
const ACCOUNT = '9876543210';
const CVV3 = '737';
const CVV4 = '9182';
const RECACHED_CVV = '606';
const FUTURE_YEAR = 2035;
const CACHE_WINDOW_MS = 600_000;

const FORBIDDEN_SUBSTRINGS = [VISA, MASTER, AMEX, ROUTING, ACCOUNT];
const FORBIDDEN_VALUES = [CVV3, CVV4, RECACHED_CVV];

const VAULT_TRANSACTION_KEYS = ['token', 'created_at', 'updated_at', 'succeeded', 'transaction_type', 'state', 'message_key', 'message', 'payment_method'];
const VAULT_TRANSACTION_XML = ['token', 'created_at', 'updated_at', 'succeeded', 'transaction_type', 'state', 'message', 'payment_method'];
const TOKEN = /^[A-Za-z0-9]{29}$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const FINGERPRINT = /^[0-9a-f]{36}$/;
const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';
const NOT_FOUND = { key: 'errors.payment_method_not_found', message: 'Unable to find the specified payment method.' };
const UNABLE_TO_RETAIN = 'The payment method has been redacted. Therefore, it cannot be retained.';

type Client = GuardedClient;
type Format = 'json' | 'xml';

const { guard } = cardDataGuard({ substrings: FORBIDDEN_SUBSTRINGS, values: FORBIDDEN_VALUES });

/** The exact error envelope of the request's format. */
function expectErrors(res: ApiResponse, format: Format, status: number, errors: ExpectedError[]): void {
  expect(res.status, res.text).toBe(status);
  if (format === 'json') {
    const entries = errors.map(({ key, message, attribute }) => (attribute === undefined ? { key, message } : { key, message, attribute }));
    expect(res.text).toBe(JSON.stringify({ errors: entries }));
  } else {
    const lines = errors.map((e) => `  <error key="${e.key}"${e.attribute === undefined ? '' : ` attribute="${e.attribute}"`}>${e.message}</error>`);
    expect(res.text.trim()).toBe([PROLOG, '<errors>', ...lines, '</errors>'].join('\n'));
  }
}

/**
 * A full transaction body the Ruby gem returns as a (failed) transaction rather than raising:
 * nothing matching `.//errors/error` anywhere.
 */
function expectNoErrorElements(res: ApiResponse): void {
  expect(res.text).not.toMatch(/<error[\s>/]/);
  expect(res.text).not.toContain('<errors>');
}

function cardFields(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    first_name: 'Joe',
    last_name: 'Jones',
    number: VISA,
    verification_value: CVV3,
    month: 3,
    year: FUTURE_YEAR,
    address1: '33 Lane Road',
    city: 'Wanaque',
    zip: '31331',
    phone_number: '919.331.3313',
    company: 'Acme Inc.',
    shipping_city: 'Wanaque',
    ...overrides,
  };
}

function wireTimeOf(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

describe.each(storeKinds)('payment method storage states over HTTPS (%s)', (store) => {
  let server: TestServer;
  let api: Client;
  let other: Client;

  beforeAll(async () => {
    server = await startServer({ store });
    api = guard(server.client);
    const second = await server.core.tenancy.createEnvironment(server.init.organization_token, 'second test', false);
    other = guard(server.client.withAuth({ user: second.key, password: server.init.access_secret }));
  });
  afterAll(() => server.close());

  async function createCard(fields: Record<string, unknown> = {}, extra: Record<string, unknown> = {}, client: Client = api): Promise<any> {
    const res = await client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { email: 'joe@example.com', credit_card: cardFields(fields), ...extra } });
    expect(res.status, res.text).toBe(201);
    return res.json().transaction.payment_method;
  }

  const methodRow = (token: string) => paymentMethodRow(server, token);

  async function transactionsOf(token: string) {
    return server.core.store.db.selectFrom('transactions').selectAll().where('payment_method_token', '=', token).orderBy('seq').execute();
  }

  const show = async (token: string): Promise<any> => {
    const res = await api.get(`/v1/payment_methods/${token}.json`);
    expect(res.status, res.text).toBe(200);
    return res.json().payment_method;
  };

  describe('retain', () => {
    it('retains a cached method with an empty PUT and no Content-Type (JSON)', async () => {
      const created = await createCard();
      expect(created.storage_state).toBe('cached');
      const res = await api.request('PUT', `/v1/payment_methods/${created.token}/retain.json`);
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.json())).toEqual(['transaction']);
      const transaction = res.json().transaction;
      expect(Object.keys(transaction)).toEqual(VAULT_TRANSACTION_KEYS);
      expect(transaction).toMatchObject({
        succeeded: true,
        transaction_type: 'RetainPaymentMethod',
        state: 'succeeded',
        message_key: 'messages.transaction_succeeded',
        message: 'Succeeded!',
      });
      expect(transaction.token).toMatch(TOKEN);
      expect(transaction.created_at).toMatch(TIME);
      expect(transaction.payment_method).toEqual({ ...created, storage_state: 'retained', updated_at: expect.stringMatching(TIME) });
      const row = await methodRow(created.token);
      expect(row.storage_state).toBe('retained');
      expect(row.cache_expires_at).toBeNull();
      expect((await show(created.token)).storage_state).toBe('retained');
    });

    it('retains with an empty text/xml PUT (the gem) and with an empty POST, and again when already retained', async () => {
      const created = await createCard();
      const xml = await api.request('PUT', `/v1/payment_methods/${created.token}/retain.xml`, { body: '', contentType: 'text/xml' });
      expect(xml.status, xml.text).toBe(200);
      expect(xml.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(childOrder(xml.text, 'transaction')).toEqual(VAULT_TRANSACTION_XML);
      expect(xml.text).toContain('<succeeded type="boolean">true</succeeded>');
      expect(xml.text).toContain('<transaction_type>RetainPaymentMethod</transaction_type>');
      expect(xml.text).toContain('<message key="messages.transaction_succeeded">Succeeded!</message>');
      expect(xml.text).toContain('<storage_state>retained</storage_state>');
      expect(xml.text.indexOf('<state>succeeded</state>')).toBeLessThan(xml.text.indexOf('<payment_method>'));

      const again = await api.request('POST', `/v1/payment_methods/${created.token}/retain.xml`);
      expect(again.status, again.text).toBe(200);
      expect(again.xml().transaction.succeeded['#text']).toBe('true');
      const json = await api.request('POST', `/v1/payment_methods/${created.token}/retain.json`, { body: '' });
      expect(json.status).toBe(200);
      expect(json.json().transaction.payment_method.storage_state).toBe('retained');
      const stored = await transactionsOf(created.token);
      expect(stored.map((t) => [t.transaction_type, t.state])).toEqual([
        ['AddPaymentMethod', 'succeeded'],
        ['RetainPaymentMethod', 'succeeded'],
        ['RetainPaymentMethod', 'succeeded'],
        ['RetainPaymentMethod', 'succeeded'],
      ]);
    });

    it('refuses to retain a redacted method: 422 with a full failed transaction, no <errors><error>', async () => {
      const created = await createCard();
      expect((await api.request('PUT', `/v1/payment_methods/${created.token}/redact.json`)).status).toBe(200);

      const xml = await api.request('PUT', `/v1/payment_methods/${created.token}/retain.xml`, { body: '' });
      expect(xml.status, xml.text).toBe(422);
      expect(xml.text.startsWith(`${PROLOG}\n<transaction>`)).toBe(true);
      expect(childOrder(xml.text, 'transaction')).toEqual(VAULT_TRANSACTION_XML);
      expect(xml.text).toContain('<succeeded type="boolean">false</succeeded>');
      expect(xml.text).toContain('<transaction_type>RetainPaymentMethod</transaction_type>');
      expect(xml.text).toContain('<state>failed</state>');
      expect(xml.text).toContain(`<message key="messages.unable_to_retain_a_redacted_payment_method">${UNABLE_TO_RETAIN}</message>`);
      expect(xml.text).toContain('<storage_state>redacted</storage_state>');
      expect(xml.text).toContain('<errors/>');
      expectNoErrorElements(xml);
      expect(xml.xml().transaction.token).toMatch(TOKEN);

      const json = await api.request('POST', `/v1/payment_methods/${created.token}/retain.json`);
      expect(json.status).toBe(422);
      expect(Object.keys(json.json())).toEqual(['transaction']);
      const transaction = json.json().transaction;
      expect(Object.keys(transaction)).toEqual(VAULT_TRANSACTION_KEYS);
      expect(transaction).toMatchObject({
        succeeded: false,
        transaction_type: 'RetainPaymentMethod',
        state: 'failed',
        message_key: 'messages.unable_to_retain_a_redacted_payment_method',
        message: UNABLE_TO_RETAIN,
      });
      expect(transaction.payment_method).toMatchObject({ token: created.token, storage_state: 'redacted', errors: [] });

      expect((await show(created.token)).storage_state).toBe('redacted');
      const stored = await transactionsOf(created.token);
      expect(stored.map((t) => [t.transaction_type, t.state, t.succeeded])).toEqual([
        ['AddPaymentMethod', 'succeeded', 1],
        ['RedactPaymentMethod', 'succeeded', 1],
        ['RetainPaymentMethod', 'failed', 0],
        ['RetainPaymentMethod', 'failed', 0],
      ]);
    });

    it('404 for an unknown token or another environment\'s token', async () => {
      expectErrors(await api.request('PUT', '/v1/payment_methods/nonesuch/retain.json'), 'json', 404, [NOT_FOUND]);
      expectErrors(await api.request('POST', '/v1/payment_methods/nonesuch/retain.xml'), 'xml', 404, [NOT_FOUND]);
      const foreign = await createCard({}, {}, other);
      expectErrors(await api.request('PUT', `/v1/payment_methods/${foreign.token}/retain.json`), 'json', 404, [NOT_FOUND]);
      expect((await transactionsOf(foreign.token)).length).toBe(1);
    });
  });

  describe('redact', () => {
    const expectRedactedCard = (method: any, created: any): void => {
      expect(method).toMatchObject({
        token: created.token,
        storage_state: 'redacted',
        number: '',
        first_six_digits: null,
        issuer_identification_number: null,
        fingerprint: null,
        verification_value: '',
        last_four_digits: created.last_four_digits,
        card_type: created.card_type,
        month: created.month,
        year: created.year,
      });
    };

    const expectRowDestroyed = async (token: string): Promise<void> => {
      const row = await methodRow(token);
      expect(row.storage_state).toBe('redacted');
      expect(row.sealed_number).toBeNull();
      expect(row.sealed_cvv).toBeNull();
      expect(row.fingerprint).toBeNull();
      expect(row.cvv_length).toBeNull();
      expect(row.cvv_expires_at).toBeNull();
      expect(row.cache_expires_at).toBeNull();
    };

    it('redacts with an empty PUT (JSON): RedactPaymentMethod, sensitive data destroyed, the rest kept', async () => {
      const created = await createCard();
      expect(created.fingerprint).toMatch(FINGERPRINT);
      const res = await api.request('PUT', `/v1/payment_methods/${created.token}/redact.json`);
      expect(res.status, res.text).toBe(200);
      const transaction = res.json().transaction;
      expect(Object.keys(transaction)).toEqual(VAULT_TRANSACTION_KEYS);
      expect(transaction).toMatchObject({
        succeeded: true,
        transaction_type: 'RedactPaymentMethod',
        state: 'succeeded',
        message_key: 'messages.transaction_succeeded',
        message: 'Succeeded!',
      });
      expectRedactedCard(transaction.payment_method, created);
      // Without remove_personal_data, names, addresses and email stay.
      expect(transaction.payment_method).toMatchObject({ first_name: 'Joe', last_name: 'Jones', full_name: 'Joe Jones', email: 'joe@example.com', address1: '33 Lane Road' });
      await expectRowDestroyed(created.token);
      expectRedactedCard(await show(created.token), created);
    });

    it('redacts a retained method with an empty POST (XML)', async () => {
      const created = await createCard({ number: AMEX, verification_value: CVV4 }, { retained: true });
      const res = await api.request('POST', `/v1/payment_methods/${created.token}/redact.xml`);
      expect(res.status, res.text).toBe(200);
      expect(childOrder(res.text, 'transaction')).toEqual(VAULT_TRANSACTION_XML);
      for (const fragment of [
        '<transaction_type>RedactPaymentMethod</transaction_type>',
        '<storage_state>redacted</storage_state>',
        '<first_six_digits nil="true"/>',
        '<issuer_identification_number nil="true"/>',
        '<fingerprint nil="true"/>',
        '<verification_value/>',
        '<number/>',
        '<last_four_digits>0005</last_four_digits>',
        '<card_type>american_express</card_type>',
        '<month type="integer">3</month>',
      ]) {
        expect(res.text).toContain(fragment);
      }
      await expectRowDestroyed(created.token);
      // Redacting again is harmless.
      const again = await api.request('PUT', `/v1/payment_methods/${created.token}/redact.xml`, { body: '', contentType: 'text/xml' });
      expect(again.status).toBe(200);
      expect(again.xml().transaction.payment_method.storage_state).toBe('redacted');
    });

    it('remove_personal_data clears names, addresses and email (JSON and XML)', async () => {
      for (const format of ['json', 'xml'] as const) {
        const created = await createCard({ shipping_address1: '1 Ship St' }, { data: { kept: 'yes' }, metadata: { kept: 'yes' } });
        const res =
          format === 'json'
            ? await api.sendJson('PUT', `/v1/payment_methods/${created.token}/redact.json`, { transaction: { remove_personal_data: true } })
            : await api.sendXml('PUT', `/v1/payment_methods/${created.token}/redact.xml`, '<transaction><remove_personal_data>true</remove_personal_data></transaction>');
        expect(res.status, res.text).toBe(200);
        const method = await show(created.token);
        expectRedactedCard(method, created);
        expect(method).toMatchObject({
          first_name: null,
          last_name: null,
          full_name: null,
          email: null,
          address1: null,
          city: null,
          zip: null,
          phone_number: null,
          company: null,
          shipping_address1: null,
          shipping_city: null,
          // Not personal data of the card holder: what the merchant attached stays.
          data: { kept: 'yes' },
          metadata: { kept: 'yes' },
        });
        const row = await methodRow(created.token);
        expect(row.email).toBeNull();
        expect(row.details).not.toContain('Joe');
        expect(row.details).not.toContain('Lane Road');
      }
    });

    it('404 for an unknown remove_from_gateway, and nothing is redacted', async () => {
      const created = await createCard();
      const before = await transactionsOf(created.token);
      const gatewayNotFound = [{ key: 'errors.gateway_not_found', message: 'Unable to find the specified gateway.' }];
      expectErrors(
        await api.sendJson('PUT', `/v1/payment_methods/${created.token}/redact.json`, { transaction: { remove_from_gateway: 'nonesuch' } }),
        'json',
        404,
        gatewayNotFound,
      );
      expectErrors(
        await api.sendXml('PUT', `/v1/payment_methods/${created.token}/redact.xml`, '<transaction><remove_from_gateway>nonesuch</remove_from_gateway><remove_personal_data>true</remove_personal_data></transaction>'),
        'xml',
        404,
        gatewayNotFound,
      );
      expect(await show(created.token)).toEqual(created);
      const row = await methodRow(created.token);
      expect(row.sealed_number).not.toBeNull();
      expect(row.fingerprint).toBe(created.fingerprint);
      expect(await transactionsOf(created.token)).toEqual(before);

      // A gateway of this environment is accepted.
      const gateway = (await api.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).json().gateway.token;
      const res = await api.sendXml('PUT', `/v1/payment_methods/${created.token}/redact.xml`, `<transaction><remove_from_gateway>${gateway}</remove_from_gateway></transaction>`);
      expect(res.status, res.text).toBe(200);
      expect(res.xml().transaction.payment_method.storage_state).toBe('redacted');
    });

    it('redacts a bank account: routing number and sealed numbers gone, last four kept', async () => {
      const res = await api.sendJson('POST', '/v1/payment_methods.json', {
        payment_method: { bank_account: { first_name: 'Jon', last_name: 'Doe', bank_routing_number: ROUTING, bank_account_number: ACCOUNT } },
      });
      expect(res.status, res.text).toBe(201);
      const token = res.json().transaction.payment_method.token;
      const redacted = await api.request('PUT', `/v1/payment_methods/${token}/redact.json`);
      expect(redacted.status).toBe(200);
      expect(redacted.json().transaction.payment_method).toMatchObject({
        storage_state: 'redacted',
        routing_number_display_digits: null,
        routing_number: null,
        account_number_display_digits: '3210',
        account_number: '*3210',
      });
      const row = await methodRow(token);
      expect(row.sealed_routing_number).toBeNull();
      expect(row.sealed_account_number).toBeNull();
    });

    it('404 for an unknown token; 422 for a body with the wrong root', async () => {
      expectErrors(await api.request('PUT', '/v1/payment_methods/nonesuch/redact.json'), 'json', 404, [NOT_FOUND]);
      expectErrors(await api.request('POST', '/v1/payment_methods/nonesuch/redact.xml'), 'xml', 404, [NOT_FOUND]);
      const created = await createCard();
      const wrongRoot = await api.sendJson('PUT', `/v1/payment_methods/${created.token}/redact.json`, { payment_method: { remove_personal_data: true } });
      expect(wrongRoot.status).toBe(422);
      expect(wrongRoot.json().errors[0].key).toBe('errors.malformed_request');
      expect((await show(created.token)).storage_state).toBe('cached');
    });
  });

  describe('recache', () => {
    it('holds a new CVV: PUT (JSON) and POST (XML), RecacheSensitiveData', async () => {
      const created = await createCard({ verification_value: undefined }, { retained: true });
      expect(created.verification_value).toBe('');
      const put = await api.sendJson('PUT', `/v1/payment_methods/${created.token}/recache.json`, {
        payment_method: { credit_card: { verification_value: RECACHED_CVV } },
      });
      expect(put.status, put.text).toBe(200);
      const transaction = put.json().transaction;
      expect(Object.keys(transaction)).toEqual(VAULT_TRANSACTION_KEYS);
      expect(transaction).toMatchObject({
        succeeded: true,
        transaction_type: 'RecacheSensitiveData',
        state: 'succeeded',
        message_key: 'messages.transaction_succeeded',
        message: 'Succeeded!',
      });
      expect(transaction.payment_method).toEqual({ ...created, verification_value: 'XXX', updated_at: expect.stringMatching(TIME) });
      const row = await methodRow(created.token);
      expect(row.sealed_cvv).not.toBeNull();
      expect(row.cvv_expires_at).not.toBeNull();

      const amex = await createCard({ number: AMEX, verification_value: undefined }, { retained: true });
      const post = await api.sendXml(
        'POST',
        `/v1/payment_methods/${amex.token}/recache.xml`,
        `<payment_method><credit_card><verification_value>${CVV4}</verification_value></credit_card></payment_method>`,
      );
      expect(post.status, post.text).toBe(200);
      expect(childOrder(post.text, 'transaction')).toEqual(VAULT_TRANSACTION_XML);
      expect(post.text).toContain('<transaction_type>RecacheSensitiveData</transaction_type>');
      expect(post.text).toContain('<verification_value>XXXX</verification_value>');
      expect((await show(amex.token)).verification_value).toBe('XXXX');
    });

    it('422 errors.blank / errors.invalid verification_value, nothing written', async () => {
      const created = await createCard({ verification_value: undefined }, { retained: true });
      const blank = [{ key: 'errors.blank', attribute: 'verification_value', message: "Verification value can't be blank" }];
      expectErrors(await api.request('PUT', `/v1/payment_methods/${created.token}/recache.json`), 'json', 422, blank);
      expectErrors(
        await api.sendXml('POST', `/v1/payment_methods/${created.token}/recache.xml`, '<payment_method><credit_card><verification_value/></credit_card></payment_method>'),
        'xml',
        422,
        blank,
      );
      expectErrors(
        await api.sendJson('PUT', `/v1/payment_methods/${created.token}/recache.json`, { payment_method: { credit_card: { verification_value: '12a' } } }),
        'json',
        422,
        [{ key: 'errors.invalid', attribute: 'verification_value', message: 'Verification value is invalid' }],
      );
      expect((await show(created.token)).verification_value).toBe('');
      // Retained at creation: its AddPaymentMethod and RetainPaymentMethod, and no RecacheSensitiveData.
      expect((await transactionsOf(created.token)).map((t) => t.transaction_type)).toEqual(['AddPaymentMethod', 'RetainPaymentMethod']);
    });

    it('fails on a redacted card: 422 with a failed transaction, no <errors><error>', async () => {
      const created = await createCard();
      expect((await api.request('PUT', `/v1/payment_methods/${created.token}/redact.json`)).status).toBe(200);
      for (const format of ['json', 'xml'] as const) {
        const res =
          format === 'json'
            ? await api.sendJson('PUT', `/v1/payment_methods/${created.token}/recache.json`, { payment_method: { credit_card: { verification_value: RECACHED_CVV } } })
            : await api.sendXml(
                'POST',
                `/v1/payment_methods/${created.token}/recache.xml`,
                `<payment_method><credit_card><verification_value>${RECACHED_CVV}</verification_value></credit_card></payment_method>`,
              );
        expect(res.status, res.text).toBe(422);
        if (format === 'json') {
          expect(Object.keys(res.json().transaction)).toEqual(VAULT_TRANSACTION_KEYS);
          expect(res.json().transaction).toMatchObject({
            succeeded: false,
            transaction_type: 'RecacheSensitiveData',
            state: 'failed',
            message_key: 'messages.payment_method_redacted',
            message: 'The payment method is redacted.',
          });
          expect(res.json().transaction.payment_method).toMatchObject({ storage_state: 'redacted', verification_value: '' });
        } else {
          expect(res.text).toContain('<succeeded type="boolean">false</succeeded>');
          expect(res.text).toContain('<state>failed</state>');
          expect(res.text).toContain('<message key="messages.payment_method_redacted">The payment method is redacted.</message>');
          expectNoErrorElements(res);
        }
      }
      const row = await methodRow(created.token);
      expect(row.sealed_cvv).toBeNull();
    });

    it('404 for an unknown token; 422 for a bank account', async () => {
      expectErrors(
        await api.sendJson('PUT', '/v1/payment_methods/nonesuch/recache.json', { payment_method: { credit_card: { verification_value: RECACHED_CVV } } }),
        'json',
        404,
        [NOT_FOUND],
      );
      const bank = await api.sendJson('POST', '/v1/payment_methods.json', {
        payment_method: { bank_account: { first_name: 'Jon', last_name: 'Doe', bank_routing_number: ROUTING, bank_account_number: ACCOUNT } },
      });
      const token = bank.json().transaction.payment_method.token;
      expectErrors(
        await api.sendJson('PUT', `/v1/payment_methods/${token}/recache.json`, { payment_method: { credit_card: { verification_value: RECACHED_CVV } } }),
        'json',
        422,
        [{ key: 'errors.invalid', attribute: 'payment_method_type', message: 'Only credit cards hold a verification value' }],
      );
    });
  });

  describe('a payment method\'s transactions', () => {
    let token: string;
    let transactions: string[];

    beforeAll(async () => {
      token = (await createCard()).token;
      expect((await api.request('PUT', `/v1/payment_methods/${token}/retain.json`)).status).toBe(200);
      expect(
        (await api.sendJson('PUT', `/v1/payment_methods/${token}/recache.json`, { payment_method: { credit_card: { verification_value: RECACHED_CVV } } })).status,
      ).toBe(200);
      expect((await api.request('PUT', `/v1/payment_methods/${token}/redact.json`)).status).toBe(200);
      expect(
        (await api.sendJson('POST', `/v1/payment_methods/${token}/recache.json`, { payment_method: { credit_card: { verification_value: RECACHED_CVV } } })).status,
      ).toBe(422);
      transactions = (await transactionsOf(token)).map((t) => t.token);
      // Transactions of other methods must not show up.
      await createCard();
    });

    it('lists AddPaymentMethod, Retain, Recache, Redact and the failed Recache, oldest first (JSON)', async () => {
      const res = await api.get(`/v1/payment_methods/${token}/transactions.json`);
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.json())).toEqual(['transactions']);
      const listed = res.json().transactions;
      expect(listed.map((t: any) => t.token)).toEqual(transactions);
      expect(listed.map((t: any) => [t.transaction_type, t.succeeded, t.state])).toEqual([
        ['AddPaymentMethod', true, 'succeeded'],
        ['RetainPaymentMethod', true, 'succeeded'],
        ['RecacheSensitiveData', true, 'succeeded'],
        ['RedactPaymentMethod', true, 'succeeded'],
        ['RecacheSensitiveData', false, 'failed'],
      ]);
      expect(Object.keys(listed[0])).toEqual(['token', 'created_at', 'updated_at', 'succeeded', 'transaction_type', 'retained', 'state', 'message_key', 'message', 'payment_method']);
      expect(listed[0].retained).toBe(false);
      for (const transaction of listed.slice(1)) expect(Object.keys(transaction)).toEqual(VAULT_TRANSACTION_KEYS);
      for (const transaction of listed) expect(transaction.payment_method.token).toBe(token);
      expect(listed[4].message_key).toBe('messages.payment_method_redacted');
    });

    it('lists them in XML as <transactions><transaction>', async () => {
      const res = await api.get(`/v1/payment_methods/${token}/transactions.xml`);
      expect(res.status).toBe(200);
      expect(res.text.startsWith(`${PROLOG}\n<transactions>\n  <transaction>`)).toBe(true);
      expect(childOrder(res.text, 'transactions')).toEqual(Array(5).fill('transaction'));
      const listed = asList(res.xml().transactions.transaction);
      expect(listed.map((t: any) => t.transaction_type)).toEqual([
        'AddPaymentMethod',
        'RetainPaymentMethod',
        'RecacheSensitiveData',
        'RedactPaymentMethod',
        'RecacheSensitiveData',
      ]);
      expect(listed.map((t: any) => t.token)).toEqual(transactions);
      expect(listed[4].message).toEqual({ '#text': 'The payment method is redacted.', '@_key': 'messages.payment_method_redacted' });
    });

    it('paginates with since_token, count and order', async () => {
      const page = async (query: string): Promise<string[]> => {
        const res = await api.get(`/v1/payment_methods/${token}/transactions.json${query}`);
        expect(res.status, res.text).toBe(200);
        return res.json().transactions.map((t: any) => t.token);
      };
      expect(await page(`?since_token=${transactions[1]}`)).toEqual(transactions.slice(2));
      expect(await page('?count=2')).toEqual(transactions.slice(0, 2));
      expect(await page(`?since_token=${transactions[0]}&count=2`)).toEqual(transactions.slice(1, 3));
      expect(await page('?order=desc')).toEqual([...transactions].reverse());
      expect(await page(`?order=desc&since_token=${transactions[3]}`)).toEqual([transactions[2], transactions[1], transactions[0]]);
      expect(await page(`?since_token=${transactions[4]}`)).toEqual([]);
      const xml = await api.get(`/v1/payment_methods/${token}/transactions.xml?since_token=${transactions[2]}&count=1`);
      expect(asList(xml.xml().transactions.transaction).map((t: any) => t.token)).toEqual([transactions[3]]);
      // A transaction of another payment method is no position in this list.
      const otherMethod = await createCard();
      const otherTransaction = (await transactionsOf(otherMethod.token))[0]?.token;
      expectErrors(await api.get(`/v1/payment_methods/${token}/transactions.json?since_token=${otherTransaction}`), 'json', 422, [
        { key: 'errors.invalid', attribute: 'since_token', message: 'Since token is invalid' },
      ]);
    });

    it('404 for an unknown payment method or another environment\'s', async () => {
      expectErrors(await api.get('/v1/payment_methods/nonesuch/transactions.json'), 'json', 404, [NOT_FOUND]);
      expectErrors(await api.get('/v1/payment_methods/nonesuch/transactions.xml'), 'xml', 404, [NOT_FOUND]);
      const foreign = await createCard({}, {}, other);
      expectErrors(await api.get(`/v1/payment_methods/${foreign.token}/transactions.xml`), 'xml', 404, [NOT_FOUND]);
    });
  });

  it('creates a single-use payment method (JSON and XML)', async () => {
    const json = await api.sendJson('POST', '/v1/payment_methods.json', { payment_method: { single_use: true, credit_card: cardFields() } });
    expect(json.status, json.text).toBe(201);
    expect(json.json().transaction).toMatchObject({ succeeded: true, transaction_type: 'AddPaymentMethod' });
    expect(json.json().transaction.payment_method.storage_state).toBe('cached');
    expect((await methodRow(json.json().transaction.payment_method.token)).single_use).toBe(1);
    const xml = await api.sendXml(
      'POST',
      '/v1/payment_methods.xml',
      `<payment_method><single_use>true</single_use><credit_card><first_name>Joe</first_name><last_name>Jones</last_name><number>${MASTER}</number><month>3</month><year>${FUTURE_YEAR}</year></credit_card></payment_method>`,
    );
    expect(xml.status, xml.text).toBe(201);
    expect((await methodRow(xml.xml().transaction.payment_method.token)).single_use).toBe(1);
    const plain = await createCard();
    expect((await methodRow(plain.token)).single_use).toBe(0);
  });

  it('never writes card data to the log', () => {
    const logs = server.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of FORBIDDEN_SUBSTRINGS) expect(logs).not.toContain(secret);
  });
});

describe.each(storeKinds)('the caching window with an injected clock (%s)', (store) => {
  let server: TestServer;
  let api: Client;
  const clock = new ManualClock(currentWholeSecond());
  const advance = (ms: number): void => clock.advance(ms);

  beforeAll(async () => {
    server = await startServer({ store, clock });
    api = guard(server.client);
  });
  afterAll(() => server.close());

  async function createCard(fields: Record<string, unknown> = {}, extra: Record<string, unknown> = {}, client: Client = api): Promise<any> {
    const res = await client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: cardFields(fields), ...extra } });
    expect(res.status, res.text).toBe(201);
    return res.json().transaction.payment_method;
  }

  const methodRow = (token: string) => paymentMethodRow(server, token);

  const show = async (token: string, client: Client = api): Promise<any> => {
    const res = await client.get(`/v1/payment_methods/${token}.json`);
    expect(res.status, res.text).toBe(200);
    return res.json().payment_method;
  };

  it('stamps created_at from the injected clock', async () => {
    const created = await createCard();
    expect(created.created_at).toBe(wireTimeOf(clock.now()));
  });

  it('redacts a cached card once its window has passed, on the next read', async () => {
    const created = await createCard();
    const row = await methodRow(created.token);
    expect(row.cache_expires_at).toBe(new Date(clock.now().getTime() + CACHE_WINDOW_MS).toISOString());

    advance(CACHE_WINDOW_MS - 1000);
    const before = await api.get(`/v1/payment_methods/${created.token}.xml`);
    expect(before.status).toBe(200);
    expect(before.text).toContain('<storage_state>cached</storage_state>');
    expect(before.text).toContain('<verification_value>XXX</verification_value>');
    expect(before.text).toContain('<number>XXXX-XXXX-XXXX-1111</number>');
    expect((await methodRow(created.token)).sealed_number).not.toBeNull();

    advance(2000);
    const after = await show(created.token);
    expect(after).toMatchObject({
      storage_state: 'redacted',
      number: '',
      verification_value: '',
      fingerprint: null,
      first_six_digits: null,
      issuer_identification_number: null,
      last_four_digits: '1111',
      card_type: 'visa',
    });
    const redacted = await methodRow(created.token);
    expect(redacted.storage_state).toBe('redacted');
    expect(redacted.sealed_number).toBeNull();
    expect(redacted.sealed_cvv).toBeNull();
    expect(redacted.fingerprint).toBeNull();

    // Too late to retain it now.
    const retain = await api.request('PUT', `/v1/payment_methods/${created.token}/retain.xml`);
    expect(retain.status).toBe(422);
    expect(retain.text).toContain(`<message key="messages.unable_to_retain_a_redacted_payment_method">${UNABLE_TO_RETAIN}</message>`);
  });

  it('keeps a retained card, dropping only its CVV after the window; recache holds a new one', async () => {
    const created = await createCard({}, { retained: true });
    advance(CACHE_WINDOW_MS - 1000);
    expect(await show(created.token)).toEqual(created);

    advance(2000);
    const after = await show(created.token);
    expect(after).toEqual({ ...created, verification_value: '' });
    const row = await methodRow(created.token);
    expect(row.storage_state).toBe('retained');
    expect(row.sealed_number).not.toBeNull();
    expect(row.fingerprint).toBe(created.fingerprint);
    expect(row.sealed_cvv).toBeNull();

    const recache = await api.sendXml(
      'PUT',
      `/v1/payment_methods/${created.token}/recache.xml`,
      `<payment_method><credit_card><verification_value>${RECACHED_CVV}</verification_value></credit_card></payment_method>`,
    );
    expect(recache.status, recache.text).toBe(200);
    expect(recache.text).toContain('<verification_value>XXX</verification_value>');
    expect((await methodRow(created.token)).cvv_expires_at).toBe(new Date(clock.now().getTime() + CACHE_WINDOW_MS).toISOString());
    advance(CACHE_WINDOW_MS + 1000);
    expect((await show(created.token)).verification_value).toBe('');
    expect((await show(created.token)).storage_state).toBe('retained');
  });

  it('a retained card is never redacted by time', async () => {
    const created = await createCard({ verification_value: undefined }, { retained: true });
    advance(30 * 24 * 3600 * 1000);
    await server.core.sweeper.sweepOnce();
    expect(await show(created.token)).toEqual(created);
  });

  it('the sweeper redacts expired cached cards nobody read and drops expired CVVs, once', async () => {
    // Settle whatever earlier tests left behind.
    advance(24 * 3600 * 1000);
    await server.core.sweeper.sweepOnce();

    const cachedWithCvv = await createCard();
    const cachedWithoutCvv = await createCard({ number: MASTER, verification_value: undefined });
    const retainedWithCvv = await createCard({ number: AMEX, verification_value: CVV4 }, { retained: true });
    const retainedWithoutCvv = await createCard({ verification_value: undefined }, { retained: true });
    advance(CACHE_WINDOW_MS + 1000);
    const fresh = await createCard();

    expect(await server.core.sweeper.sweepOnce()).toMatchObject({ redacted: 2, cvvsDropped: 1 });
    expect(await server.core.sweeper.sweepOnce()).toMatchObject({ redacted: 0, cvvsDropped: 0 });

    for (const method of [cachedWithCvv, cachedWithoutCvv]) {
      const row = await methodRow(method.token);
      expect(row.storage_state).toBe('redacted');
      expect(row.sealed_number).toBeNull();
      expect(row.sealed_cvv).toBeNull();
      expect(row.fingerprint).toBeNull();
    }
    const retainedRow = await methodRow(retainedWithCvv.token);
    expect(retainedRow.storage_state).toBe('retained');
    expect(retainedRow.sealed_number).not.toBeNull();
    expect(retainedRow.sealed_cvv).toBeNull();
    expect((await methodRow(retainedWithoutCvv.token)).storage_state).toBe('retained');
    const freshRow = await methodRow(fresh.token);
    expect(freshRow.storage_state).toBe('cached');
    expect(freshRow.sealed_cvv).not.toBeNull();

    expect((await show(cachedWithCvv.token)).storage_state).toBe('redacted');
    expect((await show(retainedWithCvv.token)).verification_value).toBe('');
    expect(await show(fresh.token)).toEqual(fresh);
  });

  // src bug (reported): list filters on the stored state and settles afterwards, so a cached method
  // past its window is listed under state=cached (shown as redacted) and missing from state=redacted.
  it('lists a cached card past its window as redacted, not as cached', async () => {
    const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, `window-${store}`, false);
    const scoped = guard(server.client.withAuth({ user: environment.key, password: server.init.access_secret }));
    const created = await createCard({}, {}, scoped);
    advance(CACHE_WINDOW_MS + 1000);
    const redacted = await scoped.get('/v1/payment_methods.json?state=redacted');
    expect(redacted.json().payment_methods.map((m: any) => m.token)).toEqual([created.token]);
    const cached = await scoped.get('/v1/payment_methods.json?state=cached');
    expect(cached.json().payment_methods).toEqual([]);
  });

  it('never writes card data to the log', () => {
    const logs = server.logs.join('\n');
    for (const secret of FORBIDDEN_SUBSTRINGS) expect(logs).not.toContain(secret);
  });
});
