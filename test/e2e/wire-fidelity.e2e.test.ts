import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../helpers/client.js';
import { addPaymentMethod, createTestGateway } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { xmlErrorEntries, xmlText, type ErrorEntry } from '../helpers/xml.js';

/*
 * Behaviours where Spreedly's clients read the wire differently from what
 * Coffer used to answer. Each is pinned in JSON and in XML, XML read the way the gem reads it
 * (the first element of a name anywhere below the root). docs/wire-compatibility.md lists them.
 */

type Format = 'json' | 'xml';
const FORMATS: Format[] = ['json', 'xml'];
const VISA = '4111111111111111';
const STORE_FAILS_CARD = '4217651111111119';
const UNKNOWN = 'NoSuchTokenAnywhere0000000000';
const ACCESS_DENIED = 'Unable to authenticate using the given environment_key and access_token.  Please check your credentials.';
const TOKEN_UNKNOWN = 'There is no payment method corresponding to the specified payment method token.';

const orderedParser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, trimValues: true, parseTagValue: false });
type OrderedNode = Record<string, unknown>;

/** The text of the first element named `name` in document order: what the gem's `.//name` reads. */
function firstText(xml: string, name: string): string | null {
  const walk = (nodes: OrderedNode[]): string | null | undefined => {
    for (const node of nodes) {
      const tag = Object.keys(node).find((key) => key !== ':@' && key !== '#text');
      if (tag === undefined || tag.startsWith('?')) continue;
      const children = node[tag] as OrderedNode[];
      if (tag === name) return (children.find((child) => '#text' in child)?.['#text'] as string | undefined) ?? '';
      const found = walk(children);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(orderedParser.parse(xml) as OrderedNode[]) ?? null;
}

function errorsOf(res: ApiResponse, format: Format): ErrorEntry[] {
  return format === 'json' ? res.json().errors : xmlErrorEntries(res.xml().errors);
}

describe.each(storeKinds)('Spreedly wire fidelity (%s)', (store) => {
  let server: TestServer;
  let gateway: string;

  beforeAll(async () => {
    server = await startServer({ store });
    gateway = await createTestGateway(server.client);
  });

  afterAll(async () => {
    await server?.close();
  });

  async function card(number: string, extra: Record<string, unknown> = {}): Promise<string> {
    const transaction = await addPaymentMethod(server.client, { credit_card: { first_name: 'Joe', last_name: 'Jones', number, month: 3, year: 2035 }, ...extra });
    return transaction.payment_method.token;
  }

  function send(format: Format, method: string, path: string, root: string, fields: Record<string, string | boolean | number>): Promise<ApiResponse> {
    if (format === 'json') return server.client.sendJson(method, `${path}.json`, { [root]: fields });
    const body = Object.entries(fields).map(([name, value]) => `<${name}>${String(value)}</${name}>`).join('');
    return server.client.sendXml(method, `${path}.xml`, `<${root}>${body}</${root}>`);
  }

  describe.each(FORMATS)('%s', (format) => {
    it('resolves the payment method before the gateway: an unknown token is 422 even on an unknown gateway', async () => {
      for (const operation of ['purchase', 'authorize', 'verify', 'store']) {
        const res = await send(format, 'POST', `/v1/gateways/${UNKNOWN}/${operation}`, 'transaction', { payment_method_token: UNKNOWN, amount: 100, currency_code: 'USD' });
        expect(res.status, `${operation}: ${res.text}`).toBe(422);
        expect(errorsOf(res, format)).toEqual([{ key: 'errors.payment_method_not_found', message: TOKEN_UNKNOWN }]);
      }
      // A known payment method on an unknown gateway is still the gateway's 404.
      const pm = await card(VISA);
      const res = await send(format, 'POST', `/v1/gateways/${UNKNOWN}/purchase`, 'transaction', { payment_method_token: pm, amount: 100, currency_code: 'USD' });
      expect(res.status).toBe(404);
      expect(errorsOf(res, format)[0]?.message).toBe('Unable to find the specified gateway.');
    });

    it('answers an unknown receiver_type with 403 and the error body', async () => {
      const res = await send(format, 'POST', '/v1/receivers', 'receiver', { receiver_type: 'no_such_receiver', hostnames: 'https://a.example' });
      expect(res.status).toBe(403);
      expect(errorsOf(res, format)).toEqual([{ key: 'errors.invalid_receiver_type', attribute: 'receiver_type', message: 'The receiver_type parameter is invalid.' }]);
    });

    it('RedactReceiver and RedactGateway read `redacted` in their first <state>, on redact and on show', async () => {
      const receiver = (await server.client.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: 'https://a.example' } })).json().receiver.token;
      const redactGateway = await createTestGateway(server.client);
      for (const path of [`/v1/receivers/${receiver}/redact`, `/v1/gateways/${redactGateway}/redact`]) {
        const res = await server.client.request('PUT', `${path}.${format}`);
        expect(res.status, res.text).toBe(200);
        const token = format === 'json' ? res.json().transaction.token : firstText(res.text, 'token');
        const shown = await server.client.get(`/v1/transactions/${token}.${format}`);
        for (const body of [res, shown]) {
          if (format === 'json') {
            expect(body.json().transaction.state).toBe('redacted');
            expect(body.json().transaction.succeeded).toBe(true);
          } else {
            expect(firstText(body.text, 'state')).toBe('redacted');
            expect(firstText(body.text, 'succeeded')).toBe('true');
          }
        }
      }
    });

    it("lists a payment method's transactions in the full shape of GET /v1/transactions", async () => {
      const pm = await card(VISA, { retained: true });
      const purchase = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, {
        transaction: { payment_method_token: pm, amount: 250, currency_code: 'USD', gateway_specific_fields: { test: { note: 'x' } } },
      });
      expect(purchase.status).toBe(200);
      const token = purchase.json().transaction.token;
      const listed = await server.client.get(`/v1/payment_methods/${pm}/transactions.${format}?order=desc`);
      const show = await server.client.get(`/v1/transactions/${token}.${format}`);
      expect(listed.status).toBe(200);
      if (format === 'json') {
        const entry = listed.json().transactions.find((t: any) => t.token === token);
        expect(entry).toEqual(show.json().transaction);
        expect(entry).toMatchObject({ amount: 250, gateway_specific_fields: { test: { note: 'x' } }, gateway_specific_response_fields: {} });
      } else {
        const entries = listed.xml().transactions.transaction;
        const entry = (Array.isArray(entries) ? entries : [entries]).find((t: any) => t.token === token);
        expect(entry).toEqual(show.xml().transaction);
        expect(entry.amount['#text']).toBe('250');
        expect(entry.gateway_specific_fields.test.note).toBe('x');
        expect(entry).toHaveProperty('gateway_specific_response_fields');
      }
    });

    it('a failed Store still carries basis_payment_method', async () => {
      const pm = await card(STORE_FAILS_CARD);
      const res = await send(format, 'POST', `/v1/gateways/${gateway}/store`, 'transaction', { payment_method_token: pm });
      expect(res.status).toBe(422);
      if (format === 'json') {
        const t = res.json().transaction;
        expect(t).toMatchObject({ transaction_type: 'Store', succeeded: false, message: 'Unable to store card' });
        expect(t.basis_payment_method).toMatchObject({ token: pm, payment_method_type: 'credit_card' });
      } else {
        const t = res.xml().transaction;
        expect(firstText(res.text, 'message')).toBe('Unable to store card');
        expect(t.basis_payment_method.token).toBe(pm);
        expect(t.basis_payment_method.payment_method_type).toBe('credit_card');
      }
    });

    it('updating names to blank is 422 with two errors.blank in order; absent names are left alone', async () => {
      const pm = await card(VISA, { retained: true });
      const res = await send(format, 'PUT', `/v1/payment_methods/${pm}`, 'payment_method', { first_name: '', last_name: '' });
      expect(res.status).toBe(422);
      expect(errorsOf(res, format)).toEqual([
        { key: 'errors.blank', attribute: 'first_name', message: "First name can't be blank" },
        { key: 'errors.blank', attribute: 'last_name', message: "Last name can't be blank" },
      ]);
      const unchanged = (await server.client.get(`/v1/payment_methods/${pm}.json`)).json().payment_method;
      expect(unchanged).toMatchObject({ first_name: 'Joe', last_name: 'Jones' });

      const other = await send(format, 'PUT', `/v1/payment_methods/${pm}`, 'payment_method', { address1: '1 Main St' });
      expect(other.status).toBe(200);
      const after = (await server.client.get(`/v1/payment_methods/${pm}.json`)).json().payment_method;
      expect(after).toMatchObject({ first_name: 'Joe', last_name: 'Jones', address1: '1 Main St' });

      const allowed = await send(format, 'PUT', `/v1/payment_methods/${pm}`, 'payment_method', { last_name: '', allow_blank_name: true });
      expect(allowed.status).toBe(200);
      expect((await server.client.get(`/v1/payment_methods/${pm}.json`)).json().payment_method).toMatchObject({ first_name: 'Joe', last_name: null });
    });

    it('the nested payment method is shown as it was when the transaction began', async () => {
      const pm = await card(VISA);
      const res = await send(format, 'POST', `/v1/gateways/${gateway}/purchase`, 'transaction', { payment_method_token: pm, amount: 100, currency_code: 'USD', retain_on_success: true });
      expect(res.status).toBe(200);
      const storageState = format === 'json' ? res.json().transaction.payment_method.storage_state : xmlText(res.xml().transaction.payment_method.storage_state);
      expect(storageState).toBe('cached');
      const token = format === 'json' ? res.json().transaction.token : firstText(res.text, 'token');
      const shown = await server.client.get(`/v1/transactions/${token}.${format}`);
      expect(format === 'json' ? shown.json().transaction.payment_method.storage_state : xmlText(shown.xml().transaction.payment_method.storage_state)).toBe('cached');
      const method = await server.client.get(`/v1/payment_methods/${pm}.${format}`);
      expect(format === 'json' ? method.json().payment_method.storage_state : xmlText(method.xml().payment_method.storage_state)).toBe('retained');
    });
  });

  describe('errors of paths without a format suffix', () => {
    it('are XML (the exact 401) on the plain-text transcript, JSON only when Accept asks for it', async () => {
      const pm = await card(VISA);
      const purchase = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: pm, amount: 100, currency_code: 'USD' } });
      const token = purchase.json().transaction.token;

      const xml = await server.client.get(`/v1/transactions/${token}/transcript`, { auth: null });
      expect(xml.status).toBe(401);
      expect(xml.headers['content-type']).toMatch(/^application\/xml/);
      expect(xmlErrorEntries(xml.xml().errors)).toEqual([{ key: 'errors.access_denied', message: ACCESS_DENIED }]);

      const json = await server.client.get(`/v1/transactions/${token}/transcript`, { auth: null, accept: 'application/json' });
      expect(json.status).toBe(401);
      expect(json.json().errors).toEqual([{ key: 'errors.access_denied', message: ACCESS_DENIED }]);

      const found = await server.client.get(`/v1/transactions/${token}/transcript`);
      expect(found.status).toBe(200);
      expect(found.headers['content-type']).toMatch(/^text\/plain/);
    });

    it('are XML on any other path called bare, and the suffix still decides when there is one', async () => {
      const missing = await server.client.get(`/v1/payment_methods/${UNKNOWN}`);
      expect(missing.status).toBe(404);
      expect(xmlErrorEntries(missing.xml().errors)).toEqual([{ key: 'errors.payment_method_not_found', message: 'Unable to find the specified payment method.' }]);
      const asked = await server.client.get(`/v1/payment_methods/${UNKNOWN}`, { accept: 'application/json' });
      expect(asked.json().errors[0].key).toBe('errors.payment_method_not_found');
      const suffixed = await server.client.get(`/v1/payment_methods/${UNKNOWN}.json`, { accept: '*/*' });
      expect(suffixed.json().errors[0].key).toBe('errors.payment_method_not_found');
    });
  });
});
