import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http-app.js';
import { createLogger } from '../../src/logger.js';
import { startServer, type TestServer } from '../helpers/server.js';

const GATEWAY_JSON = JSON.stringify({ gateway: { gateway_type: 'test' } });
const GATEWAY_XML = '<gateway><gateway_type>test</gateway_type></gateway>';

describe('transport rules (API.md §1, §3) over HTTPS', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  describe('406 Not Acceptable', () => {
    it.each([
      ['json', 'application/xml'],
      ['xml', 'application/json'],
      ['json', 'text/html'],
      ['xml', 'application/json;q=1, application/xml;q=0'],
    ])('refuses .%s with Accept: %s', async (format, accept) => {
      const res = await server.client.get(`/v1/gateways.${format}`, { accept });
      expect(res.status).toBe(406);
      if (format === 'json') expect(res.json().errors[0].key).toBe('errors.not_acceptable');
      else expect(res.xml().errors.error['@_key']).toBe('errors.not_acceptable');
    });

    it.each([
      ['json', 'application/json, text/plain, */*'],
      ['json', 'application/*'],
      ['xml', 'text/xml'],
      ['xml', 'application/xml;q=0.9'],
      ['xml', '*/*'],
    ])('allows .%s with Accept: %s', async (format, accept) => {
      const res = await server.client.get(`/v1/gateways.${format}`, { accept });
      expect(res.status).toBe(200);
    });
  });

  describe('415 Unsupported Media Type', () => {
    it.each([
      ['json', 'text/plain', GATEWAY_JSON],
      ['json', 'application/xml', GATEWAY_JSON],
      ['xml', 'application/json', GATEWAY_XML],
      ['xml', 'application/x-www-form-urlencoded', GATEWAY_XML],
    ])('refuses a .%s body sent as %s', async (format, contentType, body) => {
      const res = await server.client.request('POST', `/v1/gateways.${format}`, { contentType, body });
      expect(res.status).toBe(415);
      if (format === 'json') expect(res.json().errors[0].key).toBe('errors.unsupported_media_type');
      else expect(res.xml().errors.error['@_key']).toBe('errors.unsupported_media_type');
    });

    it('refuses a body with no Content-Type', async () => {
      const res = await server.client.request('POST', '/v1/gateways.json', { body: GATEWAY_JSON });
      expect(res.status).toBe(415);
    });

    it('leaves nothing behind', async () => {
      const before = (await server.client.get('/v1/gateways.json?count=100')).json().gateways.length;
      await server.client.request('POST', '/v1/gateways.json', { contentType: 'text/plain', body: GATEWAY_JSON });
      const after = (await server.client.get('/v1/gateways.json?count=100')).json().gateways.length;
      expect(after).toBe(before);
    });
  });

  describe('422 errors.malformed_request', () => {
    it.each([
      ['json', 'application/json', '{"gateway": {"gateway_type": '],
      ['json', 'application/json', '[1,2]'],
      ['json', 'application/json', '{"gateway": "test"}'],
      ['json', 'application/json', '{"receiver": {"receiver_type": "test"}}'],
      ['xml', 'application/xml', '<gateway><gateway_type>test</gateway></gateway_type>'],
      ['xml', 'application/xml', '<receiver><receiver_type>test</receiver_type></receiver>'],
      ['xml', 'application/xml', '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><gateway>&lol;</gateway>'],
      ['xml', 'text/xml', 'not xml at all'],
    ])('.%s (%s): %s', async (format, contentType, body) => {
      const res = await server.client.request('POST', `/v1/gateways.${format}`, { contentType, body });
      expect(res.status).toBe(422);
      if (format === 'json') expect(res.json().errors[0].key).toBe('errors.malformed_request');
      else expect(res.xml().errors.error['@_key']).toBe('errors.malformed_request');
    });
  });

  describe('413 errors.payload_too_large', () => {
    it.each(['json', 'xml'])('refuses a .%s body over 1 MiB', async (format) => {
      const filler = 'x'.repeat(1024 * 1024 + 10);
      const body = format === 'json' ? JSON.stringify({ gateway: { gateway_type: 'test', description: filler } }) : `<gateway><description>${filler}</description></gateway>`;
      const res = await server.client.request('POST', `/v1/gateways.${format}`, {
        contentType: format === 'json' ? 'application/json' : 'application/xml',
        body,
      });
      expect(res.status).toBe(413);
      if (format === 'json') expect(res.json().errors[0].key).toBe('errors.payload_too_large');
      else expect(res.xml().errors.error['@_key']).toBe('errors.payload_too_large');
    });
  });

  describe('empty bodies mean "no parameters"', () => {
    it('accepts PUT and POST with an empty body and no Content-Type', async () => {
      const token = (await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).json().gateway.token;
      for (const method of ['PUT', 'POST']) {
        const res = await server.client.request(method, `/v1/gateways/${token}/retain.xml`);
        expect(res.status).toBe(200);
        const withType = await server.client.request(method, `/v1/gateways/${token}/retain.json`, { contentType: 'application/json', body: '' });
        expect(withType.status).toBe(200);
      }
    });

    it('treats empty XML elements as absent', async () => {
      const res = await server.client.sendXml('POST', '/v1/gateways.xml', '<gateway><gateway_type>test</gateway_type><description/><merchant_profile_key></merchant_profile_key></gateway>');
      expect(res.status).toBe(201);
      expect(res.xml().gateway.description['@_nil']).toBe('true');
    });

    it('needs gateway_type when the body is empty', async () => {
      const res = await server.client.request('POST', '/v1/gateways.json');
      expect(res.status).toBe(422);
      expect(res.json().errors[0].key).toBe('errors.invalid_gateway_type');
    });
  });

  describe('X-Request-Id', () => {
    it('echoes a valid incoming id and generates one otherwise, on success and on error', async () => {
      const echoed = await server.client.get('/v1/gateways.json', { headers: { 'x-request-id': 'client-req-42' } });
      expect(echoed.headers['x-request-id']).toBe('client-req-42');
      const generated = await server.client.get('/v1/gateways.json', { headers: { 'x-request-id': 'bad id with spaces' } });
      expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      // A card number (or any long digit run) sent as a request id is never echoed or logged.
      const cardLike = await server.client.get('/v1/gateways.json', { headers: { 'x-request-id': 'order-5555555555554444' } });
      expect(cardLike.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(server.logs.join('\n')).not.toContain('5555555555554444');
      const denied = await server.client.get('/v1/gateways.json', { auth: null });
      expect(denied.status).toBe(401);
      expect(denied.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  it('answers an unknown route with 404 in the request format, after authentication', async () => {
    const res = await server.client.get('/v1/nonesuch.xml');
    expect(res.status).toBe(404);
    expect(res.xml().errors.error['@_key']).toBe('errors.route_not_found');
    const anonymous = await server.client.get('/v1/nonesuch.json', { auth: null });
    expect(anonymous.status).toBe(401);
  });

  it('serves /healthz and /readyz without auth', async () => {
    const health = await server.client.get('/healthz', { auth: null });
    expect(health.status).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await server.client.get('/readyz', { auth: null });
    expect(ready.status).toBe(200);
    expect(ready.json().status).toBe('ready');
  });
});

describe('failure statuses that need their own server', () => {
  it('answers /readyz 503 when the store is unreachable', async () => {
    const server = await startServer();
    try {
      await server.core.store.close();
      const res = await server.client.get('/readyz', { auth: null });
      expect(res.status).toBe(503);
      expect(res.json()).toMatchObject({ status: 'unavailable', store: 'unreachable' });
    } finally {
      await server.client.close();
      await server.app.close();
    }
  });

  it('renders an unexpected error as 500 errors.internal with the request id, never internals', async () => {
    const server = await startServer();
    try {
      const lines: string[] = [];
      const logger = createLogger('info', { write: (line: string) => lines.push(line) });
      const app = buildApp(server.core, logger, null);
      app.get('/v1/explode', { config: { access: 'none' } }, async () => {
        throw new Error('database password is hunter2');
      });
      for (const format of ['json', 'xml']) {
        const res = await app.inject({ method: 'GET', url: `/v1/explode.${format}`, headers: { 'x-request-id': `boom-${format}` } });
        expect(res.statusCode).toBe(500);
        expect(res.body).not.toContain('hunter2');
        expect(res.body).toContain(`Request id: boom-${format}`);
        expect(res.body).toContain('errors.internal');
      }
      expect(lines.some((line) => line.includes('unhandled error'))).toBe(true);
      await app.close();
    } finally {
      await server.close();
    }
  });
});
