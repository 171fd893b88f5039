import { storeAccess } from '../../src/store/store-access.js';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildCallbacks } from '../../src/callbacks-wiring.js';
import { verifyHeaderSignature } from '../../src/domain/callback-signature.js';
import { openStore } from '../../src/store/database.js';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { parseXml } from '../helpers/client.js';
import { addPaymentMethod, createTestGateway } from '../helpers/fixtures.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { asList } from '../helpers/xml.js';
import { findCardData } from '../helpers/leak-scan.js';
import { RecordingReceiver } from '../fakes/recording-receiver.js';

/*
 * Signed callbacks (docs/events.md) over real HTTP to a local receiver: the signing secret (shown once,
 * sealed), the environment's subscription by event type, both signature schemes in JSON and XML,
 * a 3DS transaction's own callback_url, retries with backoff across a restart, two nodes never
 * sending the same attempt, the egress guard refusing a private address, redelivery and the log.
 */

const THREE_DS_VISA = '4556761029983886';

/** Spreedly's scheme as a merchant implements it: HMAC of the signed fields' values joined by `|`. */
function spreedlySignature(secret: string, signed: { algorithm: string; fields: string }, valueOf: (field: string) => string): string {
  const data = signed.fields.split(' ').map(valueOf).join('|');
  return createHmac(signed.algorithm, secret).update(data).digest('hex');
}

/** A JSON value as the text a receiver compares: null → "", others as written. */
function jsonText(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

/** An XML element's text (fast-xml-parser puts typed values under #text). */
function xmlText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return jsonText((value as Record<string, unknown>)['#text']);
  return String(value);
}

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

