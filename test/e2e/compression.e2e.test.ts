import zlib from 'node:zlib';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseXml } from '../helpers/client.js';
import { addPaymentMethod } from '../helpers/fixtures.js';
import { findCardData } from '../helpers/leak-scan.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * Responses of 1 KiB or more are compressed (br, gzip, deflate) when the client's
 * Accept-Encoding allows it; smaller ones, and clients that ask for nothing, get plain bodies.
 * Read with a raw client (the helper's client does not decompress), in JSON and in XML.
 */

const DECODE: Record<string, (body: Buffer) => Buffer> = {
  br: (body) => zlib.brotliDecompressSync(body),
  gzip: (body) => zlib.gunzipSync(body),
  deflate: (body) => zlib.inflateSync(body),
};

describe('response compression over HTTPS', () => {
  let server: TestServer;
  let agent: Agent;
  let authorization: string;

  beforeAll(async () => {
    server = await startServer();
    agent = new Agent({ connect: server.ca === null ? {} : { ca: server.ca } });
    authorization = `Basic ${Buffer.from(`${server.init.environment_key}:${server.init.access_secret}`).toString('base64')}`;
    // Enough retained cards that the list is well over 1 KiB in both formats.
    for (let i = 0; i < 4; i += 1) {
      await addPaymentMethod(server.client, { credit_card: { first_name: 'Joe', last_name: 'Jones', number: '4111111111111111', month: 3, year: 2035 }, retained: true });
    }
  });

  afterAll(async () => {
    await agent?.close();
    await server?.close();
  });

  async function raw(path: string, acceptEncoding: string | null) {
    const headers: Record<string, string> = { authorization };
    if (acceptEncoding !== null) headers['accept-encoding'] = acceptEncoding;
    const res = await request(`${server.client.baseUrl}${path}`, { headers, dispatcher: agent });
    const body = Buffer.from(await res.body.arrayBuffer());
    const encoding = res.headers['content-encoding'] as string | undefined;
    const plain = encoding === undefined ? body : (DECODE[encoding] as (b: Buffer) => Buffer)(body);
    // Leak guard on what the client really reads.
    expect(findCardData(plain.toString('utf8'))).toEqual([]);
    return { status: res.statusCode, headers: res.headers, wireLength: body.length, text: plain.toString('utf8') };
  }

  for (const format of ['json', 'xml'] as const) {
    const parse = (text: string) => (format === 'json' ? JSON.parse(text).payment_methods : parseXml(text).payment_methods.payment_method);

    it(`${format}: compresses a large list with each encoding the client allows, same document after decoding`, async () => {
      const plain = await raw(`/v1/payment_methods.${format}`, null);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.wireLength).toBeGreaterThanOrEqual(1024);
      for (const encoding of ['gzip', 'deflate', 'br']) {
        const res = await raw(`/v1/payment_methods.${format}`, encoding);
        expect(res.status).toBe(200);
        expect(res.headers['content-encoding']).toBe(encoding);
        expect(res.headers.vary).toMatch(/accept-encoding/i);
        expect(res.wireLength).toBeLessThan(plain.wireLength);
        expect(parse(res.text)).toEqual(parse(plain.text));
      }
      // Ruby's Net::HTTP default; brotli preferred when offered with gzip.
      expect((await raw(`/v1/payment_methods.${format}`, 'gzip;q=1.0,deflate;q=0.6,identity;q=0.3')).headers['content-encoding']).toBe('gzip');
      expect((await raw(`/v1/payment_methods.${format}`, 'gzip, deflate, br')).headers['content-encoding']).toBe('br');
      expect((await raw(`/v1/payment_methods.${format}`, 'identity')).headers['content-encoding']).toBeUndefined();
    });

    it(`${format}: leaves responses under 1 KiB (errors included) uncompressed`, async () => {
      const small = await raw(`/v1/payment_methods/NoSuchToken.${format}`, 'gzip, br');
      expect(small.status).toBe(404);
      expect(small.headers['content-encoding']).toBeUndefined();
      expect(small.wireLength).toBeLessThan(1024);
    });
  }
});
