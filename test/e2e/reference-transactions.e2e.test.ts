import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { createRetainedCard, createTestGateway } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { xmlErrorEntries, xmlText, type ErrorEntry } from '../helpers/xml.js';

/*
 * Reference transactions (capture, credit, void; wire-reference §2.4, API.md §5) over real HTTPS,
 * in JSON and in XML as the Ruby clients send them, and their serialization: concurrent
 * captures, voids and credits of one reference are decided one at a time, so exactly one full
 * settlement wins, whatever the store.
 */

type Format = 'json' | 'xml';
const FORMATS: Format[] = ['json', 'xml'];
const TOKEN = /^[A-Za-z0-9]{29}$/;
const VISA = '4111111111111111';
const DECLINE_VISA = '4012888888881881';
const REFERENCE_NOT_FOUND = 'Unable to find the specified reference transaction.';
const REFERENCE_NOT_SUCCEEDED = 'The reference transaction did not succeed. Only successful reference transactions are permitted.';

interface Tx {
  token: string;
  state: string;
  succeeded: boolean;
  transaction_type: string;
  message: string | null;
  message_key: string | null;
  amount: number | null;
  currency_code: string | null;
  reference_token: string | null;
  response: { success: boolean; message: string; cancelled: boolean } | null;
}

/** One format's way of calling the API, answers read the same whatever the format. */
class Api {
  constructor(
    readonly client: ApiClient,
    readonly format: Format,
  ) {}

  /** POST (or PUT) a `transaction` body, or no body at all when `fields` is null (void, AM style). */
  send(method: string, path: string, fields: Record<string, string | number | null> | null): Promise<ApiResponse> {
    const url = `${path}.${this.format}`;
    if (fields === null) {
      return this.format === 'json' ? this.client.request(method, url) : this.client.request(method, url, { body: '', contentType: 'text/xml' });
    }
    if (this.format === 'json') {
      return this.client.sendJson(method, url, { transaction: Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)) });
    }
    const children = Object.entries(fields)
      .map(([name, value]) => (value === null ? `<${name}/>` : `<${name}>${value}</${name}>`))
      .join('');
    return this.client.sendXml(method, url, `<transaction>${children}</transaction>`);
  }

  tx(res: ApiResponse): Tx {
    if (this.format === 'json') {
      const t = res.json().transaction;
      return {
        token: t.token,
        state: t.state,
        succeeded: t.succeeded,
        transaction_type: t.transaction_type,
        message: t.message,
        message_key: t.message_key,
        amount: t.amount,
        currency_code: t.currency_code,
        reference_token: t.reference_token ?? null,
        response: t.response === null ? null : { success: t.response.success, message: t.response.message, cancelled: t.response.cancelled },
      };
    }
    const t = res.xml().transaction;
    // The gem reads the first <token>/<state>/<message>: they must be the transaction's own.
    for (const own of ['<token>', '<state>', '<message', '<reference_token>']) {
      expect(res.text.indexOf(own), own).toBeLessThan(res.text.indexOf('<shipping_address>'));
    }
    expect(res.text).toMatch(/<gateway_specific_fields( nil="true")?\/>|<gateway_specific_fields>/);
    expect(res.text).toMatch(/<gateway_specific_response_fields( nil="true")?\/>|<gateway_specific_response_fields>/);
    expect(res.text).not.toMatch(/<error[\s>/]/);
    const amount = xmlText(t.amount);
    return {
      token: xmlText(t.token) as string,
      state: xmlText(t.state) as string,
      succeeded: xmlText(t.succeeded) === 'true',
      transaction_type: xmlText(t.transaction_type) as string,
      message: xmlText(t.message),
      message_key: typeof t.message === 'object' ? (t.message['@_key'] ?? null) : null,
      amount: amount === null ? null : Number(amount),
      currency_code: xmlText(t.currency_code),
      reference_token: xmlText(t.reference_token),
      response:
        xmlText(t.response) === null
          ? null
          : { success: xmlText(t.response.success) === 'true', message: xmlText(t.response.message) as string, cancelled: xmlText(t.response.cancelled) === 'true' },
    };
  }

  errors(res: ApiResponse): ErrorEntry[] {
    if (this.format === 'json') return res.json().errors;
    return xmlErrorEntries(res.xml().errors);
  }
}

