import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingReceiver } from '../fakes/recording-receiver.js';
import type { ApiResponse } from '../helpers/client.js';
import { addPaymentMethod } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { storedBytes } from '../helpers/stored-bytes.js';

/**
 * A receiver's answer is decoded as far as it can be (Content-Encoding, UTF-16,
 * entities, escapes, full-width digits, separators, base64) and scrubbed before it is stored or
 * returned; a body that cannot be decoded with certainty is replaced by
 * `[UNSCRUBBABLE BODY OMITTED]` (docs/security.md, "Scrubbing"). Each form that once got through
 * unscrubbed, against a real HTTP receiver on 127.0.0.1.
 */

const PAN = '4111111111111111';
const digits = (map: (digit: string) => string, gap = '') => [...PAN].map(map).join(gap);
const grouped = (separator: string) => (PAN.match(/.{4}/g) as string[]).join(separator);
const fullWidth = digits((digit) => String.fromCharCode(0xff10 + Number(digit)));

/** Every way the PAN is written below; none may be stored or returned. */
const FORMS = [
  PAN,
  grouped('.'),
  grouped('/'),
  grouped('  '),
  grouped('\u00a0'),
  digits((digit) => `\\u003${digit}`),
  digits((digit) => `&#${digit.charCodeAt(0)};`),
  digits((digit) => `&#x3${digit};`),
  fullWidth,
  Buffer.from(PAN).toString('base64'),
];

interface Case {
  name: string;
  headers: Record<string, string>;
  body: Buffer;
  encodeResponse?: boolean;
  /** The body as returned (decoded from base64 first when encode_response), or the omission marker. */
  expected: string;
  /** How the returned (base64) bytes read as text, when not UTF-8. */
  encoding?: BufferEncoding;
}

const text = (body: string, type = 'text/plain') => ({ headers: { 'Content-Type': type }, body: Buffer.from(body) });
const OMITTED = '[UNSCRUBBABLE BODY OMITTED]';

