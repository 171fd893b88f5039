import { Validator } from '@seriousme/openapi-schema-validator';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCore, type Core } from '../../src/app.js';
import { buildApp } from '../../src/http-app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/logger.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

/*
 * GET /v1/openapi.json serves an OpenAPI 3.1 document of the whole API, without
 * authentication. It must be valid (checked by a maintained validator, not by hand), list every
 * route Fastify has registered, and list no route that does not exist.
 */

type Document = { openapi: string; paths: Record<string, Record<string, any>>; components: Record<string, Record<string, any>> };

/** The object a local `$ref` points at (the object itself when it is not a reference). */
function resolve(document: Document, node: any): any {
  if (typeof node?.$ref !== 'string') return node;
  return (node.$ref as string)
    .slice(2)
    .split('/')
    .reduce((at: any, key: string) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
}

/** `METHOD /path` in Fastify's form (`:token`); the document's `/v1/openapi.json` is routed without its suffix. */
function documentedRoutes(document: Document): Set<string> {
  const routes = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of Object.keys(item)) {
      routes.add(`${method.toUpperCase()} ${path.replace(/\{([A-Za-z]+)\}/g, ':$1').replace(/\.json$/, '')}`);
    }
  }
  return routes;
}

describe('the OpenAPI document', () => {
  let server: TestServer;
  let document: Document;

  beforeAll(async () => {
    server = await startServer();
    const res = await server.client.get('/v1/openapi.json', { auth: null });
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    document = res.json();
  });

  afterAll(async () => {
    await server?.close();
  });

  it('is served without authentication and is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(document as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('lists every registered route, and only those', async () => {
    // A second app, built but not started, to see each route as Fastify registers it.
    const temp = tempDir();
    let core: Core | null = null;
    try {
      core = await buildCore(loadConfig({ COFFER_DATA_DIR: temp.dir, COFFER_PORT: '0', COFFER_TLS: 'off' }));
      const app = buildApp(core, createLogger('silent'), null);
      const registered = new Set<string>();
      app.addHook('onRoute', (route: RouteOptions) => {
        // The portal's pages and the card form's static files and frames are not part of the API.
        if (route.url.startsWith('/portal') || route.url.startsWith('/iframe/')) return;
        for (const method of [route.method].flat()) if (method !== 'HEAD') registered.add(`${method} ${route.url}`);
      });
      await app.ready();
      await app.close();
      expect(registered.size).toBeGreaterThan(40);
      const documented = documentedRoutes(document);
      expect([...registered].filter((route) => !documented.has(route)), 'registered but not documented').toEqual([]);
      expect([...documented].filter((route) => !registered.has(route)), 'documented but not registered').toEqual([]);
    } finally {
      await core?.close();
      temp.cleanup();
    }
  });

  it('documents request bodies from the validating schemas, both formats, and the error statuses', () => {
    const purchase = document.paths['/v1/gateways/{token}/purchase']?.post;
    const json = purchase.requestBody.content['application/json'].schema;
    expect(json.properties.transaction).toEqual({ $ref: '#/components/schemas/TransactionRequest' });
    expect(resolve(document, json.properties.transaction).properties).toMatchObject({ currency_code: { type: 'string', maxLength: 3 }, retain_on_success: { type: 'boolean' } });
    expect(purchase.requestBody.content['application/xml'].schema.xml).toEqual({ name: 'transaction' });
    expect(Object.keys(purchase.responses)).toEqual(expect.arrayContaining(['200', '401', '402', '404', '422', '503']));
    expect(resolve(document, purchase.responses['404']).content['application/xml'].schema.xml).toEqual({ name: 'errors' });
    // A decline is 422 with the transaction: either body.
    expect(purchase.responses['422'].content['application/json'].schema.oneOf).toHaveLength(2);

    const list = document.paths['/v1/transactions']?.get;
    expect(list.responses['200'].content['application/xml'].schema).toMatchObject({ type: 'array', xml: { name: 'transactions', wrapped: true }, items: { $ref: '#/components/schemas/Transaction', xml: { name: 'transaction' } } });
    expect(list.parameters.map((p: any) => resolve(document, p).name)).toEqual(expect.arrayContaining(['since_token', 'order', 'count', 'state']));

    expect(document.paths['/v1/receivers']?.post.responses).toHaveProperty('403');
    expect(document.paths['/v1/gateways_options']?.get.security).toEqual([]);
    expect(document.paths['/v1/transactions/{token}/transcript']?.get.responses['200'].content).toHaveProperty('text/plain');
  });

  it('writes each schema once, under components, and every $ref resolves', () => {
    const text = JSON.stringify(document);
    // The transaction schema (its `attempts` description is unique to it) appears once, not per operation.
    expect(text.split('Every attempt of the retry chain').length - 1).toBe(1);
    expect(Object.keys(document.components.schemas ?? {})).toEqual(expect.arrayContaining(['Transaction', 'PaymentMethod', 'Gateway', 'Receiver', 'Certificate', 'Errors']));
    const refs = [...text.matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1]!);
    expect(refs.length).toBeGreaterThan(100);
    for (const ref of new Set(refs)) expect(resolve(document, { $ref: ref }), ref).toBeDefined();
    // Small enough to fetch on every client build (was 1.5 MB when every operation inlined its schemas).
    expect(Buffer.byteLength(text)).toBeLessThan(200_000);
  });

  it('is JSON only: the .xml form does not exist', async () => {
    const res = await server.client.get('/v1/openapi.xml', { auth: null });
    expect(res.status).toBe(404);
  });
});
