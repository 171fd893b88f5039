import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { addPaymentMethod, createTestGateway, transactionXml } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { asList } from '../helpers/xml.js';

/*
 * The events feed (docs/events.md) over real HTTPS in JSON and XML: an event for every kind of object
 * change (carrying the originating X-Request-Id), the list's order, pagination and filters, the
 * payment-method feeds, and the errors.
 */

const VISA = '4111111111111111';
const DECLINE_VISA = '4012888888881881';
const THREE_DS_VISA = '4556761029983886';
const EVENT_FIELDS = ['id', 'request_id', 'event_type', 'object_type', 'object_key', 'created_at'];

function expectError(res: ApiResponse, format: 'json' | 'xml', status: number, key: string, attribute?: string): void {
  expect(res.status, res.text).toBe(status);
  if (format === 'json') {
    expect(res.json().errors[0]).toMatchObject({ key, ...(attribute === undefined ? {} : { attribute }) });
  } else {
    const first = asList(res.xml().errors.error)[0] as Record<string, string>;
    expect(first['@_key']).toBe(key);
    if (attribute !== undefined) expect(first['@_attribute']).toBe(attribute);
  }
}

describe.each(storeKinds)('events feed (%s)', (store) => {
  let server: TestServer;
  let api: ApiClient;
  let environmentKey: string;

  beforeAll(async () => {
    server = await startServer({ store });
    const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, `events-${store}`, false);
    environmentKey = environment.key;
    api = server.client.withAuth({ user: environment.key, password: server.init.access_secret });
  });
  afterAll(() => server.close());

  /** Every event of the environment, oldest first (JSON). */
  async function allEvents(client: ApiClient = api): Promise<Array<Record<string, string> & { id: string; event_type: string; object_key: string }>> {
    const res = await client.get('/v1/events.json?order=asc&count=100');
    expect(res.status, res.text).toBe(200);
    return res.json().events;
  }

  function typesOf(events: Array<{ event_type: string; object_key: string }>, objectKey: string): string[] {
    return events.filter((event) => event.object_key === objectKey).map((event) => event.event_type);
  }

  describe('every change of an API object records an event', () => {
    let gateway: string;
    let card: string;
    const requestIds: Record<string, string> = {};

    beforeAll(async () => {
      gateway = await createTestGateway(api);
      const updated = await api.sendJson('PUT', `/v1/gateways/${gateway}.json`, { gateway: { description: 'renamed' } }, { headers: { 'x-request-id': 'req-update-gateway' } });
      expect(updated.status, updated.text).toBe(200);
      requestIds.updateGateway = 'req-update-gateway';
      expect((await api.request('PUT', `/v1/gateways/${gateway}/retain.json`)).status).toBe(200);

      card = (await addPaymentMethod(api, { credit_card: { first_name: 'Joe', last_name: 'Jones', number: VISA, month: 3, year: 2035 } })).payment_method.token;
      expect((await api.sendJson('PUT', `/v1/payment_methods/${card}.json`, { payment_method: { email: 'joe@example.com' } })).status).toBe(200);
      expect((await api.request('PUT', `/v1/payment_methods/${card}/retain.json`)).status).toBe(200);
      expect((await api.sendJson('PUT', `/v1/payment_methods/${card}/recache.json`, { payment_method: { credit_card: { verification_value: '123' } } })).status).toBe(200);
    });

    it('gateways: added, updated (with the X-Request-Id of the request), retained, redacted', async () => {
      expect((await api.request('PUT', `/v1/gateways/${gateway}/redact.json`)).status).toBe(200);
      const events = await allEvents();
      expect(typesOf(events, gateway)).toEqual(['AddGateway', 'UpdateGateway', 'RetainGateway', 'RedactGateway']);
      const update = events.find((event) => event.event_type === 'UpdateGateway' && event.object_key === gateway);
      expect(update).toMatchObject({ request_id: requestIds.updateGateway, object_type: 'gateway' });
      expect(Object.keys(update ?? {})).toEqual(EVENT_FIELDS);
    });

    it('payment methods and transactions: added, updated, retained, recached, succeeded, failed, pending, result unknown, redacted', async () => {
      const live = await createTestGateway(api);
      const success = await api.sendXml('POST', `/v1/gateways/${live}/purchase.xml`, transactionXml(100, card));
      expect(success.status).toBe(200);
      const declinedCard = (await addPaymentMethod(api, { credit_card: { first_name: 'Joe', last_name: 'Jones', number: DECLINE_VISA, month: 3, year: 2035 } })).payment_method.token;
      const declined = await api.sendXml('POST', `/v1/gateways/${live}/purchase.xml`, transactionXml(100, declinedCard));
      expect(declined.status).toBe(422);
      const unknown = await api.sendXml('POST', `/v1/gateways/${live}/purchase.xml`, transactionXml(4080, card));
      expect(unknown.status).toBe(408);
      const threeDsCard = (await addPaymentMethod(api, { credit_card: { first_name: 'Joe', last_name: 'Jones', number: THREE_DS_VISA, month: 3, year: 2035 } })).payment_method.token;
      const pending = await api.sendJson('POST', `/v1/gateways/${live}/purchase.json`, { transaction: { amount: 3003, currency_code: 'USD', payment_method_token: threeDsCard, attempt_3dsecure: true } });
      expect(pending.json().transaction.state).toBe('pending');
      expect((await api.request('PUT', `/v1/payment_methods/${card}/redact.json`)).status).toBe(200);

      const events = await allEvents();
      expect(typesOf(events, card)).toEqual(['AddPaymentMethod', 'UpdatePaymentMethod', 'RetainPaymentMethod', 'RecachePaymentMethod', 'RedactPaymentMethod']);
      expect(typesOf(events, success.xml().transaction.token)).toEqual(['TransactionCreated', 'TransactionSucceeded']);
      expect(typesOf(events, declined.xml().transaction.token)).toEqual(['TransactionCreated', 'TransactionFailed']);
      expect(typesOf(events, unknown.xml().transaction.token)).toEqual(['TransactionCreated', 'TransactionResultUnknown']);
      expect(typesOf(events, pending.json().transaction.token)).toEqual(['TransactionCreated', 'TransactionPending']);
      // A vault operation is a transaction too (AddPaymentMethod, RedactPaymentMethod…), born with its outcome.
      const vaultTransactions = events.filter((event) => event.object_type === 'transaction' && event.event_type === 'TransactionSucceeded');
      expect(vaultTransactions.length).toBeGreaterThan(4);
    });

    it('receivers and certificates: added, updated, redacted', async () => {
      const receiver = await api.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: 'https://api.example.com' } });
      expect(receiver.status, receiver.text).toBe(201);
      const receiverToken = receiver.json().receiver.token;
      expect((await api.sendJson('PUT', `/v1/receivers/${receiverToken}.json`, { receiver: { sub_merchant_key: 'sub-1' } })).status).toBe(200);
      expect((await api.request('PUT', `/v1/receivers/${receiverToken}/redact.json`)).status).toBe(200);
      const certificate = await api.sendJson('POST', '/v1/certificates/generate.json', { certificate: { algorithm: 'ec-prime256v1', cn: 'events.example' } });
      expect(certificate.status, certificate.text).toBe(201);

      const events = await allEvents();
      expect(typesOf(events, receiverToken)).toEqual(['AddReceiver', 'UpdateReceiver', 'RedactReceiver']);
      expect(typesOf(events, certificate.json().certificate.token)).toEqual(['AddCertificate']);
    });

    it('environments and access secrets: added, updated, created, revoked — never the secret', async () => {
      const renamed = await server.client.sendJson('PUT', `/v1/environments/${environmentKey}.json`, { environment: { name: 'renamed' } });
      expect(renamed.status, renamed.text).toBe(200);
      const created = await server.client.sendJson('POST', `/v1/environments/${environmentKey}/access_secrets.json`, { access_secret: { name: 'ci' } });
      expect(created.status, created.text).toBe(201);
      const { key, access_secret: secret } = created.json().access_secret;
      expect((await server.client.request('DELETE', `/v1/environments/${environmentKey}/access_secrets/${key}.json`)).status).toBe(204);

      const res = await api.get('/v1/events.json?order=asc&count=100');
      expect(res.text).not.toContain(secret);
      const events = res.json().events as Array<{ event_type: string; object_key: string }>;
      expect(typesOf(events, environmentKey)).toEqual(['AddEnvironment', 'UpdateEnvironment']);
      expect(typesOf(events, key)).toEqual(['CreateAccessSecret', 'RevokeAccessSecret']);
    });

    it('a conditional write that changes nothing records nothing', async () => {
      const before = (await allEvents()).length;
      const refused = await api.sendJson('PUT', `/v1/gateways/${gateway}.json`, { gateway: { description: 'again' } });
      expect(refused.status).toBe(422);
      expect((await allEvents()).length).toBe(before);
    });

    it('every event an API request caused carries that request\'s X-Request-Id, passed down to the unit of work', async () => {
      const live = await createTestGateway(api);
      const inline = { first_name: 'Joe', last_name: 'Jones', number: VISA, month: 3, year: 2035 };
      const purchase = await api.sendJson('POST', `/v1/gateways/${live}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', credit_card: inline } }, { headers: { 'x-request-id': 'req-inline-purchase' } });
      expect(purchase.status, purchase.text).toBe(200);
      const { token, payment_method: method } = purchase.json().transaction;
      const events = await allEvents();
      const stamped = events.filter((event) => event.request_id === 'req-inline-purchase').map((event) => [event.event_type, event.object_key]);
      // The inline card's vaulting (its method and its AddPaymentMethod transaction) and the purchase itself.
      expect(stamped).toContainEqual(['AddPaymentMethod', method.token]);
      expect(stamped).toContainEqual(['TransactionCreated', token]);
      expect(stamped).toContainEqual(['TransactionSucceeded', token]);
      // Every change above came through the API (the environment itself was made through the core, no request).
      const unstamped = events.filter((event) => event.request_id === null).map((event) => event.event_type);
      expect(unstamped).toEqual(['AddEnvironment']);
    });
  });

  describe('the list: order, pagination, filters, one event, XML', () => {
    let client: ApiClient;
    let tokens: string[];

    beforeAll(async () => {
      const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, `events-list-${store}`, false);
      client = server.client.withAuth({ user: environment.key, password: server.init.access_secret });
      for (let i = 0; i < 3; i += 1) await createTestGateway(client);
      tokens = (await allEvents(client)).map((event) => event.id);
    });

    it('is newest first by default; order=asc reverses; count and since_token page', async () => {
      const newest = await client.get('/v1/events.json');
      expect(newest.json().events.map((event: { id: string }) => event.id)).toEqual([...tokens].reverse());
      const page = await client.get(`/v1/events.json?order=asc&count=1&since_token=${tokens[1]}`);
      expect(page.json().events.map((event: { id: string }) => event.id)).toEqual([tokens[2]]);
      const backwards = await client.get(`/v1/events.json?since_token=${tokens[2]}&count=1`);
      expect(backwards.json().events.map((event: { id: string }) => event.id)).toEqual([tokens[1]]);
    });

    it('filters by event_type', async () => {
      const res = await client.get('/v1/events.json?event_type=AddEnvironment');
      expect(res.json().events).toHaveLength(1);
      const gateways = await client.get('/v1/events.json?event_type=AddGateway');
      expect(gateways.json().events).toHaveLength(3);
    });

    it('renders XML with Spreedly\'s fields, and one event by id', async () => {
      const res = await client.get('/v1/events.xml?count=1');
      expect(res.status).toBe(200);
      const event = asList(res.xml().events.event)[0] as Record<string, unknown>;
      expect(Object.keys(event)).toEqual(EVENT_FIELDS);
      expect(event.event_type).toBe('AddGateway');
      const one = await client.get(`/v1/events/${tokens[0]}.xml`);
      expect(one.xml().event.id).toBe(tokens[0]);
      const json = await client.get(`/v1/events/${tokens[0]}.json`);
      expect(json.json().event).toMatchObject({ id: tokens[0], event_type: 'AddEnvironment', object_type: 'environment' });
    });

    it.each(['json', 'xml'] as const)('errors in %s: unknown event 404, another environment\'s event 404, bad event_type, bad since_token', async (format) => {
      expectError(await client.get(`/v1/events/nope.${format}`), format, 404, 'errors.event_not_found');
      const foreign = (await allEvents())[0]?.id;
      expectError(await client.get(`/v1/events/${foreign}.${format}`), format, 404, 'errors.event_not_found');
      expectError(await client.get(`/v1/events.${format}?event_type=Nonsense`), format, 422, 'errors.inclusion', 'event_type');
      expectError(await client.get(`/v1/events.${format}?since_token=${foreign}`), format, 422, 'errors.invalid', 'since_token');
      expectError(await client.get(`/v1/payment_methods/nope/events.${format}`), format, 404, 'errors.payment_method_not_found');
    });
  });

  describe('payment-method feeds', () => {
    it('GET /v1/payment_methods/events and /v1/payment_methods/<t>/events, JSON and XML', async () => {
      const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, `events-pm-${store}`, false);
      const client = server.client.withAuth({ user: environment.key, password: server.init.access_secret });
      await createTestGateway(client);
      const first = (await addPaymentMethod(client, { credit_card: { first_name: 'A', last_name: 'B', number: VISA, month: 3, year: 2035 } })).payment_method.token;
      const second = (await addPaymentMethod(client, { credit_card: { first_name: 'A', last_name: 'B', number: VISA, month: 3, year: 2035 } })).payment_method.token;
      expect((await client.request('PUT', `/v1/payment_methods/${first}/retain.json`)).status).toBe(200);

      const all = await client.get('/v1/payment_methods/events.json?order=asc');
      expect(all.json().payment_method_events.map((event: { object_key: string; event_type: string }) => [event.object_key, event.event_type])).toEqual([
        [first, 'AddPaymentMethod'],
        [second, 'AddPaymentMethod'],
        [first, 'RetainPaymentMethod'],
      ]);
      const own = await client.get(`/v1/payment_methods/${first}/events.xml`);
      expect(own.status).toBe(200);
      expect(asList(own.xml().payment_method_events.event).map((event: any) => event.event_type)).toEqual(['RetainPaymentMethod', 'AddPaymentMethod']);
      const filtered = await client.get(`/v1/payment_methods/${first}/events.json?event_type=RetainPaymentMethod`);
      expect(filtered.json().payment_method_events).toHaveLength(1);
    });
  });
});
