import type { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMITS, bodyLimitOf } from '../../src/http/body-limits.js';
import { parsePrintedRoutes } from '../../drills/route-table.js';
import { basicAuth, RawConnection } from '../../drills/availability/raw-connection.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * What a stranger can make Coffer read (docs/wire-compatibility.md, "Request body limits";
 * docs/security.md): every refusal below arrives while the client is still holding its body back,
 * which proves the body was neither read nor parsed.
 */

const KiB = 1024;
const MiB = 1024 * KiB;
const FORM = 'application/x-www-form-urlencoded';
const CARD = { first_name: 'Joe', last_name: 'Jones', number: '4111111111111111', month: 3, year: 2032 };

let connections: RawConnection[] = [];
afterEach(() => {
  for (const connection of connections) connection.destroy();
  connections = [];
});

async function connect(server: TestServer): Promise<RawConnection> {
  const connection = await RawConnection.open(server.client.baseUrl, server.ca);
  connections.push(connection);
  return connection;
}

function restricted(server: TestServer, format = 'json', key = server.init.environment_key): string {
  return `/v1/payment_methods/restricted.${format}?environment_key=${key}`;
}

/** Waits until `check` holds (the server logs a request after answering it). */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never happened: ${what}`);
}

describe('request bodies: refused before they are read', () => {
  let server: TestServer;
  let admin: string;

  beforeAll(async () => {
    server = await startServer({ env: { COFFER_RATE_LIMITS: JSON.stringify({ '*': null, public_tokenization_client_ip: { limit: 1000, window_seconds: 60 } }) } });
    admin = basicAuth(server.init.environment_key, server.init.access_secret);
  });
  afterAll(() => server?.close());

  it("the card form's route: a declared 1 MiB body is 413 at once, nothing read, the connection closed", async () => {
    const connection = (await connect(server)).head('POST', restricted(server), { 'Content-Type': 'application/json', 'Content-Length': MiB });
    const res = await connection.response();
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ errors: [{ key: 'errors.payload_too_large', message: 'The request body is larger than 16 KiB.' }] });
    expect(res.headers.connection).toBe('close');
    await connection.closed;
  });

  it('the transparent redirect: a declared 1 MiB form is 413 at once (the JSON route beside it keeps its own limit)', async () => {
    const connection = (await connect(server)).head('POST', '/v1/payment_methods', { 'Content-Type': FORM, 'Content-Length': MiB });
    const res = await connection.response();
    expect(res.status).toBe(413);
    expect(res.body).toContain('The request body is larger than 16 KiB.');
    // The same route with credentials and JSON takes the payment method's data and metadata.
    const big = await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: CARD, data: { note: 'x'.repeat(60 * KiB) } } });
    expect(big.status, big.text).toBe(201);
  });

  it('a chunked body is counted as it arrives: past 16 KiB it is refused without waiting for its end', async () => {
    const connection = (await connect(server)).head('POST', restricted(server), { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    const chunk = 'x'.repeat(4 * KiB);
    for (let index = 0; index < 5; index += 1) connection.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    const res = await connection.response();
    expect(res.status).toBe(413);
    expect(res.body).toContain('larger than 16 KiB');
  });

  it("the card form's route: an unknown environment key is 401 while the body is still held back", async () => {
    const connection = (await connect(server)).head('POST', restricted(server, 'json', 'NoSuchEnvironment'), { 'Content-Type': 'application/json', 'Content-Length': 2 * KiB });
    connection.write('{"payment_method":');
    const res = await connection.response();
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).errors[0].key).toBe('errors.access_denied');
  });

  it('an authenticated route: no credentials is 401 while the body is still held back; more than 256 KiB left unread closes the connection', async () => {
    const connection = (await connect(server)).head('POST', '/v1/gateways.json', { 'Content-Type': 'application/json', 'Content-Length': MiB });
    const res = await connection.response();
    expect(res.status).toBe(401);
    expect(res.headers.connection).toBe('close');
    await connection.closed;
  });

  it('a refusal with a small body left over keeps the connection for the next request', async () => {
    const connection = await connect(server);
    const body = JSON.stringify({ gateway: { gateway_type: 'test' } });
    connection.head('POST', '/v1/gateways.json', { 'Content-Type': 'application/json', 'Content-Length': body.length }).write(body);
    const refused = await connection.response();
    expect(refused.status).toBe(401);
    expect(refused.headers.connection).not.toBe('close');
    connection.head('POST', '/v1/gateways.json', { Authorization: admin, 'Content-Type': 'application/json', 'Content-Length': body.length }).write(body);
    expect((await connection.response()).status).toBe(201);
  });

  it('an authenticated route takes only what it can need: 16 KiB for an environment, with the limit named', async () => {
    const res = await server.client.sendJson('POST', '/v1/environments.json', { environment: { name: 'x'.repeat(20 * KiB) } });
    expect(res.status).toBe(413);
    expect(res.json()).toEqual({ errors: [{ key: 'errors.payload_too_large', message: 'The request body is larger than 16 KiB.' }] });
    const xml = await server.client.sendXml('POST', '/v1/environments.xml', `<environment><name>${'x'.repeat(20 * KiB)}</name></environment>`);
    expect(xml.status).toBe(413);
    expect(xml.text).toContain('<error key="errors.payload_too_large">The request body is larger than 16 KiB.</error>');
  });

  it('the largest legitimate payment method, written in XML, still fits its route', async () => {
    // data near its 1000-key cap in short keys and metadata at its 25 keys of 50 + 500 characters:
    // XML's most verbose spelling of both.
    const data = Array.from({ length: 990 }, (_, index) => `<d${index}>${'v'.repeat(50)}</d${index}>`).join('');
    const metadata = Array.from({ length: 25 }, (_, index) => `<${'k'.repeat(48)}${index}>${'&lt;'.repeat(500)}</${'k'.repeat(48)}${index}>`).join('');
    const card = Object.entries(CARD).map(([name, value]) => `<${name}>${value}</${name}>`).join('');
    const body = `<payment_method><credit_card>${card}</credit_card><data>${data}</data><metadata>${metadata}</metadata></payment_method>`;
    const res = await server.client.sendXml('POST', '/v1/payment_methods.xml', body);
    expect(res.status, res.text.slice(0, 300)).toBe(201);
  });

  it('a path no route serves is 404 without its body being read', async () => {
    const connection = (await connect(server)).head('POST', '/v1/no_such_thing.json', { Authorization: admin, 'Content-Type': 'application/json', 'Content-Length': 100 * KiB });
    const res = await connection.response();
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body).errors[0].key).toBe('errors.route_not_found');
  });

  it('every route that reads a body has a reasoned limit in the table, and gets it', async () => {
    const endpoints = parsePrintedRoutes(server.app.printRoutes({ commonPrefix: false }));
    const unlisted = endpoints.filter(({ method, url }) => !['GET', 'HEAD'].includes(method) && !url.startsWith('/portal') && !BODY_LIMITS.has(`${method} ${url}`));
    expect(unlisted).toEqual([]);
    // And the table is the limit in force: one route of each size, just over it.
    for (const [method, url] of [
      ['POST', '/v1/workflows/none/explain'],
      ['PUT', '/v1/environments/none'],
    ] as const) {
      const pattern = url.replace('/none', '/:key');
      const limit = bodyLimitOf(method, pattern);
      const connection = (await connect(server)).head(method, `${url}.json`, { Authorization: admin, 'Content-Type': 'application/json', 'Content-Length': limit + 1 });
      const res = await connection.response();
      expect(res.status, `${method} ${url}`).toBe(413);
    }
  });
});

describe('a refusal that closes the connection reads nothing more', () => {
  let server: TestServer;

  beforeAll(async () => {
    // Plain HTTP: the bytes the server's socket read are the request's own.
    server = await startServer({ tls: false });
  });
  afterAll(() => server?.close());

  it('a 1 MiB body sent whole to an authenticated route without credentials: 401, and the server read only its first chunk', async () => {
    const accepted = new Promise<Socket>((resolve) => server.app.server.once('connection', resolve));
    const connection = await connect(server);
    const socket = await accepted;
    const readInAll = new Promise<number>((resolve) => socket.once('close', () => resolve(socket.bytesRead)));
    connection.head('POST', '/v1/gateways.json', { 'Content-Type': 'application/json', 'Content-Length': MiB }).write(Buffer.alloc(MiB, 0x20));
    const res = await connection.response();
    expect(res.status).toBe(401);
    expect(res.headers.connection).toBe('close');
    // The headers arrive in one read of at most 64 KiB with the start of the body; after the
    // answer the connection closes without reading on (before, Node read the next 64 KiB too).
    expect(await readInAll).toBeLessThanOrEqual(64 * KiB);
  });
});

describe('XML: elements and attributes counted before anything is parsed', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ tls: false, env: { COFFER_RATE_LIMITS: JSON.stringify({ '*': null }) } });
  });
  afterAll(() => server?.close());

  const card = '<credit_card><first_name>Joe</first_name><last_name>Jones</last_name><number>4111111111111111</number><month>3</month><year>2032</year></credit_card>';
  const tokenize = (inner: string) => server.client.request('POST', restricted(server, 'xml'), { auth: null, contentType: 'application/xml', body: `<payment_method>${inner}</payment_method>` });

  it('a card (and its metadata) goes through', async () => {
    const res = await tokenize(`${card}<metadata><order type="integer">42</order></metadata>`);
    expect(res.status, res.text).toBe(201);
  });

  it('more elements than the route allows (512 on the 16 KiB card form) is 413, within the byte limit', async () => {
    const res = await tokenize(`${card}<metadata>${'<a/>'.repeat(600)}</metadata>`);
    expect(res.status).toBe(413);
    expect(res.text).toContain('<error key="errors.payload_too_large">The request body has more than 512 XML elements.</error>');
  });

  it('more attributes on one element than any client sends is 413', async () => {
    const attributes = Array.from({ length: 100 }, (_, index) => `a${index}="1"`).join(' ');
    const res = await tokenize(`${card}<metadata ${attributes}/>`);
    expect(res.status).toBe(413);
    expect(res.text).toContain('The request body has an XML element with more than 16 attributes.');
  });

  it('more attributes in all than the route allows is 413', async () => {
    const res = await tokenize(`${card}<metadata>${'<a b="1" c="2" d="3"/>'.repeat(200)}</metadata>`);
    expect(res.status).toBe(413);
    expect(res.text).toContain('The request body has more than 512 XML attributes.');
  });
});

describe('the public rate limit applies before the body', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ env: { COFFER_RATE_LIMITS: JSON.stringify({ '*': null, public_tokenization_client_ip: { limit: 2, window_seconds: 60 } }) } });
  });
  afterAll(() => server?.close());

  it('the card form: past the per-address budget a request is 429 while its body is still held back', async () => {
    const body = JSON.stringify({ payment_method: { credit_card: { first_name: 'Joe', last_name: 'Jones', number: '4111111111111111', month: 3, year: 2032 } } });
    for (let index = 0; index < 2; index += 1) {
      const res = await server.client.request('POST', restricted(server), { auth: null, contentType: 'application/json', body });
      expect(res.status, res.text).toBe(201);
      // An answer shows the API.md §7 budgets, not this one.
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
    const connection = (await connect(server)).head('POST', restricted(server), { 'Content-Type': 'application/json', 'Content-Length': 2 * KiB });
    const res = await connection.response();
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['ratelimit-limit']).toBe('2');
    expect(res.headers['ratelimit-remaining']).toBe('0');
    expect(JSON.parse(res.body).errors[0].key).toBe('errors.rate_limited');
  });

  it('the transparent redirect counts against the same budget, before its body (its environment is in the body)', async () => {
    const connection = (await connect(server)).head('POST', '/v1/payment_methods', { 'Content-Type': FORM, 'Content-Length': 2 * KiB });
    expect((await connection.response()).status).toBe(429);
    // Authenticated tokenization is not public: its budgets are API.md §7's, lifted here.
    const res = await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: CARD } });
    expect(res.status, res.text).toBe(201);
  });
});

describe('slow bodies: a request timeout, and a cap on bodies in flight', () => {
  let server: TestServer;
  let admin: string;

  beforeAll(async () => {
    server = await startServer();
    admin = basicAuth(server.init.environment_key, server.init.access_secret);
  });
  afterAll(() => server?.close());

  it('the server (made by serverFactory, over TLS) has a 30 s request timeout, checked every second', async () => {
    const http = server.app.server;
    expect(http.requestTimeout).toBe(30_000);
    expect(http.headersTimeout).toBe(20_000);
    const plain = await startServer({ tls: false });
    try {
      expect(plain.app.server.requestTimeout).toBe(30_000);
      expect(plain.app.server.headersTimeout).toBe(20_000);
    } finally {
      await plain.close();
    }
  });

  it('a withheld body is answered 408 and its connection closed when the request timeout passes; its room is given back', async () => {
    const http = server.app.server;
    // The same timeouts, shortened so the test does not wait 30 s (Node wants headers' ≤ the request's).
    http.headersTimeout = 1_000;
    http.requestTimeout = 1_500;
    try {
      const connection = (await connect(server)).head('POST', '/v1/receivers.json', { Authorization: admin, 'Content-Type': 'application/json', 'Content-Length': 100 * KiB });
      connection.write('{"receiver":{');
      await eventually(() => server.app.bodiesInFlight.inUse === 100 * KiB, 'the body is reserved');
      const res = await connection.response(10_000);
      expect(res.status).toBe(408);
      expect(JSON.parse(res.body)).toEqual({ errors: [{ key: 'errors.request_timeout', message: 'The request did not arrive in time.' }] });
      await connection.closed;
      await eventually(() => server.app.bodiesInFlight.inUse === 0, 'the reservation is given back');
    } finally {
      http.requestTimeout = 30_000;
      http.headersTimeout = 20_000;
    }
  });

  it('bodies in flight across the process are capped: past 64 MiB a body is 503 with Retry-After before it is read', async () => {
    // 64 authenticated requests declaring 1 MiB each, bodies withheld: the budget is full.
    const held: RawConnection[] = [];
    for (let index = 0; index < 64; index += 1) {
      held.push((await connect(server)).head('POST', '/v1/receivers.json', { Authorization: admin, 'Content-Type': 'application/json', 'Content-Length': MiB }));
    }
    await eventually(() => server.app.bodiesInFlight.inUse === 64 * MiB, 'every body is reserved');
    const refused = (await connect(server)).head('POST', '/v1/gateways.xml', { Authorization: admin, 'Content-Type': 'application/xml', 'Content-Length': 100 });
    const res = await refused.response();
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers.connection).toBe('close');
    expect(res.body).toContain('<error key="errors.service_unavailable">The server is receiving too many request bodies at once. Try again shortly.</error>');
    // Requests without a body are not held up, and the room comes back when the holders leave.
    expect((await server.client.get('/v1/gateways.json')).status).toBe(200);
    for (const connection of held) connection.destroy();
    await eventually(() => server.app.bodiesInFlight.inUse === 0, 'the reservations are given back');
    const res2 = await server.client.sendXml('POST', '/v1/gateways.xml', '<gateway><gateway_type>test</gateway_type></gateway>');
    expect(res2.status, res2.text).toBe(201);
  });

  it('a chunked body counts as it arrives', async () => {
    const connection = (await connect(server)).head('POST', '/v1/receivers.json', { Authorization: admin, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    const chunk = 'x'.repeat(10 * KiB);
    connection.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    await eventually(() => server.app.bodiesInFlight.inUse === 10 * KiB, 'the first chunk is counted');
    connection.destroy();
    await eventually(() => server.app.bodiesInFlight.inUse === 0, 'the reservation is given back');
  });
});

describe('a client that aborts its upload', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  it('is a client-side event: no 503, no "store unavailable" warning', async () => {
    const connection = (await connect(server)).head('POST', '/v1/gateways.json', {
      Authorization: basicAuth(server.init.environment_key, server.init.access_secret),
      'Content-Type': 'application/json',
      'Content-Length': 10 * KiB,
    });
    connection.write('{"gateway":{"gateway_type":"te');
    // Time for the request to reach its route and start reading the body.
    await new Promise((resolve) => setTimeout(resolve, 500));
    connection.destroy();
    const logged = () => server.logs.map((line) => JSON.parse(line) as { msg: string; level: number });
    const aborted = 'client closed the connection before its request body arrived';
    await eventually(() => logged().some((line) => line.msg === aborted || line.msg === 'store unavailable'), 'the abort is logged');
    expect(logged().filter((line) => line.msg === 'store unavailable' || line.level >= 40)).toEqual([]);
    // Logged once, at info: a client-side event (no request line: nobody is left to answer).
    expect(logged().filter((line) => line.msg === aborted).map((line) => line.level)).toEqual([30]);
  });
});
