import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * A plain-HTTP request to the HTTPS port (docs/deployment.md, "TLS"): a 400 that says to use
 * https://, as nginx answers, instead of a dropped connection; HTTPS beside it is unchanged.
 */

/** Sends `bytes` on a raw TCP connection and returns everything the server sent until it closed. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.setTimeout(10_000, () => reject(new Error('no answer within 10 s')));
  });
}

describe('plain HTTP on the HTTPS port', () => {
  let server: TestServer;
  let port: number;

  beforeAll(async () => {
    server = await startServer();
    port = Number(new URL(server.client.baseUrl).port);
  });
  afterAll(() => server.close());

  it('answers 400 telling the client to use https://, then closes; nothing of the request is echoed', async () => {
    const answer = await raw(port, 'GET /v1/gateways.json?card=4111111111111111 HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const [head, body] = answer.split('\r\n\r\n');
    expect(head?.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(head).toContain('Connection: close');
    expect(body).toBe('This port speaks HTTPS: send the request to https:// instead of http://.\n');
    expect(answer).not.toContain('4111');
  });

  it('keeps serving HTTPS on the same port', async () => {
    const res = await server.client.get('/v1/gateways.json');
    expect(res.status, res.text).toBe(200);
    const again = await server.client.get('/v1/gateways_options.json');
    expect(again.status).toBe(200);
  });
});
