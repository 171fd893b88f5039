import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { addPaymentMethod, createTestGateway, transactionRows as storedTransactions } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { escapeXml, xmlErrorEntries, xmlText, type ErrorEntry } from '../helpers/xml.js';

/*
 * The built-in test gateway over real HTTPS, in JSON and in XML as the Ruby clients send it:
 * wire-reference §5 (success and decline cards per brand, store, 3-D Secure) and API.md §5–§6
 * (Coffer's closed-account, timeout and gateway-error triggers, the payment-method and gateway
 * rules, validation of amount and currency). Every XML transaction is checked the way the gem
 * reads it: the transaction's own scalars are the first of their name, GSF elements present.
 */

type Format = 'json' | 'xml';
type Fields = { [name: string]: string | number | boolean | null | undefined | Fields };

const FORMATS: Format[] = ['json', 'xml'];
const TOKEN = /^[A-Za-z0-9]{29}$/;
const FUTURE_YEAR = 2035;

/** wire-reference §5: success and decline numbers per brand (the table's two columns). */
const BRANDS: Array<{ brand: string; success: string; decline: string }> = [
  { brand: 'Visa', success: '4111111111111111', decline: '4012888888881881' },
  { brand: 'Visa 19-digit', success: '4444333322221111455', decline: '4917610000000000003' },
  { brand: 'Mastercard', success: '5555555555554444', decline: '5105105105105100' },
  { brand: 'Mastercard 2-series', success: '2223003122003222', decline: '2720992720992729' },
  { brand: 'Amex', success: '378282246310005', decline: '371449635398431' },
  { brand: 'Discover', success: '6011111111111117', decline: '6011000990139424' },
  { brand: 'Diners', success: '30569309025904', decline: '30207712915383' },
  { brand: 'JCB', success: '3569990010030400', decline: '3528327757705979' },
  { brand: 'Maestro', success: '6759000000000000005', decline: '6799990100000000019' },
  { brand: '3DS enrolled', success: '4556761029983886', decline: '4024007101934890' },
];
const VISA = '4111111111111111';
const CLOSED_CARD = '4000000000000069';
const TIMEOUT_CARD = '4000000000000408';
const ERROR_CARD = '4000000000000507';
const STORE_FAILS_CARD = '4217651111111119';
const THREE_DS_CARD = '4556761029983886';
const REAL_CARD = '4242424242424242';
const CVV = '737';

const OPERATIONS = [
  { operation: 'purchase', type: 'Purchase', verb: 'purchase' },
  { operation: 'authorize', type: 'Authorization', verb: 'authorize' },
  { operation: 'verify', type: 'Verification', verb: 'verify' },
] as const;

/** JSON keys of a gateway transaction, in wire-reference §3.1 order. */
const GATEWAY_TRANSACTION_KEYS = [
  'on_test_gateway', 'created_at', 'updated_at', 'succeeded', 'state', 'token', 'transaction_type', 'order_id', 'ip', 'description',
  'email', 'merchant_name_descriptor', 'merchant_location_descriptor', 'gateway_specific_fields', 'gateway_specific_response_fields',
  'gateway_transaction_id', 'gateway_latency_ms', 'amount', 'currency_code', 'retain_on_success', 'payment_method_added',
  'stored_credential_initiator', 'stored_credential_reason_type', 'network_transaction_id', 'message_key',
  'message', 'gateway_token', 'gateway_type', 'shipping_address', 'response', 'api_urls', 'payment_method',
];

// ---------------------------------------------------------------------------------------------
// Wire helpers

const orderedParser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, trimValues: true, parseTagValue: false });
type OrderedNode = Record<string, unknown>;

function tagOf(node: OrderedNode): string | undefined {
  return Object.keys(node).find((key) => key !== ':@' && key !== '#text');
}

/** Names of the child elements of the root `root`, in document order. */
function childOrder(xml: string, root: string): string[] {
  const nodes = orderedParser.parse(xml) as OrderedNode[];
  const top = nodes.find((node) => root in node);
  if (top === undefined) throw new Error(`no <${root}> in ${xml}`);
  return (top[root] as OrderedNode[]).map(tagOf).filter((tag): tag is string => tag !== undefined);
}

/** What the gem's `at_xpath('.//name')` finds: the path to the first element of that name, document order. */
function firstPath(xml: string, name: string): string[] | null {
  const walk = (nodes: OrderedNode[], path: string[]): string[] | null => {
    for (const node of nodes) {
      const tag = tagOf(node);
      if (tag === undefined || tag.startsWith('?')) continue;
      if (tag === name) return [...path, tag];
      const found = walk(node[tag] as OrderedNode[], [...path, tag]);
      if (found !== null) return found;
    }
    return null;
  };
  return walk(orderedParser.parse(xml) as OrderedNode[], []);
}

/** Fields as XML children; null is an empty element (`<order_id/>`), as ActiveMerchant sends it. */
function xmlFields(fields: Fields): string {
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) =>
      value === null ? `<${name}/>` : typeof value === 'object' ? `<${name}>${xmlFields(value)}</${name}>` : `<${name}>${escapeXml(String(value))}</${name}>`,
    )
    .join('');
}

function jsonFields(fields: Fields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    out[name] = typeof value === 'object' ? jsonFields(value) : value;
  }
  return out;
}

function errorsOf(res: ApiResponse, format: Format): ErrorEntry[] {
  if (format === 'json') return res.json().errors;
  return xmlErrorEntries(res.xml().errors);
}

