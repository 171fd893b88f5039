import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { addPaymentMethod, createTestGateway, transactionXml } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { asList, childOrder, xmlErrorEntries } from '../helpers/xml.js';

/*
 * Reading transactions over real HTTPS, JSON and XML (wire-reference §2.5, §4): the
 * environment's list with its state filter and pagination, one transaction, a gateway's and a
 * payment method's transactions, and the plain-text transcript. Each suite works in an
 * environment of its own (GET /v1/transactions is rate limited per environment, API.md §7).
 */

const VISA = '4111111111111111';
const DECLINE_VISA = '4012888888881881';
const CVV = '737';
const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';

function expectError(res: ApiResponse, format: 'json' | 'xml', status: number, error: { key: string; message?: string; attribute?: string }): void {
  expect(res.status, res.text).toBe(status);
  if (format === 'json') {
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const [first] = res.json().errors;
    expect(first).toMatchObject(error);
  } else {
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    const first = asList(res.xml().errors.error)[0] as any;
    expect(first['@_key']).toBe(error.key);
    if (error.message !== undefined) expect(first['#text']).toBe(error.message);
    if (error.attribute !== undefined) expect(first['@_attribute']).toBe(error.attribute);
  }
}

describe.each(storeKinds)('transactions: lists, show, transcript over HTTPS (%s)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ store });
  });
  afterAll(() => server.close());

  async function environmentClient(name: string): Promise<ApiClient> {
    const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, name, false);
    return server.client.withAuth({ user: environment.key, password: server.init.access_secret });
  }

  /** A card retained at creation: its AddPaymentMethod and RetainPaymentMethod transactions (docs/wire-compatibility.md). */
  async function createCard(client: ApiClient, number: string): Promise<{ token: string; transaction: string; retain: string }> {
    const transaction = await addPaymentMethod(client, {
      credit_card: { first_name: 'Joe', last_name: 'Jones', number, verification_value: CVV, month: 3, year: 2035 },
      retained: true,
    });
    const own = await client.get(`/v1/payment_methods/${transaction.payment_method.token}/transactions.json`);
    const [added, retained] = own.json().transactions as Array<{ token: string; transaction_type: string }>;
    expect([added?.token, retained?.transaction_type]).toEqual([transaction.token, 'RetainPaymentMethod']);
    return { token: transaction.payment_method.token, transaction: transaction.token, retain: retained!.token };
  }

  async function transact(client: ApiClient, gateway: string, operation: string, paymentMethod: string, amount: number, status = 200): Promise<string> {
    const res = await client.sendXml(
      'POST',
      `/v1/gateways/${gateway}/${operation}.xml`,
      transactionXml(amount, paymentMethod),
    );
    expect(res.status, res.text).toBe(status);
    return res.xml().transaction.token;
  }

  describe('one environment with a history', () => {
    let api: ApiClient;
    let other: ApiClient;
    let gatewayOne: string;
    let gatewayTwo: string;
    let card: { token: string; transaction: string; retain: string };
    let declining: { token: string; transaction: string; retain: string };
    /** In creation order: (AddPaymentMethod, RetainPaymentMethod) ×2, Purchase, Purchase (declined), Authorization, Capture, Purchase (timeout). */
    let tokens: string[];
    let foreignTransaction: string;
    let foreignGateway: string;

    beforeAll(async () => {
      api = await environmentClient(`history-${store}`);
      other = await environmentClient(`elsewhere-${store}`);
      gatewayOne = await createTestGateway(api);
      gatewayTwo = await createTestGateway(api);
      card = await createCard(api, VISA);
      declining = await createCard(api, DECLINE_VISA);
      const purchase = await transact(api, gatewayOne, 'purchase', card.token, 100);
      const declined = await transact(api, gatewayOne, 'purchase', declining.token, 100, 422);
      const authorization = await transact(api, gatewayTwo, 'authorize', card.token, 500);
      const capture = await api.request('POST', `/v1/transactions/${authorization}/capture.json`);
      expect(capture.status, capture.text).toBe(200);
      const timeout = await transact(api, gatewayTwo, 'purchase', card.token, 4080, 408);
      tokens = [card.transaction, card.retain, declining.transaction, declining.retain, purchase, declined, authorization, capture.json().transaction.token, timeout];

      foreignGateway = await createTestGateway(other);
      const foreignCard = await createCard(other, VISA);
      foreignTransaction = await transact(other, foreignGateway, 'purchase', foreignCard.token, 100);
    });

    const list = async (query = ''): Promise<string[]> => {
      const res = await api.get(`/v1/transactions.json${query}`);
      expect(res.status, res.text).toBe(200);
      return res.json().transactions.map((t: any) => t.token);
    };

    describe('GET /v1/transactions', () => {
      it('lists every transaction of the environment, oldest first, vault and gateway alike (JSON)', async () => {
        const res = await api.get('/v1/transactions.json');
        expect(res.status, res.text).toBe(200);
        expect(Object.keys(res.json())).toEqual(['transactions']);
        const listed = res.json().transactions;
        expect(listed.map((t: any) => t.token)).toEqual(tokens);
        expect(listed.map((t: any) => [t.transaction_type, t.state])).toEqual([
          ['AddPaymentMethod', 'succeeded'],
          ['RetainPaymentMethod', 'succeeded'],
          ['AddPaymentMethod', 'succeeded'],
          ['RetainPaymentMethod', 'succeeded'],
          ['Purchase', 'succeeded'],
          ['Purchase', 'gateway_processing_failed'],
          ['Authorization', 'succeeded'],
          ['Capture', 'succeeded'],
          ['Purchase', 'gateway_processing_result_unknown'],
        ]);
        expect(listed[0].payment_method.token).toBe(card.token);
        expect(listed[1].payment_method.token).toBe(card.token);
        expect(listed[4]).toMatchObject({ gateway_token: gatewayOne, amount: 100, currency_code: 'USD', succeeded: true });
        expect(listed[4].response.message).toBe('Successful purchase');
        expect(listed[7].reference_token).toBe(tokens[6]);
        expect(listed[8].response.result_unknown).toBe(true);
        // As GET /v1/transactions/<t> shows each.
        for (const transaction of listed) {
          const shown = await api.get(`/v1/transactions/${transaction.token}.json`);
          expect(shown.json().transaction).toEqual(transaction);
        }
        expect(res.text).not.toContain(foreignTransaction);
      });

      it('lists them in XML as <transactions><transaction>', async () => {
        const res = await api.get('/v1/transactions.xml');
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
        expect(res.text.startsWith(`${PROLOG}\n<transactions>\n  <transaction>`)).toBe(true);
        expect(childOrder(res.text, 'transactions')).toEqual(Array(tokens.length).fill('transaction'));
        const listed = asList(res.xml().transactions.transaction) as any[];
        expect(listed.map((t) => t.token)).toEqual(tokens);
        expect(listed.map((t) => t.transaction_type)).toEqual(['AddPaymentMethod', 'RetainPaymentMethod', 'AddPaymentMethod', 'RetainPaymentMethod', 'Purchase', 'Purchase', 'Authorization', 'Capture', 'Purchase']);
        expect(listed[5].message).toBe('Unable to process the purchase transaction.');
        expect(listed[4].message).toEqual({ '#text': 'Succeeded!', '@_key': 'messages.transaction_succeeded' });
        // Every gateway transaction carries what the gem's GatewayTransaction needs.
        for (const transaction of listed.slice(4)) {
          expect(transaction).toHaveProperty('gateway_specific_fields');
          expect(transaction).toHaveProperty('gateway_specific_response_fields');
          expect(transaction).toHaveProperty('payment_method');
        }
      });

      it('filters by state', async () => {
        expect(await list('?state=succeeded')).toEqual([tokens[0], tokens[1], tokens[2], tokens[3], tokens[4], tokens[6], tokens[7]]);
        expect(await list('?state=gateway_processing_failed')).toEqual([tokens[5]]);
        expect(await list('?state=gateway_processing_result_unknown')).toEqual([tokens[8]]);
        expect(await list('?state=failed')).toEqual([]);
        const xml = await api.get('/v1/transactions.xml?state=gateway_processing_failed');
        expect(asList(xml.xml().transactions.transaction).map((t: any) => t.token)).toEqual([tokens[5]]);
      });

      it('refuses an unknown state with 422', async () => {
        expectError(await api.get('/v1/transactions.json?state=bogus'), 'json', 422, { key: 'errors.inclusion', attribute: 'state' });
        expectError(await api.get('/v1/transactions.xml?state=SUCCEEDED'), 'xml', 422, { key: 'errors.inclusion', attribute: 'state' });
      });

      it('paginates with since_token, count and order=desc', async () => {
        expect(await list(`?since_token=${tokens[1]}`)).toEqual(tokens.slice(2));
        expect(await list('?count=2')).toEqual(tokens.slice(0, 2));
        expect(await list(`?since_token=${tokens[2]}&count=3`)).toEqual(tokens.slice(3, 6));
        expect(await list('?order=desc')).toEqual([...tokens].reverse());
        expect(await list(`?order=desc&since_token=${tokens[3]}`)).toEqual([tokens[2], tokens[1], tokens[0]]);
        expect(await list(`?since_token=${tokens[8]}`)).toEqual([]);
        const xml = await api.get(`/v1/transactions.xml?since_token=${tokens[4]}&count=1`);
        expect(asList(xml.xml().transactions.transaction).map((t: any) => t.token)).toEqual([tokens[5]]);
      });

      it('refuses a since_token that is not one of the environment\'s transactions', async () => {
        expectError(await api.get('/v1/transactions.json?since_token=nonesuch'), 'json', 422, { key: 'errors.invalid', attribute: 'since_token' });
        expectError(await api.get(`/v1/transactions.xml?since_token=${foreignTransaction}`), 'xml', 422, { key: 'errors.invalid', attribute: 'since_token' });
      });
    });

    describe('GET /v1/transactions/<t>', () => {
      it('shows one transaction in JSON and XML', async () => {
        const json = await api.get(`/v1/transactions/${tokens[5]}.json`);
        expect(json.status).toBe(200);
        expect(json.json().transaction).toMatchObject({ token: tokens[5], state: 'gateway_processing_failed', transaction_type: 'Purchase', succeeded: false });
        const xml = await api.get(`/v1/transactions/${tokens[5]}.xml`);
        expect(xml.status).toBe(200);
        expect(xml.xml().transaction.token).toBe(tokens[5]);
        expect(xml.text.indexOf(`<token>${tokens[5]}</token>`)).toBeLessThan(xml.text.indexOf('<payment_method>'));
        const plain = await api.get(`/v1/transactions/${tokens[0]}`);
        expect(plain.status).toBe(200);
        expect(plain.json().transaction.transaction_type).toBe('AddPaymentMethod');
      });

      it('404 errors.transaction_not_found "Unable to find the transaction <token>." for an unknown token', async () => {
        const message = 'Unable to find the transaction nonesuchTOKEN.';
        expectError(await api.get('/v1/transactions/nonesuchTOKEN.json'), 'json', 404, { key: 'errors.transaction_not_found', message });
        const xml = await api.get('/v1/transactions/nonesuchTOKEN.xml');
        expectError(xml, 'xml', 404, { key: 'errors.transaction_not_found', message });
        expect(xml.text).toContain(`<error key="errors.transaction_not_found">${message}</error>`);
        expect(await api.get('/v1/transactions/nonesuchTOKEN.json').then((res) => res.json())).toEqual({ errors: [{ key: 'errors.transaction_not_found', message }] });
      });

      it("404 for another environment's transaction", async () => {
        const message = `Unable to find the transaction ${foreignTransaction}.`;
        expectError(await api.get(`/v1/transactions/${foreignTransaction}.json`), 'json', 404, { key: 'errors.transaction_not_found', message });
        expectError(await api.get(`/v1/transactions/${foreignTransaction}.xml`), 'xml', 404, { key: 'errors.transaction_not_found', message });
        expect((await other.get(`/v1/transactions/${foreignTransaction}.json`)).status).toBe(200);
        expect((await other.get(`/v1/transactions/${tokens[4]}.json`)).status).toBe(404);
      });

      it('401 without valid credentials', async () => {
        const res = await api.withAuth({ user: 'nobody', password: 'nothing' }).get(`/v1/transactions/${tokens[4]}.json`);
        expect(res.status).toBe(401);
        expect((await api.withAuth(null).get('/v1/transactions.json')).status).toBe(401);
      });
    });

    describe('GET /v1/gateways/<t>/transactions', () => {
      it("lists only that gateway's transactions (JSON and XML)", async () => {
        const one = await api.get(`/v1/gateways/${gatewayOne}/transactions.json`);
        expect(one.status, one.text).toBe(200);
        expect(one.json().transactions.map((t: any) => t.token)).toEqual([tokens[4], tokens[5]]);
        const two = await api.get(`/v1/gateways/${gatewayTwo}/transactions.xml`);
        expect(two.status).toBe(200);
        expect(childOrder(two.text, 'transactions')).toEqual(['transaction', 'transaction', 'transaction']);
        expect(asList(two.xml().transactions.transaction).map((t: any) => t.token)).toEqual([tokens[6], tokens[7], tokens[8]]);
      });

      it('filters and paginates', async () => {
        const get = async (query: string) => (await api.get(`/v1/gateways/${gatewayTwo}/transactions.json${query}`)).json().transactions.map((t: any) => t.token);
        expect(await get('?state=succeeded')).toEqual([tokens[6], tokens[7]]);
        expect(await get(`?since_token=${tokens[6]}`)).toEqual([tokens[7], tokens[8]]);
        expect(await get('?order=desc&count=1')).toEqual([tokens[8]]);
      });

      it("404 for an unknown gateway or another environment's", async () => {
        const notFound = { key: 'errors.gateway_not_found', message: 'Unable to find the specified gateway.' };
        expectError(await api.get('/v1/gateways/nonesuch/transactions.json'), 'json', 404, notFound);
        expectError(await api.get(`/v1/gateways/${foreignGateway}/transactions.xml`), 'xml', 404, notFound);
      });
    });

    describe('GET /v1/payment_methods/<t>/transactions', () => {
      it("includes the payment method's AddPaymentMethod and its gateway transactions", async () => {
        const json = await api.get(`/v1/payment_methods/${card.token}/transactions.json`);
        expect(json.status, json.text).toBe(200);
        const listed = json.json().transactions.map((t: any) => t.token);
        expect(listed).toEqual([tokens[0], tokens[1], tokens[4], tokens[6], tokens[7], tokens[8]]);
        const xml = await api.get(`/v1/payment_methods/${declining.token}/transactions.xml`);
        expect(asList(xml.xml().transactions.transaction).map((t: any) => [t.token, t.transaction_type])).toEqual([
          [tokens[2], 'AddPaymentMethod'],
          [tokens[3], 'RetainPaymentMethod'],
          [tokens[5], 'Purchase'],
        ]);
      });

      it('filters by state as GET /v1/transactions does, and refuses an unknown state with 422', async () => {
        const get = async (query: string) => (await api.get(`/v1/payment_methods/${card.token}/transactions.json${query}`)).json().transactions.map((t: any) => t.token);
        expect(await get('?state=succeeded')).toEqual([tokens[0], tokens[1], tokens[4], tokens[6], tokens[7]]);
        expect(await get('?state=gateway_processing_result_unknown')).toEqual([tokens[8]]);
        expect(await get('?state=succeeded,gateway_processing_result_unknown&order=desc&count=2')).toEqual([tokens[8], tokens[7]]);
        expect(await get('?state=gateway_processing_failed')).toEqual([]);
        const xml = await api.get(`/v1/payment_methods/${declining.token}/transactions.xml?state=gateway_processing_failed`);
        expect(asList(xml.xml().transactions.transaction).map((t: any) => t.token)).toEqual([tokens[5]]);
        expectError(await api.get(`/v1/payment_methods/${card.token}/transactions.json?state=bogus`), 'json', 422, { key: 'errors.inclusion', attribute: 'state' });
      });
    });

    describe('GET /v1/transactions/<t>/transcript', () => {
      it('is plain text, with or without Accept: text/plain, and holds no card data', async () => {
        const res = await api.get(`/v1/transactions/${tokens[4]}/transcript`);
        expect(res.status, res.text).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/plain/);
        expect(res.text).toMatch(/purchase/i);
        for (const secret of [VISA, CVV, VISA.slice(6)]) expect(res.text).not.toContain(secret);
        const accepted = await api.get(`/v1/transactions/${tokens[4]}/transcript`, { accept: 'text/plain' });
        expect(accepted.status).toBe(200);
        expect(accepted.headers['content-type']).toMatch(/^text\/plain/);
        expect(accepted.text).toBe(res.text);
        // The decline's exchange is recorded too; the timeout has a transcript (the test gateway
        // records nothing for a simulated timeout, so it may be empty).
        expect((await api.get(`/v1/transactions/${tokens[5]}/transcript`)).text).toMatch(/Unable to process the purchase transaction/);
        const timeout = await api.get(`/v1/transactions/${tokens[8]}/transcript`);
        expect(timeout.status).toBe(200);
        expect(timeout.headers['content-type']).toMatch(/^text\/plain/);
        // A vault transaction has no exchange with a gateway.
        const vault = await api.get(`/v1/transactions/${tokens[0]}/transcript`);
        expect(vault.status).toBe(200);
        expect(vault.text).toBe('');
      });

      it("404 for an unknown transaction or another environment's", async () => {
        // Errors of the bare transcript path are XML unless Accept asks for JSON (docs/wire-compatibility.md).
        const unknown = await api.get('/v1/transactions/nonesuch/transcript');
        expect(unknown.status).toBe(404);
        expect(xmlErrorEntries(unknown.xml().errors)[0]).toMatchObject({ key: 'errors.transaction_not_found', message: 'Unable to find the transaction nonesuch.' });
        const asJson = await api.get('/v1/transactions/nonesuch/transcript', { accept: 'application/json' });
        expect(asJson.json().errors[0]).toMatchObject({ key: 'errors.transaction_not_found', message: 'Unable to find the transaction nonesuch.' });
        expect((await api.get('/v1/transactions/nonesuch/transcript', { accept: 'text/plain' })).status).toBe(404);
        expect((await api.get(`/v1/transactions/${foreignTransaction}/transcript`)).status).toBe(404);
      });
    });
  });

  it('pages 20 at a time by default, up to 100 with count', async () => {
    const api = await environmentClient(`pages-${store}`);
    const gateway = await createTestGateway(api);
    const card = await createCard(api, VISA);
    const created = [card.transaction, card.retain];
    for (let i = 0; i < 23; i += 1) created.push(await transact(api, gateway, 'purchase', card.token, 100 + i));
    const first = (await api.get('/v1/transactions.json')).json().transactions.map((t: any) => t.token);
    expect(first).toEqual(created.slice(0, 20));
    const next = (await api.get(`/v1/transactions.json?since_token=${first[19]}`)).json().transactions.map((t: any) => t.token);
    expect(next).toEqual(created.slice(20));
    const all = (await api.get('/v1/transactions.json?count=100')).json().transactions.map((t: any) => t.token);
    expect(all).toEqual(created);
    const capped = await api.get('/v1/transactions.json?count=500');
    expect(capped.status).toBe(200);
    expect(capped.json().transactions.length).toBeLessThanOrEqual(100);
  });
});