const CASES: Case[] = [
  { name: 'gzip with encode_response', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body: zlib.gzipSync(`{"card":"${PAN}"}`), encodeResponse: true, expected: '{"card":"[FILTERED]"}' },
  { name: 'gzip', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body: zlib.gzipSync(`{"card":"${PAN}"}`), expected: '{"card":"[FILTERED]"}' },
  { name: 'deflate', headers: { 'Content-Type': 'text/plain', 'Content-Encoding': 'deflate' }, body: zlib.deflateSync(`card ${grouped('.')}`), expected: 'card [FILTERED]' },
  { name: 'br', headers: { 'Content-Type': 'text/plain', 'Content-Encoding': 'br' }, body: zlib.brotliCompressSync(`card ${PAN}`), expected: 'card [FILTERED]' },
  { name: 'gzip then br', headers: { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip, br' }, body: zlib.brotliCompressSync(zlib.gzipSync(`card ${PAN}`)), expected: 'card [FILTERED]' },
  { name: 'UTF-16LE with a BOM', headers: { 'Content-Type': 'text/plain' }, body: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`card=${PAN};`, 'utf16le')]), expected: 'card=[FILTERED];' },
  { name: 'UTF-16LE without BOM or charset', headers: { 'Content-Type': 'text/plain' }, body: Buffer.from(`card=${PAN};`, 'utf16le'), expected: 'card=[FILTERED];' },
  { name: 'UTF-16BE by charset', headers: { 'Content-Type': 'text/plain; charset=utf-16be' }, body: Buffer.from(`card=${PAN};`, 'utf16le').swap16(), expected: 'card=[FILTERED];' },
  {
    name: 'UTF-16LE with encode_response (re-encoded as received)',
    headers: { 'Content-Type': 'text/plain; charset=utf-16le' },
    body: Buffer.from(`card=${PAN};`, 'utf16le'),
    encodeResponse: true,
    expected: 'card=[FILTERED];',
    encoding: 'utf16le',
  },
  { name: 'dotted', ...text(`card ${grouped('.')} ok`), expected: 'card [FILTERED] ok' },
  { name: 'slashed', ...text(`card ${grouped('/')} ok`), expected: 'card [FILTERED] ok' },
  { name: 'double-spaced', ...text(`card ${grouped('  ')} ok`), expected: 'card [FILTERED] ok' },
  { name: 'NBSP-separated', ...text(`card ${grouped('\u00a0')} ok`), expected: 'card [FILTERED] ok' },
  { name: 'JSON \\u00XX escapes', ...text(`{"card":"${digits((digit) => `\\u003${digit}`)}"}`, 'application/json'), expected: '{"card":"[FILTERED]"}' },
  { name: 'base64 of the PAN', ...text(`{"card":"${Buffer.from(PAN).toString('base64')}"}`, 'application/json'), expected: '{"card":"[FILTERED]"}' },
  { name: 'HTML decimal entities', ...text(`<p>${digits((digit) => `&#${digit.charCodeAt(0)};`)}</p>`, 'text/html'), expected: '<p>[FILTERED]</p>' },
  { name: 'HTML hex entities', ...text(`<p>${digits((digit) => `&#x3${digit};`)}</p>`, 'text/html'), expected: '<p>[FILTERED]</p>' },
  { name: 'full-width digits', ...text(`card ${fullWidth}`), expected: 'card [FILTERED]' },
  { name: 'an unknown content coding', headers: { 'Content-Type': 'text/plain', 'Content-Encoding': 'compress' }, body: Buffer.from(`card ${PAN}`), expected: OMITTED },
  { name: 'corrupt gzip', headers: { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' }, body: Buffer.concat([zlib.gzipSync(`card ${PAN}`).subarray(0, 12), Buffer.from(PAN)]), expected: OMITTED },
  { name: 'gzip inflating beyond 1 MiB', headers: { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' }, body: zlib.gzipSync(Buffer.concat([Buffer.from(`card ${PAN} `), Buffer.alloc(1024 * 1024, 0x61)])), expected: OMITTED },
  { name: 'a gzip file inside the body', headers: { 'Content-Type': 'application/octet-stream' }, body: zlib.gzipSync(`card ${PAN}`), expected: OMITTED },
  { name: 'a charset Coffer cannot read', headers: { 'Content-Type': 'text/plain; charset=utf-32' }, body: Buffer.from(`card ${PAN}`), expected: OMITTED },
];

function returnedBody(format: 'json' | 'xml', res: ApiResponse): { body: string; headers: string; token: string } {
  if (format === 'json') {
    const t = res.json().transaction;
    return { body: t.response.body, headers: t.response.headers, token: t.token };
  }
  const t = res.xml().transaction;
  const body = t.response.body;
  return { body: typeof body === 'string' ? body : (body['#text'] ?? ''), headers: t.response.headers, token: t.token };
}

describe.each(storeKinds)('receiver answers are decoded and scrubbed (%s)', (store) => {
  let server: TestServer;
  let receiver: RecordingReceiver;
  let receiverToken: string;
  let card: string;

  beforeAll(async () => {
    receiver = await RecordingReceiver.start();
    server = await startServer({ store, env: { COFFER_EGRESS_ALLOW: '127.0.0.1' } });
    const res = await server.client.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: receiver.url } });
    expect(res.status, res.text).toBe(201);
    receiverToken = res.json().receiver.token;
    const added = await addPaymentMethod(server.client, { credit_card: { first_name: 'Joe', last_name: 'Jones', number: PAN, month: 3, year: 2035 }, retained: true });
    card = added.payment_method.token;
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  async function deliver(format: 'json' | 'xml', encodeResponse: boolean): Promise<ApiResponse> {
    const path = `/v1/receivers/${receiverToken}/deliver.${format}`;
    if (format === 'json') {
      return server.client.sendJson('POST', path, { delivery: { payment_method_token: card, url: receiver.url, body: '{{credit_card_number}}', encode_response: encodeResponse } });
    }
    return server.client.sendXml(
      'POST',
      path,
      `<delivery><payment_method_token>${card}</payment_method_token><url>${receiver.url}</url><body>{{credit_card_number}}</body><encode_response>${encodeResponse}</encode_response></delivery>`,
    );
  }

  for (const format of ['json', 'xml'] as const) {
    it.each(CASES)(`${format}: $name`, async ({ headers, body, encodeResponse = false, expected, encoding }) => {
      receiver.answer = { kind: 'fixed', status: 200, headers, body };
      const res = await deliver(format, encodeResponse);
      expect(res.status, res.text).toBe(200);
      for (const form of FORMS) expect(res.text).not.toContain(form);
      const returned = returnedBody(format, res);
      if (expected === OMITTED) {
        // Said so in the body, with the length and content type of what came.
        expect(returned.body).toBe(`${OMITTED} (${body.length} bytes, ${headers['Content-Type']})`);
      } else {
        expect(encodeResponse ? Buffer.from(returned.body, 'base64').toString(encoding ?? 'utf8') : returned.body).toBe(expected);
      }
      expect(returned.headers).toContain(`Content-Type: ${headers['Content-Type']}`);

      const transcript = await server.client.get(`/v1/transactions/${returned.token}/transcript`);
      for (const form of FORMS) expect(transcript.text).not.toContain(form);
      if (expected === OMITTED) expect(transcript.text).toContain(`${OMITTED} (${body.length} bytes, ${headers['Content-Type']}`);
    });
  }

  it('scrubs a dotted PAN in a response header, in JSON and XML', async () => {
    for (const format of ['json', 'xml'] as const) {
      receiver.answer = { kind: 'fixed', status: 200, headers: { 'Content-Type': 'text/plain', 'X-Card': grouped('.'), 'X-Other': '5555-5555-5555-4444' }, body: Buffer.from('ok') };
      const res = await deliver(format, false);
      expect(res.status).toBe(200);
      const returned = returnedBody(format, res);
      expect(returned.headers).toContain('X-Card: [FILTERED]');
      expect(returned.headers).toContain('X-Other: [FILTERED]');
      expect(res.text).not.toContain(grouped('.'));
    }
  });

  it('keeps none of the forms in the database', async () => {
    const stored = await storedBytes(server);
    const asText = stored.toString('utf8');
    for (const form of [...FORMS, grouped('.')]) expect(asText).not.toContain(form);
    expect(stored.includes(Buffer.from(PAN, 'utf16le'))).toBe(false);
  });
});