interface PaymentMethodView {
  token: string | null;
  storage_state: string | null;
  payment_method_type: string;
  third_party_token: string | null | undefined;
  verification_value: string | null | undefined;
  errors: ErrorEntry[];
}

/** A transaction response, the same whatever the format. */
interface Tx {
  status: number;
  token: string;
  state: string;
  succeeded: boolean;
  transaction_type: string;
  message: string | null;
  message_key: string | null;
  amount: number | null;
  currency_code: string | null;
  reference_token: string | null;
  payment_method_added: boolean;
  retain_on_success: boolean;
  gateway_token: string | null;
  gateway_transaction_id: string | null;
  third_party_token: string | null | undefined;
  response: { success: boolean; message: string; pending: boolean; result_unknown: boolean; error_code: string | null } | null;
  payment_method: PaymentMethodView | null;
  basis_payment_method: PaymentMethodView | null;
}

function pmFromJson(pm: any): PaymentMethodView | null {
  if (pm === undefined || pm === null) return null;
  return {
    token: pm.token,
    storage_state: pm.storage_state,
    payment_method_type: pm.payment_method_type,
    third_party_token: pm.third_party_token,
    verification_value: pm.verification_value,
    errors: pm.errors,
  };
}

function pmFromXml(pm: any): PaymentMethodView | null {
  if (pm === undefined || pm === null || pm === '') return null;
  return {
    token: xmlText(pm.token),
    storage_state: xmlText(pm.storage_state),
    payment_method_type: xmlText(pm.payment_method_type) as string,
    third_party_token: pm.third_party_token === undefined ? undefined : xmlText(pm.third_party_token),
    verification_value: pm.verification_value === undefined ? undefined : xmlText(pm.verification_value),
    errors: xmlErrorEntries(pm.errors),
  };
}

function txFromJson(res: ApiResponse): Tx {
  const body = res.json();
  expect(Object.keys(body), res.text).toEqual(['transaction']);
  const t = body.transaction;
  return {
    status: res.status,
    token: t.token,
    state: t.state,
    succeeded: t.succeeded,
    transaction_type: t.transaction_type,
    message: t.message,
    message_key: t.message_key,
    amount: t.amount,
    currency_code: t.currency_code,
    reference_token: t.reference_token ?? null,
    payment_method_added: t.payment_method_added,
    retain_on_success: t.retain_on_success,
    gateway_token: t.gateway_token,
    gateway_transaction_id: t.gateway_transaction_id,
    third_party_token: t.third_party_token,
    response: t.response === null ? null : { success: t.response.success, message: t.response.message, pending: t.response.pending, result_unknown: t.response.result_unknown, error_code: t.response.error_code },
    payment_method: pmFromJson(t.payment_method),
    basis_payment_method: pmFromJson(t.basis_payment_method),
  };
}

/**
 * The structure the Ruby gem needs of a gateway transaction (wire-reference §8.1 rules 1–4): the
 * transaction's own scalars are the first of their name in the document and come before the
 * nested objects; `transaction_type`, `gateway_specific_fields` and
 * `gateway_specific_response_fields` are present.
 */
function checkGemStructure(xml: string): void {
  const children = childOrder(xml, 'transaction');
  for (const required of ['transaction_type', 'gateway_specific_fields', 'gateway_specific_response_fields', 'token', 'state', 'message']) {
    expect(children, `<${required}> in ${xml}`).toContain(required);
  }
  for (const own of ['token', 'state', 'message']) {
    for (const nested of ['shipping_address', 'response', 'payment_method', 'basis_payment_method']) {
      if (children.includes(nested)) expect(children.indexOf(own), `<${own}> before <${nested}>`).toBeLessThan(children.indexOf(nested));
    }
  }
  for (const own of ['token', 'state', 'message', 'created_at', 'updated_at', 'succeeded', 'transaction_type', 'amount', 'currency_code', 'email', 'order_id']) {
    expect(firstPath(xml, own), `.//${own}`).toEqual(['transaction', own]);
  }
}

function txFromXml(res: ApiResponse): Tx {
  expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
  checkGemStructure(res.text);
  const t = res.xml().transaction;
  const message = t.message;
  const response = t.response;
  const hasResponse = response !== undefined && xmlText(response) !== null;
  return {
    status: res.status,
    token: xmlText(t.token) as string,
    state: xmlText(t.state) as string,
    succeeded: xmlText(t.succeeded) === 'true',
    transaction_type: xmlText(t.transaction_type) as string,
    message: xmlText(message),
    message_key: typeof message === 'object' && message !== null ? (message['@_key'] ?? null) : null,
    amount: xmlText(t.amount) === null ? null : Number(xmlText(t.amount)),
    currency_code: xmlText(t.currency_code),
    reference_token: xmlText(t.reference_token),
    payment_method_added: xmlText(t.payment_method_added) === 'true',
    retain_on_success: xmlText(t.retain_on_success) === 'true',
    gateway_token: xmlText(t.gateway_token),
    gateway_transaction_id: xmlText(t.gateway_transaction_id),
    third_party_token: t.third_party_token === undefined ? undefined : xmlText(t.third_party_token),
    response: hasResponse
      ? {
          success: xmlText(response.success) === 'true',
          message: xmlText(response.message) as string,
          pending: xmlText(response.pending) === 'true',
          result_unknown: xmlText(response.result_unknown) === 'true',
          error_code: xmlText(response.error_code),
        }
      : null,
    payment_method: pmFromXml(t.payment_method),
    basis_payment_method: pmFromXml(t.basis_payment_method),
  };
}

