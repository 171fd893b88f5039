import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

/** Sends raw bytes over TLS and returns everything the server wrote before closing. */
function rawExchange(server: TestServer, bytes: string): Promise<string> {
  const url = new URL(server.client.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca: server.ca ?? undefined, servername: 'localhost' }, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function split(response: string): { status: number; headers: string; body: string } {
  const [head = '', body = ''] = response.split('\r\n\r\n', 2);
  return { status: Number(head.split(' ')[1]), headers: head, body };
}

/**
 * What Node's HTTP parser refuses (Fastify's own 400 and 431 answers before) uses
 * the contract's error envelope, in the format the request line names, JSON when unknown.
 */
describe('requests refused by the HTTP parser', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  it('431 with errors.request_header_fields_too_large for headers over the limit (JSON: the request line is no longer in view)', async () => {
    const big = `X-Big: ${'a'.repeat(20_000)}\r\n`;
    const response = split(await rawExchange(server, `GET /v1/gateways.xml HTTP/1.1\r\nHost: localhost\r\n${big}\r\n`));
    expect(response.status).toBe(431);
    expect(response.headers).toContain('Content-Type: application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual({ errors: [{ key: 'errors.request_header_fields_too_large', message: 'The request headers are too large.' }] });
  });

  it('400 in XML for a malformed header line on a .xml path', async () => {
    const response = split(await rawExchange(server, 'GET /v1/gateways.xml?x=1 HTTP/1.1\r\nHost: localhost\r\nBad Header Line\r\n\r\n'));
    expect(response.status).toBe(400);
    expect(response.headers).toContain('Content-Type: application/xml; charset=utf-8');
    expect(response.body).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<errors>\n  <error key="errors.malformed_request">The request could not be parsed as HTTP.</error>\n</errors>\n');
  });

  it('400 with errors.malformed_request in JSON for a request that is not HTTP', async () => {
    const response = split(await rawExchange(server, 'NOT HTTP AT ALL\r\n\r\n'));
    expect(response.status).toBe(400);
    expect(response.headers).toContain('Content-Type: application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual({ errors: [{ key: 'errors.malformed_request', message: 'The request could not be parsed as HTTP.' }] });
  });
});