describe.each(storeKinds)('reference transactions over HTTPS (%s)', (store) => {
  let server: TestServer;
  let gateway: string;
  let card: string;
  let decliningCard: string;

  beforeAll(async () => {
    server = await startServer({ store });
    gateway = await createTestGateway(server.client);
    card = await createRetainedCard(server.client, VISA);
    decliningCard = await createRetainedCard(server.client, DECLINE_VISA);
  });
  afterAll(() => server.close());

  /** An authorization or purchase made in JSON, for the reference transactions under test. */
  async function original(operation: 'authorize' | 'purchase', amount: number, options: { currency?: string; paymentMethod?: string; client?: ApiClient; gateway?: string } = {}): Promise<string> {
    const client = options.client ?? server.client;
    const res = await client.sendJson('POST', `/v1/gateways/${options.gateway ?? gateway}/${operation}.json`, {
      transaction: { amount, currency_code: options.currency ?? 'USD', payment_method_token: options.paymentMethod ?? card },
    });
    expect(res.status, res.text).toBe(200);
    return res.json().transaction.token;
  }

  async function children(reference: string) {
    return server.core.store.db.selectFrom('transactions').selectAll().where('reference_token', '=', reference).orderBy('seq').execute();
  }

  describe.each(FORMATS)('%s', (format) => {
    let api: Api;
    beforeAll(() => {
      api = new Api(server.client, format);
    });

    describe('capture', () => {
      it('captures part of an authorization, then the rest; more than what remains is 422 errors.invalid_amount', async () => {
        const auth = await original('authorize', 1000);
        const partial = await api.send('POST', `/v1/transactions/${auth}/capture`, { amount: 400, currency_code: 'USD', order_id: null });
        expect(partial.status, partial.text).toBe(200);
        const first = api.tx(partial);
        expect(first).toMatchObject({ transaction_type: 'Capture', state: 'succeeded', succeeded: true, amount: 400, currency_code: 'USD', reference_token: auth, message_key: 'messages.transaction_succeeded' });
        expect(first.token).toMatch(TOKEN);
        expect(first.response).toMatchObject({ success: true, message: 'Successful capture' });

        const over = await api.send('POST', `/v1/transactions/${auth}/capture`, { amount: 601, currency_code: 'USD' });
        expect(over.status).toBe(422);
        expect(api.errors(over)).toEqual([{ key: 'errors.invalid_amount', attribute: 'amount', message: expect.any(String) }]);

        // No amount: what remains.
        const rest = await api.send('POST', `/v1/transactions/${auth}/capture`, null);
        expect(rest.status, rest.text).toBe(200);
        expect(api.tx(rest)).toMatchObject({ state: 'succeeded', amount: 600, reference_token: auth });

        const nothingLeft = await api.send('POST', `/v1/transactions/${auth}/capture`, { amount: 1 });
        expect(nothingLeft.status).toBe(422);
        expect(api.errors(nothingLeft)[0]?.key).toBe('errors.invalid_amount');
        expect((await children(auth)).map((row) => [row.transaction_type, row.state, row.amount])).toEqual([
          ['Capture', 'succeeded', 400],
          ['Capture', 'succeeded', 600],
        ]);
      });

      it('a capture of amount 44 fails at the gateway: 422 "Unable to process the capture transaction."', async () => {
        const auth = await original('authorize', 100);
        const res = await api.send('POST', `/v1/transactions/${auth}/capture`, { amount: 44, currency_code: 'USD' });
        expect(res.status, res.text).toBe(422);
        const tx = api.tx(res);
        expect(tx).toMatchObject({
          transaction_type: 'Capture',
          state: 'gateway_processing_failed',
          succeeded: false,
          message: 'Unable to process the capture transaction.',
          message_key: null,
          amount: 44,
          reference_token: auth,
        });
        expect(tx.response).toMatchObject({ success: false, message: 'Unable to process the capture transaction.' });
        // A failed capture holds nothing: the full amount can still be captured.
        const full = await api.send('POST', `/v1/transactions/${auth}/capture`, null);
        expect(full.status, full.text).toBe(200);
        expect(api.tx(full).amount).toBe(100);
      });

      it('capture of a purchase is 422 errors.reference_transaction_type_invalid', async () => {
        const purchase = await original('purchase', 100);
        const res = await api.send('POST', `/v1/transactions/${purchase}/capture`, null);
        expect(res.status).toBe(422);
        expect(api.errors(res)[0]?.key).toBe('errors.reference_transaction_type_invalid');
        expect(await children(purchase)).toEqual([]);
      });

      it('capture of a declined authorization is 422 errors.reference_transaction_not_succeeded', async () => {
        const res = await server.client.sendJson('POST', `/v1/gateways/${gateway}/authorize.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: decliningCard } });
        expect(res.status).toBe(422);
        const declined = res.json().transaction.token;
        const capture = await api.send('POST', `/v1/transactions/${declined}/capture`, { amount: 100 });
        expect(capture.status).toBe(422);
        expect(api.errors(capture)).toEqual([{ key: 'errors.reference_transaction_not_succeeded', message: REFERENCE_NOT_SUCCEEDED }]);
        for (const operation of ['void', 'credit']) {
          const other = await api.send('POST', `/v1/transactions/${declined}/${operation}`, null);
          expect(other.status).toBe(422);
          expect(api.errors(other)[0]?.key).toMatch(/^errors\.reference_transaction_(not_succeeded|type_invalid)$/);
        }
      });

      it('an unknown reference is 404 errors.transaction_not_found "Unable to find the specified reference transaction."', async () => {
        for (const operation of ['capture', 'credit', 'void']) {
          const res = await api.send('POST', `/v1/transactions/nonesuch/${operation}`, null);
          expect(res.status).toBe(404);
          expect(api.errors(res)).toEqual([{ key: 'errors.transaction_not_found', message: REFERENCE_NOT_FOUND }]);
        }
      });

      it('a currency other than the reference\'s is 422 errors.invalid_currency_code', async () => {
        const auth = await original('authorize', 100, { currency: 'EUR' });
        const res = await api.send('POST', `/v1/transactions/${auth}/capture`, { amount: 50, currency_code: 'USD' });
        expect(res.status).toBe(422);
        expect(api.errors(res)[0]?.key).toBe('errors.invalid_currency_code');
        const same = await api.send('POST', `/v1/transactions/${auth}/capture`, { amount: 50, currency_code: 'EUR' });
        expect(same.status, same.text).toBe(200);
        expect(api.tx(same)).toMatchObject({ currency_code: 'EUR', amount: 50 });
        const credit = await api.send('POST', `/v1/transactions/${await original('purchase', 100, { currency: 'GBP' })}/credit`, { amount: 10, currency_code: 'USD' });
        expect(credit.status).toBe(422);
        expect(api.errors(credit)[0]?.key).toBe('errors.invalid_currency_code');
      });

      it('invalid amounts are 422 errors.invalid_amount', async () => {
        const auth = await original('authorize', 100);
        for (const amount of [0, -5, 'abc', '1.5']) {
          const res = await api.send('POST', `/v1/transactions/${auth}/capture`, { amount });
          expect(res.status, `amount ${amount}`).toBe(422);
          expect(api.errors(res)[0]?.key).toBe('errors.invalid_amount');
        }
        expect(await children(auth)).toEqual([]);
      });
    });

    describe('credit', () => {
      it('credits part of a purchase, then the rest; more is 422', async () => {
        const purchase = await original('purchase', 500);
        const partial = await api.send('POST', `/v1/transactions/${purchase}/credit`, { amount: 200, currency_code: 'USD', gateway_specific_fields: null });
        expect(partial.status, partial.text).toBe(200);
        const first = api.tx(partial);
        expect(first).toMatchObject({ transaction_type: 'Credit', state: 'succeeded', amount: 200, reference_token: purchase });
        expect(first.response).toMatchObject({ success: true, message: 'Successful credit' });
        const over = await api.send('POST', `/v1/transactions/${purchase}/credit`, { amount: 301 });
        expect(over.status).toBe(422);
        expect(api.errors(over)[0]?.key).toBe('errors.invalid_amount');
        const rest = await api.send('POST', `/v1/transactions/${purchase}/credit`, null);
        expect(rest.status, rest.text).toBe(200);
        expect(api.tx(rest).amount).toBe(300);
        const more = await api.send('POST', `/v1/transactions/${purchase}/credit`, { amount: 1 });
        expect(more.status).toBe(422);
      });

      it('credits a whole purchase without an amount, and a capture', async () => {
        const purchase = await original('purchase', 700);
        const full = await api.send('POST', `/v1/transactions/${purchase}/credit`, null);
        expect(full.status, full.text).toBe(200);
        expect(api.tx(full)).toMatchObject({ amount: 700, state: 'succeeded' });

        const auth = await original('authorize', 300);
        const capture = api.tx(await api.send('POST', `/v1/transactions/${auth}/capture`, null));
        const refund = await api.send('POST', `/v1/transactions/${capture.token}/credit`, { amount: 100 });
        expect(refund.status, refund.text).toBe(200);
        expect(api.tx(refund)).toMatchObject({ transaction_type: 'Credit', reference_token: capture.token, amount: 100 });
        // An authorization is not refunded: it is voided.
        const wrong = await api.send('POST', `/v1/transactions/${auth}/credit`, null);
        expect(wrong.status).toBe(422);
        expect(api.errors(wrong)[0]?.key).toBe('errors.reference_transaction_type_invalid');
      });

      it('a credit of amount 44 fails: 422 "Unable to process the credit transaction."', async () => {
        const purchase = await original('purchase', 100);
        const res = await api.send('POST', `/v1/transactions/${purchase}/credit`, { amount: 44, currency_code: 'USD' });
        expect(res.status, res.text).toBe(422);
        expect(api.tx(res)).toMatchObject({
          transaction_type: 'Credit',
          state: 'gateway_processing_failed',
          message: 'Unable to process the credit transaction.',
          reference_token: purchase,
          amount: 44,
        });
      });
    });

    describe('void', () => {
      it('voids an authorization with an empty POST and with an empty PUT', async () => {
        for (const method of ['POST', 'PUT']) {
          const auth = await original('authorize', 100);
          const res = await api.send(method, `/v1/transactions/${auth}/void`, null);
          expect(res.status, res.text).toBe(200);
          const tx = api.tx(res);
          expect(tx).toMatchObject({ transaction_type: 'Void', state: 'succeeded', succeeded: true, reference_token: auth, message_key: 'messages.transaction_succeeded' });
          expect(tx.response).toMatchObject({ success: true, message: 'Successful void', cancelled: true });
        }
      });

      it('capture after a void is 422; the authorization stays voided', async () => {
        const auth = await original('authorize', 100);
        expect((await api.send('POST', `/v1/transactions/${auth}/void`, null)).status).toBe(200);
        const capture = await api.send('POST', `/v1/transactions/${auth}/capture`, null);
        expect(capture.status).toBe(422);
        expect(api.errors(capture)[0]?.key).toMatch(/^errors\.(invalid_amount|reference_transaction_already_settled)$/);
        const again = await api.send('POST', `/v1/transactions/${auth}/void`, null);
        expect(again.status).toBe(422);
        expect(api.errors(again)[0]?.key).toBe('errors.reference_transaction_already_settled');
        expect((await children(auth)).map((row) => [row.transaction_type, row.state])).toEqual([['Void', 'succeeded']]);
      });

      it('void after a capture is 422 errors.reference_transaction_already_settled', async () => {
        const auth = await original('authorize', 100);
        expect((await api.send('POST', `/v1/transactions/${auth}/capture`, { amount: 10 })).status).toBe(200);
        const res = await api.send('PUT', `/v1/transactions/${auth}/void`, null);
        expect(res.status).toBe(422);
        expect(api.errors(res)).toEqual([{ key: 'errors.reference_transaction_already_settled', message: expect.any(String) }]);
      });

      it('voids a purchase, after which it cannot be credited', async () => {
        const purchase = await original('purchase', 100);
        expect((await api.send('POST', `/v1/transactions/${purchase}/void`, { order_id: null, description: null })).status).toBe(200);
        const credit = await api.send('POST', `/v1/transactions/${purchase}/credit`, null);
        expect(credit.status).toBe(422);
      });
    });

    it("another environment's transaction is not a reference: 404", async () => {
      const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, `other-${format}`, false);
      const other = server.client.withAuth({ user: environment.key, password: server.init.access_secret });
      const foreignGateway = await createTestGateway(other);
      const foreignCard = await createRetainedCard(other, VISA);
      const foreign = await original('authorize', 100, { client: other, gateway: foreignGateway, paymentMethod: foreignCard });
      for (const operation of ['capture', 'void']) {
        const res = await api.send('POST', `/v1/transactions/${foreign}/${operation}`, null);
        expect(res.status).toBe(404);
        expect(api.errors(res)).toEqual([{ key: 'errors.transaction_not_found', message: REFERENCE_NOT_FOUND }]);
      }
      expect(await children(foreign)).toEqual([]);
    });
  });

  describe('concurrency: one reference, many settlements at once', () => {
    const ROUNDS = 3;
    const WIDTH = 10;

    type Attempt = { operation: 'capture' | 'void' | 'credit'; method?: string; body?: Record<string, unknown> };

    async function race(reference: string, attempts: Attempt[]): Promise<ApiResponse[]> {
      return Promise.all(
        attempts.map(({ operation, method, body }) =>
          body === undefined
            ? server.client.request(method ?? 'POST', `/v1/transactions/${reference}/${operation}.json`)
            : server.client.sendJson(method ?? 'POST', `/v1/transactions/${reference}/${operation}.json`, { transaction: body }),
        ),
      );
    }

    function tally(responses: ApiResponse[]): { won: ApiResponse[]; refused: ApiResponse[] } {
      const won = responses.filter((res) => res.status === 200);
      const refused = responses.filter((res) => res.status !== 200);
      for (const res of refused) {
        expect(res.status, res.text).toBe(422);
        expect(res.json().errors[0].key).toMatch(/^errors\.(invalid_amount|reference_transaction_already_settled)$/);
      }
      return { won, refused };
    }

    it(`${WIDTH} concurrent full captures: exactly one succeeds, one Capture recorded`, async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const auth = await original('authorize', 1000);
        const { won } = tally(await race(auth, Array.from({ length: WIDTH }, () => ({ operation: 'capture' as const }))));
        expect(won).toHaveLength(1);
        expect(won[0]?.json().transaction).toMatchObject({ transaction_type: 'Capture', amount: 1000, state: 'succeeded' });
        const rows = await children(auth);
        expect(rows.map((row) => [row.transaction_type, row.state, row.amount])).toEqual([['Capture', 'succeeded', 1000]]);
      }
    });

    it(`${WIDTH} concurrent voids (POST and PUT): exactly one succeeds, one Void recorded`, async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const auth = await original('authorize', 1000);
        const { won, refused } = tally(await race(auth, Array.from({ length: WIDTH }, (_, i) => ({ operation: 'void' as const, method: i % 2 === 0 ? 'POST' : 'PUT' }))));
        expect(won).toHaveLength(1);
        for (const res of refused) expect(res.json().errors[0].key).toBe('errors.reference_transaction_already_settled');
        expect((await children(auth)).map((row) => [row.transaction_type, row.state])).toEqual([['Void', 'succeeded']]);
      }
    });

    it('a mixed race of full captures and voids: exactly one wins', async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const auth = await original('authorize', 1000);
        const attempts: Attempt[] = Array.from({ length: WIDTH }, (_, i) => ({ operation: i % 2 === 0 ? 'capture' : 'void' }));
        const { won } = tally(await race(auth, attempts));
        expect(won).toHaveLength(1);
        const rows = await children(auth);
        expect(rows).toHaveLength(1);
        expect(rows[0]?.state).toBe('succeeded');
        expect(rows[0]?.token).toBe(won[0]?.json().transaction.token);
      }
    });

    it('concurrent partial captures never take more than the authorization', async () => {
      const auth = await original('authorize', 50);
      const { won } = tally(await race(auth, Array.from({ length: WIDTH }, () => ({ operation: 'capture' as const, body: { amount: 10 } }))));
      expect(won).toHaveLength(5);
      const rows = await children(auth);
      expect(rows.filter((row) => row.state === 'succeeded').reduce((sum, row) => sum + (row.amount ?? 0), 0)).toBe(50);
      expect(rows).toHaveLength(5);
    });

    it('concurrent full credits and a void of one purchase: exactly one wins', async () => {
      const purchase = await original('purchase', 800);
      const attempts: Attempt[] = [...Array.from({ length: WIDTH - 1 }, () => ({ operation: 'credit' as const })), { operation: 'void' }];
      const { won } = tally(await race(purchase, attempts));
      expect(won).toHaveLength(1);
      expect(await children(purchase)).toHaveLength(1);
    });
  });
});