/** No `.//errors/error` anywhere: the gem and ActiveMerchant read the body as a transaction. */
function expectNoErrorElements(res: ApiResponse): void {
  expect(res.text).not.toMatch(/<error[\s>/]/);
}

/** One format's way of calling the API. */
class Api {
  constructor(
    readonly client: ApiClient,
    readonly format: Format,
  ) {}

  send(method: string, path: string, root: string, fields: Fields, headers: Record<string, string> = {}): Promise<ApiResponse> {
    const url = `${path}.${this.format}`;
    if (this.format === 'json') return this.client.sendJson(method, url, { [root]: jsonFields(fields) }, { headers });
    return this.client.sendXml(method, url, `<${root}>${xmlFields(fields)}</${root}>`, { headers });
  }

  /** A body-less request, as the clients send void, complete, retain and redact. */
  empty(method: string, path: string): Promise<ApiResponse> {
    return this.format === 'json' ? this.client.request(method, `${path}.json`) : this.client.request(method, `${path}.xml`, { body: '', contentType: 'text/xml' });
  }

  get(path: string): Promise<ApiResponse> {
    return this.client.get(`${path}.${this.format}`);
  }

  tx(res: ApiResponse): Tx {
    return this.format === 'json' ? txFromJson(res) : txFromXml(res);
  }

  errors(res: ApiResponse): ErrorEntry[] {
    if (this.format === 'xml') expect(childOrder(res.text, 'errors').every((tag) => tag === 'error')).toBe(true);
    return errorsOf(res, this.format);
  }

  async direct(gateway: string, operation: string, fields: Fields): Promise<ApiResponse> {
    return this.send('POST', `/v1/gateways/${gateway}/${operation}`, 'transaction', fields);
  }
}

/** The body ActiveMerchant sends (`<order_id/>`, `<gateway_specific_fields/>`), `amount` in cents. */
function transactionFields(paymentMethodToken: string, amount: number | undefined = 100, extra: Fields = {}): Fields {
  return { amount, currency_code: 'USD', order_id: null, payment_method_token: paymentMethodToken, ...extra, gateway_specific_fields: null };
}

function cardFields(number: string, overrides: Fields = {}): Fields {
  return { first_name: 'Joe', last_name: 'Jones', number, verification_value: CVV, month: 3, year: FUTURE_YEAR, ...overrides };
}

// ---------------------------------------------------------------------------------------------