describe.each(storeKinds)('signed callbacks (%s)', (store) => {
  let server: TestServer;
  let receiver: RecordingReceiver;
  const clock = new ManualClock(Date.parse('2031-05-01T12:00:00.000Z'));

  beforeAll(async () => {
    receiver = await RecordingReceiver.start();
    server = await startServer({ store, clock, env: { COFFER_EGRESS_ALLOW: '127.0.0.1' } });
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.answer = { kind: 'fixed', status: 200, body: 'ok' };
  });

  /** A fresh environment, its client and its (regenerated, shown-once) signing secret. */
  async function environment(name: string): Promise<{ key: string; api: ApiClient; secret: string }> {
    const row = await server.core.tenancy.createEnvironment(server.init.organization_token, `${name}-${store}`, false);
    const res = await server.client.request('POST', `/v1/environments/${row.key}/regenerate_signing_secret.json`);
    expect(res.status, res.text).toBe(200);
    return { key: row.key, api: server.client.withAuth({ user: row.key, password: server.init.access_secret }), secret: res.json().environment.signing_secret };
  }

  async function subscribe(key: string, callback: Record<string, unknown>): Promise<void> {
    const res = await server.client.sendJson('PUT', `/v1/environments/${key}/callback.json`, { callback });
    expect(res.status, res.text).toBe(200);
  }

  describe('the signing secret', () => {
    it('is shown once by regenerate_signing_secret (JSON and XML), sealed at rest, recorded as an event without the secret', async () => {
      const env = await environment('secret');
      expect(env.secret).toMatch(/^[A-Za-z0-9]{64}$/);
      const xml = await server.client.request('POST', `/v1/environments/${env.key}/regenerate_signing_secret.xml`);
      expect(xml.status).toBe(200);
      const second = xml.xml().environment.signing_secret as string;
      expect(second).not.toBe(env.secret);
      const row = await server.core.store.db.selectFrom('environments').selectAll().where('key', '=', env.key).executeTakeFirstOrThrow();
      expect(row.sealed_signing_secret).not.toContain(second);
      expect(await server.core.signingSecrets.secretFor(env.key)).toBe(second);
      const shown = await server.client.get(`/v1/environments/${env.key}.json`);
      expect(shown.text).not.toContain(second);
      const events = await env.api.get('/v1/events.json?event_type=RegenerateSigningSecret');
      expect(events.json().events).toHaveLength(2);
      expect(events.text).not.toContain(second);
    });

    it('needs an admin secret', async () => {
      const env = await environment('secret-admin');
      const created = await server.client.sendJson('POST', `/v1/environments/${env.key}/access_secrets.json`, { access_secret: { name: 'transact', role: 'transact' } });
      const transact = server.client.withAuth({ user: created.json().access_secret.key, password: created.json().access_secret.access_secret });
      const refused = await transact.request('POST', `/v1/environments/${env.key}/regenerate_signing_secret.json`);
      expect([401, 403]).toContain(refused.status);
    });
  });

  describe('environment subscription', () => {
    it('JSON: only subscribed types are sent, with a valid signed element and X-Coffer-Signature', async () => {
      const env = await environment('sub-json');
      await subscribe(env.key, { url: `${receiver.url}/hooks`, format: 'json', event_types: ['AddGateway'] });
      const gateway = await createTestGateway(env.api);
      await addPaymentMethod(env.api, { credit_card: { first_name: 'A', last_name: 'B', number: '4111111111111111', month: 3, year: 2035 } });
      expect(await server.core.callbacks.deliverDue()).toBe(1);

      expect(receiver.received).toHaveLength(1);
      const [delivery] = receiver.received;
      expect(delivery?.target).toBe('/hooks');
      expect(delivery?.headers['content-type']).toBe('application/json');
      const event = JSON.parse(delivery?.body ?? '').event;
      expect(event).toMatchObject({ event_type: 'AddGateway', object_type: 'gateway', object_key: gateway });
      expect(delivery?.headers['x-coffer-event-id']).toBe(event.id);
      expect(event.signed.signature).toBe(spreedlySignature(env.secret, event.signed, (field) => jsonText(event[field])));
      expect(event.signed.fields).toBe('id request_id event_type object_type object_key created_at');
      const header = String(delivery?.headers['x-coffer-signature']);
      expect(verifyHeaderSignature(env.secret, delivery?.body ?? '', header, Math.floor(clock.now().getTime() / 1000))).toBe(true);
      expect(verifyHeaderSignature('another secret', delivery?.body ?? '', header, Math.floor(clock.now().getTime() / 1000))).toBe(false);
      // Stale: outside the documented 5-minute replay window.
      expect(verifyHeaderSignature(env.secret, delivery?.body ?? '', header, Math.floor(clock.now().getTime() / 1000) + 301)).toBe(false);
      expect(await server.core.callbacks.deliverDue()).toBe(0);
    });

    it('XML (the default): the signed element verifies from the XML text', async () => {
      const env = await environment('sub-xml');
      await subscribe(env.key, { url: `${receiver.url}/xml`, event_types: 'AddGateway' });
      await createTestGateway(env.api);
      await server.core.callbacks.deliverDue();
      const delivery = receiver.received.find((d) => d.target === '/xml');
      expect(delivery?.headers['content-type']).toBe('application/xml');
      const event = parseXml(delivery?.body ?? '').event;
      expect(xmlText(event.event_type)).toBe('AddGateway');
      expect(event.signed.signature).toBe(spreedlySignature(env.secret, event.signed, (field) => xmlText(event[field])));
    });

    it.each(['json', 'xml'] as const)('refuses a bad subscription in %s', async (format) => {
      const env = await environment(`sub-bad-${format}`);
      const url = `/v1/environments/${env.key}/callback.${format}`;
      const send = (body: Record<string, string>) =>
        format === 'json' ? server.client.sendJson('PUT', url, { callback: body }) : server.client.sendXml('PUT', url, `<callback>${Object.entries(body).map(([k, v]) => `<${k}>${v}</${k}>`).join('')}</callback>`);
      expectError(await send({ url: 'ftp://example.com' }), format, 422, 'errors.invalid', 'url');
      expectError(await send({ url: 'https://example.com', format: 'yaml' }), format, 422, 'errors.inclusion', 'format');
      expectError(await send({ url: 'https://example.com', event_types: 'AddGateway Nonsense' }), format, 422, 'errors.inclusion', 'event_types');
    });
  });

  describe('a transaction that finishes asynchronously', () => {
    it('POSTs the transaction to its callback_url in its callback_format when 3DS completes; a synchronous one does not', async () => {
      const env = await environment('async');
      const gateway = await createTestGateway(env.api);
      const card = (await addPaymentMethod(env.api, { credit_card: { first_name: 'A', last_name: 'B', number: THREE_DS_VISA, month: 3, year: 2035 } })).payment_method.token;
      const purchase = (amount: number, extra: Record<string, unknown>) =>
        env.api.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount, currency_code: 'USD', payment_method_token: card, callback_url: `${receiver.url}/tx`, ...extra } });
      const synchronous = await purchase(100, {});
      expect(synchronous.json().transaction.state).toBe('succeeded');
      const pending = await purchase(3003, { attempt_3dsecure: true, callback_format: 'json' });
      expect(pending.json().transaction.state).toBe('pending');
      const token = pending.json().transaction.token;
      expect((await env.api.request('POST', `/v1/transactions/${token}/complete.json`)).status).toBe(200);
      await server.core.callbacks.deliverDue();

      const posted = receiver.received.filter((d) => d.target === '/tx');
      expect(posted).toHaveLength(1);
      // The payload is the API's view: no card number in it (leak guard on what Coffer sends out).
      expect(findCardData(posted[0]?.body ?? '')).toEqual([]);
      expect(posted[0]?.body).not.toContain(THREE_DS_VISA);
      const transaction = JSON.parse(posted[0]?.body ?? '').transactions[0];
      expect(transaction).toMatchObject({ token, state: 'succeeded', amount: 3003, callback_url: `${receiver.url}/tx` });
      expect(transaction.signed.signature).toBe(spreedlySignature(env.secret, transaction.signed, (field) => jsonText(transaction[field])));
      expect(transaction.signed.fields.split(' ')).toEqual(expect.arrayContaining(['amount', 'state', 'token', 'succeeded', 'updated_at']));
    });

    it.each(['json', 'xml'] as const)('refuses a callback_url that is not an http(s) URL (%s)', async (format) => {
      const env = await environment(`bad-cb-${format}`);
      const gateway = await createTestGateway(env.api);
      const res =
        format === 'json'
          ? await env.api.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 1, currency_code: 'USD', payment_method_token: 'x', callback_url: 'javascript:alert(1)' } })
          : await env.api.sendXml('POST', `/v1/gateways/${gateway}/purchase.xml`, '<transaction><amount>1</amount><currency_code>USD</currency_code><payment_method_token>x</payment_method_token><callback_format>yaml</callback_format></transaction>');
      expect(res.status).toBe(422);
      expect(res.text).toContain(format === 'json' ? 'callback_url' : 'callback_format');
    });
  });

  describe('delivery', () => {
    it('retries with backoff after a failure, across a restart (a fresh dispatcher on the same database), then delivers once', async () => {
      const env = await environment('retry');
      await subscribe(env.key, { url: `${receiver.url}/retry`, format: 'json', event_types: ['AddGateway'] });
      await createTestGateway(env.api);
      receiver.answer = { kind: 'fixed', status: 503, body: 'busy' };
      expect(await server.core.callbacks.deliverDue()).toBe(1);
      const event = (await env.api.get('/v1/events.json?event_type=AddGateway')).json().events[0];
      let log = (await env.api.get(`/v1/events/${event.id}/deliveries.json`)).json().deliveries[0];
      expect(log).toMatchObject({ state: 'queued', attempts_count: 1, attempts: [{ attempt: 1, status: 503, error: 'HTTP 503' }] });
      // Not due yet: the backoff (10 s ± jitter) has not passed.
      expect(await server.core.callbacks.deliverDue()).toBe(0);

      // "Restart": a new dispatcher over a new connection to the same database knows only the queue.
      clock.advance(11_000);
      receiver.answer = { kind: 'fixed', status: 204 };
      const handle = store === 'postgres' ? openStore(server.core.config.store) : server.core.store;
      try {
        const restarted = buildCallbacks({ access: storeAccess(handle), keyring: server.core.keyring, clock, client: server.core.deliveryClient, transactionQuery: server.core.transactionQuery, events: server.core.events, timeoutMs: 5000 });
        expect(await restarted.callbacks.deliverDue()).toBe(1);
      } finally {
        if (store === 'postgres') await handle.close();
      }
      const retried = receiver.received.filter((d) => d.target === '/retry');
      expect(retried).toHaveLength(2);
      expect(retried[0]?.headers['x-coffer-event-id']).toBe(retried[1]?.headers['x-coffer-event-id']);
      log = (await env.api.get(`/v1/events/${event.id}/deliveries.xml`)).xml().deliveries.delivery;
      expect(xmlText(log.state)).toBe('delivered');
      expect(asList(log.attempts.attempt).map((a: any) => xmlText(a.status))).toEqual(['503', '204']);
    });

    it('gives up after 24 hours', async () => {
      const env = await environment('give-up');
      await subscribe(env.key, { url: `${receiver.url}/down`, format: 'json', event_types: ['AddGateway'] });
      await createTestGateway(env.api);
      receiver.answer = { kind: 'fixed', status: 500 };
      for (let round = 0; round < 40; round += 1) {
        await server.core.callbacks.deliverDue();
        clock.advance(3_600_000);
      }
      const event = (await env.api.get('/v1/events.json?event_type=AddGateway')).json().events[0];
      const log = (await env.api.get(`/v1/events/${event.id}/deliveries.json`)).json().deliveries[0];
      expect(log.state).toBe('abandoned');
      expect(log.attempts_count).toBeLessThanOrEqual(26);
      expect(log.attempts_count).toBeGreaterThan(5);
    });

    it('two nodes polling at once send every attempt exactly once', async () => {
      const env = await environment('two-nodes');
      await subscribe(env.key, { url: `${receiver.url}/pair`, format: 'json', event_types: ['AddGateway'] });
      for (let i = 0; i < 12; i += 1) await createTestGateway(env.api);
      // PostgreSQL: two pools, as two nodes have. SQLite: one file is one node's (two handles in one
      // process would block each other's event loop); two dispatchers still race for every row.
      const first = store === 'postgres' ? openStore(server.core.config.store) : server.core.store;
      const second = store === 'postgres' ? openStore(server.core.config.store) : server.core.store;
      try {
        const node = (handle: typeof first) =>
          buildCallbacks({ access: storeAccess(handle), keyring: server.core.keyring, clock, client: server.core.deliveryClient, transactionQuery: server.core.transactionQuery, events: server.core.events, timeoutMs: 5000 }).callbacks;
        const [a, b] = [node(first), node(second)];
        const counts = await Promise.all([a.deliverDue(), b.deliverDue(), a.deliverDue(), b.deliverDue()]);
        expect(counts.reduce((sum, n) => sum + n, 0)).toBe(12);
      } finally {
        if (store === 'postgres') {
          await first.close();
          await second.close();
        }
      }
      const ids = receiver.received.filter((d) => d.target === '/pair').map((d) => d.headers['x-coffer-delivery-id']);
      expect(ids).toHaveLength(12);
      expect(new Set(ids).size).toBe(12);
    });

    it('the egress guard refuses a private callback address: nothing is sent, the attempt is logged', async () => {
      const env = await environment('egress');
      await subscribe(env.key, { url: 'http://169.254.169.254/latest/meta-data', format: 'json', event_types: ['AddGateway'] });
      await createTestGateway(env.api);
      expect(await server.core.callbacks.deliverDue()).toBe(1);
      const event = (await env.api.get('/v1/events.json?event_type=AddGateway')).json().events[0];
      const log = (await env.api.get(`/v1/events/${event.id}/deliveries.json`)).json().deliveries[0];
      expect(log.state).toBe('queued');
      expect(log.attempts[0].status).toBeNull();
      expect(log.attempts[0].error).toMatch(/refused|not allowed|link-local/i);
      expect(log.attempts[0].error).not.toContain('meta-data');
    });

    it('redeliver queues the event again (202, stable event id); errors in JSON and XML', async () => {
      const env = await environment('redeliver');
      await subscribe(env.key, { url: `${receiver.url}/again`, format: 'json', event_types: ['AddGateway'] });
      await createTestGateway(env.api);
      await server.core.callbacks.deliverDue();
      const event = (await env.api.get('/v1/events.json?event_type=AddGateway')).json().events[0];
      const res = await env.api.request('POST', `/v1/events/${event.id}/redeliver.json`);
      expect(res.status, res.text).toBe(202);
      expect(res.json().deliveries[0].state).toBe('queued');
      await server.core.callbacks.deliverDue();
      const sent = receiver.received.filter((d) => d.target === '/again');
      expect(sent.map((d) => JSON.parse(d.body).event.id)).toEqual([event.id, event.id]);

      for (const format of ['json', 'xml'] as const) {
        expectError(await env.api.request('POST', `/v1/events/nope/redeliver.${format}`), format, 404, 'errors.event_not_found');
        const unsubscribed = (await env.api.get('/v1/events.json?event_type=AddEnvironment')).json().events[0];
        expectError(await env.api.request('POST', `/v1/events/${unsubscribed.id}/redeliver.${format}`), format, 422, 'errors.invalid', 'callback_url');
      }
    });
  });
});