describe.each(storeKinds)('the test gateway over HTTPS (%s)', (store) => {
  let server: TestServer;
  let gateway: string;
  const cards = new Map<string, string>();

  beforeAll(async () => {
    server = await startServer({ store });
    gateway = await createTestGateway(server.client);
    for (const { success, decline } of BRANDS) {
      cards.set(success, await createCard(server.client, success));
      cards.set(decline, await createCard(server.client, decline));
    }
  });
  afterAll(() => server.close());

  async function createCard(client: ApiClient, number: string, extra: Record<string, unknown> = {}): Promise<string> {
    return (await addPaymentMethod(client, { credit_card: jsonFields(cardFields(number)), ...extra })).payment_method.token;
  }

  async function methodOf(token: string): Promise<any> {
    const res = await server.client.get(`/v1/payment_methods/${token}.json`);
    expect(res.status, res.text).toBe(200);
    return res.json().payment_method;
  }

  const transactionRows = (where: { paymentMethod?: string; gateway?: string }) => storedTransactions(server, where);

  async function transcriptOf(token: string): Promise<string> {
    const res = await server.client.get(`/v1/transactions/${token}/transcript`);
    expect(res.status).toBe(200);
    return res.text;
  }

  describe.each(FORMATS)('%s', (format) => {
    let api: Api;
    beforeAll(() => {
      api = new Api(server.client, format);
    });

    describe('success cards (wire-reference §5)', () => {
      it.each(BRANDS)('$brand: purchase, authorize and verify succeed', async ({ success }) => {
        const pm = cards.get(success) as string;
        for (const { operation, type, verb } of OPERATIONS) {
          const res = await api.direct(gateway, operation, transactionFields(pm, operation === 'verify' ? undefined : 100));
          expect(res.status, res.text).toBe(200);
          const tx = api.tx(res);
          expect(tx).toMatchObject({
            state: 'succeeded',
            succeeded: true,
            transaction_type: type,
            message: 'Succeeded!',
            message_key: 'messages.transaction_succeeded',
            gateway_token: gateway,
            payment_method_added: false,
          });
          expect(tx.token).toMatch(TOKEN);
          expect(tx.gateway_transaction_id).toMatch(/^\d+$/);
          expect(tx.response).toMatchObject({ success: true, message: `Successful ${verb}`, pending: false, result_unknown: false });
          expect(tx.payment_method?.token).toBe(pm);
          if (format === 'xml') expectNoErrorElements(res);
          if (format === 'json') expect(Object.keys(res.json().transaction)).toEqual(GATEWAY_TRANSACTION_KEYS);
        }
      });
    });

    describe('decline cards (wire-reference §5)', () => {
      it.each(BRANDS)('$brand: 422 gateway_processing_failed with a full transaction', async ({ decline }) => {
        const pm = cards.get(decline) as string;
        for (const { operation, type, verb } of OPERATIONS) {
          const res = await api.direct(gateway, operation, transactionFields(pm, operation === 'verify' ? undefined : 100));
          expect(res.status, res.text).toBe(422);
          const tx = api.tx(res);
          const message = `Unable to process the ${verb} transaction.`;
          // A gateway failure copies response.message and has no message key (wire-reference §3.1).
          expect(tx).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, transaction_type: type, message, message_key: null });
          expect(tx.token).toMatch(TOKEN);
          expect(tx.response).toMatchObject({ success: false, message, pending: false, result_unknown: false });
          expect(tx.payment_method).toMatchObject({ token: pm, storage_state: 'cached', errors: [] });
          if (format === 'xml') {
            expectNoErrorElements(res);
            expect(res.text).toContain(`<message>${message}</message>`);
          } else {
            expect(Object.keys(res.json().transaction)).toEqual(GATEWAY_TRANSACTION_KEYS);
          }
          // Recorded as it was returned.
          const shown = await api.get(`/v1/transactions/${tx.token}`);
          expect(shown.status).toBe(200);
          expect(api.tx(shown)).toEqual({ ...tx, status: 200 });
        }
      });
    });

    describe("Coffer's failure triggers (API.md §6)", () => {
      it('4000000000000069: declined "Account closed", the payment method becomes closed and is then refused', async () => {
        const pm = await createCard(server.client, CLOSED_CARD);
        const res = await api.direct(gateway, 'purchase', transactionFields(pm));
        expect(res.status, res.text).toBe(422);
        const tx = api.tx(res);
        expect(tx).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, message: 'Account closed', message_key: null });
        expect(tx.response).toMatchObject({ success: false, message: 'Account closed' });
        // The nested method is shown as it was when the purchase began (as on Spreedly); it is closed after.
        expect(tx.payment_method?.storage_state).toBe('cached');
        if (format === 'xml') expectNoErrorElements(res);
        expect((await methodOf(pm)).storage_state).toBe('closed');

        const again = await api.direct(gateway, 'purchase', transactionFields(pm));
        expect(again.status, again.text).toBe(422);
        const refused = api.tx(again);
        expect(refused).toMatchObject({ state: 'failed', succeeded: false, message_key: 'messages.payment_method_closed', transaction_type: 'Purchase' });
        expect(refused.token).toMatch(TOKEN);
        expect(refused.response).toBeNull();
        expect(refused.gateway_transaction_id).toBeNull();
        if (format === 'xml') expectNoErrorElements(again);
        // Nothing was sent: no exchange with the gateway recorded.
        expect(await transcriptOf(refused.token)).toBe('');
        expect(await transcriptOf(tx.token)).not.toBe('');
        const rows = await transactionRows({ paymentMethod: pm });
        expect(rows.map((row) => [row.transaction_type, row.state])).toEqual([
          ['AddPaymentMethod', 'succeeded'],
          ['Purchase', 'gateway_processing_failed'],
          ['Purchase', 'failed'],
        ]);
      });

      for (const trigger of [
        { label: 'card 4000000000000408', card: TIMEOUT_CARD, amount: 100 },
        { label: 'amount 4080', card: VISA, amount: 4080 },
      ]) {
        it(`${trigger.label}: 408, gateway_processing_result_unknown, recorded`, async () => {
          // A gateway of its own: timeouts count toward its circuit breaker.
          const own = await createTestGateway(server.client);
          const pm = await createCard(server.client, trigger.card);
          const res = await api.direct(own, 'purchase', transactionFields(pm, trigger.amount));
          expect(res.status, res.text).toBe(408);
          const tx = api.tx(res);
          expect(tx).toMatchObject({ state: 'gateway_processing_result_unknown', succeeded: false, amount: trigger.amount });
          expect(tx.response).toMatchObject({ success: false, result_unknown: true, pending: false });
          if (format === 'xml') {
            expectNoErrorElements(res);
            expect(res.text).toContain('<result_unknown type="boolean">true</result_unknown>');
          }
          const shown = await api.get(`/v1/transactions/${tx.token}`);
          expect(shown.status).toBe(200);
          expect(shown.text).toBe(res.text);
          const rows = await transactionRows({ gateway: own });
          expect(rows.map((row) => [row.token, row.state])).toEqual([[tx.token, 'gateway_processing_result_unknown']]);
        });
      }

      for (const trigger of [
        { label: 'card 4000000000000507', card: ERROR_CARD, amount: 100 },
        { label: 'amount 5070', card: VISA, amount: 5070 },
      ]) {
        it(`${trigger.label}: gateway error, 422 gateway_processing_failed`, async () => {
          const own = await createTestGateway(server.client);
          const pm = await createCard(server.client, trigger.card);
          const res = await api.direct(own, 'authorize', transactionFields(pm, trigger.amount));
          expect(res.status, res.text).toBe(422);
          const tx = api.tx(res);
          expect(tx).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, transaction_type: 'Authorization' });
          expect(tx.response).toMatchObject({ success: false, result_unknown: false });
          if (format === 'xml') expectNoErrorElements(res);
          expect((await transactionRows({ gateway: own })).map((row) => row.state)).toEqual(['gateway_processing_failed']);
        });
      }
    });

    describe('3-D Secure', () => {
      it('4556761029983886 with attempt_3dsecure and amount 3003: pending, then complete succeeds (same token)', async () => {
        const pm = await createCard(server.client, THREE_DS_CARD);
        const res = await api.direct(gateway, 'purchase', transactionFields(pm, 3003, { attempt_3dsecure: true }));
        expect(res.status, res.text).toBe(200);
        const pending = api.tx(res);
        expect(pending).toMatchObject({ state: 'pending', succeeded: false, message_key: 'messages.transaction_pending', message: 'Pending' });
        expect(pending.response).toMatchObject({ pending: true });
        expect((await api.get(`/v1/transactions/${pending.token}`)).text).toContain('pending');

        const completed = await api.empty('POST', `/v1/transactions/${pending.token}/complete`);
        expect(completed.status, completed.text).toBe(200);
        const done = api.tx(completed);
        expect(done).toMatchObject({ token: pending.token, state: 'succeeded', succeeded: true, transaction_type: 'Purchase', message_key: 'messages.transaction_succeeded', amount: 3003 });
        const shown = api.tx(await api.get(`/v1/transactions/${pending.token}`));
        expect(shown).toMatchObject({ token: pending.token, state: 'succeeded' });
        // One transaction, completed in place.
        expect((await transactionRows({ paymentMethod: pm })).map((row) => row.transaction_type)).toEqual(['AddPaymentMethod', 'Purchase']);

        const again = await api.empty('POST', `/v1/transactions/${pending.token}/complete`);
        expect(again.status).toBe(422);
        expect(api.errors(again)).toEqual([{ key: 'errors.transaction_not_pending', message: expect.any(String) }]);
      });

      it('an authorization held for 3-D Secure completes and can then be captured', async () => {
        const pm = await createCard(server.client, THREE_DS_CARD);
        const pending = api.tx(await api.direct(gateway, 'authorize', transactionFields(pm, 3003, { attempt_3dsecure: true })));
        expect(pending.state).toBe('pending');
        const early = await api.empty('POST', `/v1/transactions/${pending.token}/capture`);
        expect(early.status).toBe(422);
        expect(api.errors(early)[0]?.key).toBe('errors.reference_transaction_not_succeeded');
        expect(api.tx(await api.empty('POST', `/v1/transactions/${pending.token}/complete`)).state).toBe('succeeded');
        const capture = await api.empty('POST', `/v1/transactions/${pending.token}/capture`);
        expect(capture.status, capture.text).toBe(200);
        expect(api.tx(capture)).toMatchObject({ transaction_type: 'Capture', state: 'succeeded', amount: 3003, reference_token: pending.token });
      });

      // src bug (reported): complete() checks `pending` without a lock or a state change before
      // calling the gateway, so concurrent completes all reach it and all succeed. On PostgreSQL
      // several win every time; SQLite's single connection happens to serialize them.
      it('concurrent completes of one pending transaction: exactly one completes it', async () => {
        for (let round = 0; round < 3; round += 1) {
          const pm = await createCard(server.client, THREE_DS_CARD);
          const pending = api.tx(await api.direct(gateway, 'purchase', transactionFields(pm, 3003, { attempt_3dsecure: true })));
          expect(pending.state).toBe('pending');
          const responses = await Promise.all(Array.from({ length: 10 }, () => api.empty('POST', `/v1/transactions/${pending.token}/complete`)));
          const statuses = responses.map((res) => res.status);
          expect(statuses.filter((status) => status === 200), statuses.join(',')).toHaveLength(1);
          for (const res of responses.filter((r) => r.status !== 200)) {
            expect(res.status).toBe(422);
            expect(api.errors(res)[0]?.key).toBe('errors.transaction_not_pending');
          }
          // The gateway was asked to complete it once: one exchange after the first.
          const transcript = await transcriptOf(pending.token);
          expect(transcript.match(/Successful complete/g) ?? []).toHaveLength(1);
        }
      });

      it('the 3DS card without attempt_3dsecure, or with another amount, succeeds at once', async () => {
        const pm = cards.get(THREE_DS_CARD) as string;
        expect(api.tx(await api.direct(gateway, 'purchase', transactionFields(pm, 3003))).state).toBe('succeeded');
        expect(api.tx(await api.direct(gateway, 'purchase', transactionFields(pm, 100, { attempt_3dsecure: true }))).state).toBe('succeeded');
      });

      it('complete of a non-pending transaction is 422 errors.transaction_not_pending; of an unknown one 404', async () => {
        const done = api.tx(await api.direct(gateway, 'purchase', transactionFields(cards.get(VISA) as string)));
        const res = await api.empty('POST', `/v1/transactions/${done.token}/complete`);
        expect(res.status).toBe(422);
        expect(api.errors(res)).toEqual([{ key: 'errors.transaction_not_pending', message: expect.any(String) }]);
        const unknown = await api.empty('POST', '/v1/transactions/nonesuch/complete');
        expect(unknown.status).toBe(404);
        expect(api.errors(unknown)[0]?.key).toBe('errors.transaction_not_found');
      });
    });

    describe('store (third-party vaulting)', () => {
      it('stores a card: a third_party_token payment method and the basis card', async () => {
        const pm = await createCard(server.client, '5555555555554444');
        const res = await api.direct(gateway, 'store', { payment_method_token: pm });
        expect(res.status, res.text).toBe(200);
        const tx = api.tx(res);
        expect(tx).toMatchObject({ state: 'succeeded', succeeded: true, transaction_type: 'Store', message_key: 'messages.transaction_succeeded' });
        expect(tx.response).toMatchObject({ success: true, message: 'Successful store' });
        expect(tx.third_party_token).toMatch(/^test_vault:\S+$/);
        expect(tx.payment_method).toMatchObject({ payment_method_type: 'third_party_token', third_party_token: tx.third_party_token });
        expect(tx.payment_method?.token).toMatch(TOKEN);
        expect(tx.payment_method?.token).not.toBe(pm);
        expect(tx.basis_payment_method).toMatchObject({ token: pm, payment_method_type: 'credit_card' });
        if (format === 'xml') {
          expectNoErrorElements(res);
          expect(childOrder(res.text, 'transaction')).toContain('basis_payment_method');
        }
        const stored = await methodOf(tx.payment_method?.token as string);
        expect(stored).toMatchObject({ payment_method_type: 'third_party_token', third_party_token: tx.third_party_token });

        // The gateway's token can be charged.
        const charged = await api.direct(gateway, 'purchase', transactionFields(tx.payment_method?.token as string));
        expect(charged.status, charged.text).toBe(200);
        expect(api.tx(charged).payment_method?.payment_method_type).toBe('third_party_token');
      });

      it('4217651111111119: 422 "Unable to store card"', async () => {
        const pm = await createCard(server.client, STORE_FAILS_CARD);
        const res = await api.direct(gateway, 'store', { payment_method_token: pm });
        expect(res.status, res.text).toBe(422);
        const tx = api.tx(res);
        expect(tx).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, transaction_type: 'Store', message: 'Unable to store card' });
        expect(tx.response).toMatchObject({ success: false, message: 'Unable to store card' });
        expect(tx.third_party_token ?? null).toBeNull();
        if (format === 'xml') expectNoErrorElements(res);
        // Other operations on that card succeed.
        expect((await api.direct(gateway, 'purchase', transactionFields(pm))).status).toBe(200);
      });
    });

    it('general_credit succeeds', async () => {
      const res = await api.direct(gateway, 'general_credit', transactionFields(cards.get(VISA) as string, 250));
      expect(res.status, res.text).toBe(200);
      expect(api.tx(res)).toMatchObject({ state: 'succeeded', succeeded: true, transaction_type: 'GeneralCredit', amount: 250, currency_code: 'USD' });
      const declined = await api.direct(gateway, 'general_credit', transactionFields(cards.get('4012888888881881') as string, 250));
      expect(declined.status).toBe(422);
    });

    describe('inline payment methods', () => {
      const inlineCard = (number: string, overrides: Fields = {}): Fields => ({
        number,
        verification_value: CVV,
        first_name: 'Joe',
        last_name: 'Jones',
        month: 3,
        year: FUTURE_YEAR,
        email: null,
        address1: null,
        city: null,
        zip: null,
        ...overrides,
      });

      it('vaults an inline credit_card (ActiveMerchant style) as a new cached payment method', async () => {
        const res = await api.direct(gateway, 'purchase', { amount: 100, currency_code: 'USD', order_id: null, credit_card: inlineCard(VISA), gateway_specific_fields: null });
        expect(res.status, res.text).toBe(200);
        const tx = api.tx(res);
        expect(tx).toMatchObject({ state: 'succeeded', payment_method_added: true });
        expect(tx.payment_method?.token).toMatch(TOKEN);
        expect(tx.payment_method?.storage_state).toBe('cached');
        if (format === 'xml') expect(res.text).toContain('<payment_method_added type="boolean">true</payment_method_added>');
        const method = await methodOf(tx.payment_method?.token as string);
        expect(method).toMatchObject({ storage_state: 'cached', last_four_digits: '1111', first_name: 'Joe' });
        const listed = await server.client.get(`/v1/payment_methods/${tx.payment_method?.token}/transactions.json`);
        expect(listed.json().transactions.map((t: any) => t.token)).toContain(tx.token);
      });

      it('an inline card with a blank first name: 422 failed, "The payment method is invalid." with its errors', async () => {
        const res = await api.direct(gateway, 'purchase', { amount: 100, currency_code: 'USD', order_id: null, credit_card: inlineCard(VISA, { first_name: null }), gateway_specific_fields: null });
        expect(res.status, res.text).toBe(422);
        const tx = api.tx(res);
        expect(tx).toMatchObject({ state: 'failed', succeeded: false, message: 'The payment method is invalid.', payment_method_added: false });
        expect(tx.token).toMatch(TOKEN);
        expect(tx.payment_method?.errors).toContainEqual({ key: 'errors.blank', attribute: 'first_name', message: "First name can't be blank" });
        if (format === 'xml') {
          // ActiveMerchant reads payment_method_errors as the text of <payment_method><errors>.
          expect(res.xml().transaction.payment_method.errors.error['#text']).toBe("First name can't be blank");
          expect(res.text.indexOf('<errors>')).toBeGreaterThan(res.text.indexOf('<payment_method>'));
        }
        const shown = await api.get(`/v1/transactions/${tx.token}`);
        expect(api.tx(shown)).toEqual({ ...tx, status: 200 });
      });

      it('retain_on_success retains the card on success only', async () => {
        const inline = await api.direct(gateway, 'purchase', { amount: 100, currency_code: 'USD', retain_on_success: true, credit_card: inlineCard(VISA) });
        expect(inline.status, inline.text).toBe(200);
        const inlineTx = api.tx(inline);
        expect(inlineTx).toMatchObject({ retain_on_success: true, payment_method_added: true });
        // As the card was when the purchase began (as on Spreedly); retained afterwards.
        expect(inlineTx.payment_method?.storage_state).toBe('cached');
        expect((await methodOf(inlineTx.payment_method?.token as string)).storage_state).toBe('retained');

        const vaulted = await createCard(server.client, VISA);
        const byToken = api.tx(await api.direct(gateway, 'authorize', transactionFields(vaulted, 100, { retain_on_success: true })));
        expect(byToken.payment_method?.storage_state).toBe('cached');
        expect((await methodOf(vaulted)).storage_state).toBe('retained');

        const declining = await createCard(server.client, '4012888888881881');
        const declined = await api.direct(gateway, 'purchase', transactionFields(declining, 100, { retain_on_success: true }));
        expect(declined.status).toBe(422);
        expect((await methodOf(declining)).storage_state).toBe('cached');
      });
    });

    describe('rules on payment methods and gateways', () => {
      it('a redacted payment method: 422 failed with a token, messages.payment_method_redacted', async () => {
        const pm = await createCard(server.client, VISA);
        expect((await server.client.request('PUT', `/v1/payment_methods/${pm}/redact.json`)).status).toBe(200);
        const res = await api.direct(gateway, 'purchase', transactionFields(pm));
        expect(res.status, res.text).toBe(422);
        const tx = api.tx(res);
        expect(tx).toMatchObject({ state: 'failed', succeeded: false, message_key: 'messages.payment_method_redacted', response: null });
        expect(tx.token).toMatch(TOKEN);
        expect(tx.payment_method).toMatchObject({ token: pm, storage_state: 'redacted' });
        if (format === 'xml') expectNoErrorElements(res);
        expect(await transcriptOf(tx.token)).toBe('');
      });

      it('a single-use payment method: the second use is 422 messages.payment_method_used', async () => {
        const pm = await createCard(server.client, VISA, { single_use: true });
        const first = await api.direct(gateway, 'purchase', transactionFields(pm));
        expect(first.status, first.text).toBe(200);
        // Cached when the purchase began (as on Spreedly), used from then on.
        expect(api.tx(first).payment_method?.storage_state).toBe('cached');
        expect((await methodOf(pm)).storage_state).toBe('used');
        const second = await api.direct(gateway, 'authorize', transactionFields(pm));
        expect(second.status, second.text).toBe(422);
        expect(api.tx(second)).toMatchObject({ state: 'failed', succeeded: false, message_key: 'messages.payment_method_used', response: null });
        if (format === 'xml') expectNoErrorElements(second);
      });

      it('a single-use payment method used by 10 requests at once reaches the gateway once', async () => {
        const pm = await createCard(server.client, VISA, { single_use: true });
        const responses = await Promise.all(Array.from({ length: 10 }, () => api.direct(gateway, 'purchase', transactionFields(pm))));
        expect(responses.filter((res) => res.status === 200)).toHaveLength(1);
        for (const res of responses.filter((r) => r.status !== 200)) {
          expect(res.status, res.text).toBe(422);
          expect(api.tx(res)).toMatchObject({ state: 'failed', message_key: 'messages.payment_method_used' });
        }
        const rows = await transactionRows({ paymentMethod: pm });
        expect(rows.filter((row) => row.transaction_type === 'Purchase' && row.state === 'succeeded')).toHaveLength(1);
        expect(rows.filter((row) => row.transaction_type === 'Purchase' && row.state === 'failed')).toHaveLength(9);
      });

      it('a redacted gateway: 422 failed, messages.cannot_use_redacted_gateway', async () => {
        const own = await createTestGateway(server.client);
        expect((await server.client.request('PUT', `/v1/gateways/${own}/redact.json`)).status).toBe(200);
        const res = await api.direct(own, 'purchase', transactionFields(cards.get(VISA) as string));
        expect(res.status, res.text).toBe(422);
        const tx = api.tx(res);
        expect(tx).toMatchObject({
          state: 'failed',
          succeeded: false,
          message_key: 'messages.cannot_use_redacted_gateway',
          message: "Unable to use a gateway because it's been redacted.",
          response: null,
        });
        if (format === 'xml') {
          expectNoErrorElements(res);
          expect(res.text).toContain(`<message key="messages.cannot_use_redacted_gateway">Unable to use a gateway because it's been redacted.</message>`);
        }
      });

      it('an unknown payment_method_token: errors.payment_method_not_found (body)', async () => {
        const res = await api.direct(gateway, 'purchase', transactionFields('nonesuch'));
        expect(api.errors(res)).toEqual([{ key: 'errors.payment_method_not_found', message: 'There is no payment method corresponding to the specified payment method token.' }]);
        expect(await transactionRows({ gateway })).not.toContainEqual(expect.objectContaining({ payment_method_token: 'nonesuch' }));
      });

      // src bug (reported): an unknown payment_method_token in the body is 404 (the status of the
      // key errors.payment_method_not_found) where API.md §3 says 422.
      it('an unknown payment_method_token in the body is 422, not 404', async () => {
        const res = await api.direct(gateway, 'purchase', transactionFields('nonesuch'));
        expect(res.status).toBe(422);
      });

      it('no payment method: 422 errors.payment_method_or_payment_method_token_required', async () => {
        const res = await api.direct(gateway, 'purchase', { amount: 100, currency_code: 'USD', order_id: null, gateway_specific_fields: null });
        expect(res.status).toBe(422);
        expect(api.errors(res)).toEqual([
          { key: 'errors.payment_method_or_payment_method_token_required', message: "You must specify a valid 'payment_method' or valid 'payment_method_token' parameter." },
        ]);
      });

      it('an unknown gateway: 404 errors.gateway_not_found', async () => {
        const res = await api.direct('nonesuch', 'purchase', transactionFields(cards.get(VISA) as string));
        expect(res.status).toBe(404);
        expect(api.errors(res)).toEqual([{ key: 'errors.gateway_not_found', message: 'Unable to find the specified gateway.' }]);
      });

      it('invalid amounts: 422 errors.invalid_amount, nothing recorded', async () => {
        const pm = await createCard(server.client, VISA);
        for (const amount of [0, -5, 'abc', 1.5, '1.5', undefined]) {
          const res = await api.direct(gateway, 'purchase', { ...transactionFields(pm), amount });
          expect(res.status, `amount ${String(amount)}: ${res.text}`).toBe(422);
          expect(api.errors(res)).toEqual([{ key: 'errors.invalid_amount', attribute: 'amount', message: expect.any(String) }]);
        }
        expect((await transactionRows({ paymentMethod: pm })).map((row) => row.transaction_type)).toEqual(['AddPaymentMethod']);
        // "100" and 100 alike.
        expect((await api.direct(gateway, 'purchase', { ...transactionFields(pm), amount: '100' })).status).toBe(200);
      });

      it('invalid currencies: 422 errors.invalid_currency_code', async () => {
        const pm = cards.get(VISA) as string;
        for (const currency_code of ['usd', 'XXX', 'US', undefined]) {
          const res = await api.direct(gateway, 'purchase', { ...transactionFields(pm), currency_code });
          expect(res.status, `currency ${String(currency_code)}: ${res.text}`).toBe(422);
          expect(api.errors(res)).toEqual([{ key: 'errors.invalid_currency_code', attribute: 'currency_code', message: expect.any(String) }]);
        }
        expect((await api.direct(gateway, 'purchase', { ...transactionFields(pm), currency_code: 'EUR' })).status).toBe(200);
      });

      it('bad credentials: 401 and nothing recorded', async () => {
        const before = (await transactionRows({ gateway })).length;
        const anonymous = new Api(server.client.withAuth({ user: server.init.environment_key, password: 'wrong' }), format);
        const res = await anonymous.direct(gateway, 'purchase', transactionFields(cards.get(VISA) as string));
        expect(res.status).toBe(401);
        expect(anonymous.errors(res)[0]?.key).toBe('errors.access_denied');
        expect((await transactionRows({ gateway })).length).toBe(before);
      });
    });

    it('the CVV goes to the first transaction only', async () => {
      const pm = await createCard(server.client, VISA);
      expect((await methodOf(pm)).verification_value).toBe('XXX');
      const first = api.tx(await api.direct(gateway, 'authorize', transactionFields(pm)));
      expect(first.payment_method?.verification_value).toBe('');
      expect((await methodOf(pm)).verification_value).toBe('');
      const row = await server.core.store.db.selectFrom('payment_methods').selectAll().where('token', '=', pm).executeTakeFirstOrThrow();
      expect(row.sealed_cvv).toBeNull();
      // Without a CVV the card still transacts.
      expect((await api.direct(gateway, 'purchase', transactionFields(pm))).status).toBe(200);
    });
  });

  describe('environments', () => {
    let production: ApiClient;
    let productionGateway: string;

    beforeAll(async () => {
      const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
      production = server.client.withAuth({ user: environment.key, password: server.init.access_secret });
      productionGateway = await createTestGateway(production);
    });

    it('a real card on the test gateway: 402 errors.account_inactive, nothing recorded', async () => {
      const real = await createCard(production, REAL_CARD);
      for (const format of FORMATS) {
        const api = new Api(production, format);
        const res = await api.direct(productionGateway, 'purchase', transactionFields(real));
        expect(res.status, res.text).toBe(402);
        expect(api.errors(res)[0]?.key).toBe('errors.account_inactive');
      }
      expect((await transactionRows({ paymentMethod: real })).map((row) => row.transaction_type)).toEqual(['AddPaymentMethod']);
    });

    it('a test card on a test gateway of a production environment succeeds', async () => {
      const pm = await createCard(production, VISA);
      const res = await production.sendJson('POST', `/v1/gateways/${productionGateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: pm } });
      expect(res.status, res.text).toBe(200);
    });

    it("another environment's gateway is 404; its payment method is not found", async () => {
      const pm = await createCard(production, VISA);
      const foreignGateway = await server.client.sendJson('POST', `/v1/gateways/${productionGateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: cards.get(VISA) } });
      expect(foreignGateway.status).toBe(404);
      const foreignMethod = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: pm } });
      expect(foreignMethod.json().errors[0].key).toBe('errors.payment_method_not_found');
      expect((await transactionRows({ paymentMethod: pm })).map((row) => row.transaction_type)).toEqual(['AddPaymentMethod']);
    });
  });

  it('never writes card data to the log', () => {
    const logs = server.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const { success, decline } of BRANDS) {
      expect(logs).not.toContain(success);
      expect(logs).not.toContain(decline);
    }
    expect(logs).not.toContain(REAL_CARD);
  });
});
