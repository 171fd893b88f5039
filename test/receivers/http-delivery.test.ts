import type dns from 'node:dns';
import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { EgressGuard, EgressRefusedError, type LookupFunction } from '../../src/receivers/egress.js';
import {
  DeliveryFaultError,
  DeliveryInputError,
  DeliveryResultUnknownError,
  HttpDeliveryClient,
  parseHeaderLines,
  type DeliveryRequest,
} from '../../src/receivers/http-delivery.js';
import { MtlsReceiver, TestCa } from '../fakes/mtls-receiver.js';
import { RecordingReceiver } from '../fakes/recording-receiver.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * The delivery client against real servers on 127.0.0.1: what goes out byte for byte, what comes
 * back scrubbed, and how every way of failing is classified (nothing sent / maybe sent).
 */

const PAN = '4111111111111111';
const CVV = '123';
const SECRET = 'app-secret-5678&x y';

const guard = new EgressGuard(['127.0.0.1']);
const client = new HttpDeliveryClient(guard);

function delivery(url: string, extra: Partial<DeliveryRequest> = {}): DeliveryRequest {
  return { url, method: 'POST', headers: '', body: '', timeoutMs: 5000, sensitive: [PAN, CVV, SECRET], ...extra };
}

async function failure<T extends Error>(work: Promise<unknown>, type: new (...args: never[]) => T): Promise<T> {
  const error = await work.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

/** A port on 127.0.0.1 where nothing listens (bound, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('HttpDeliveryClient: what is sent', () => {
  let receiver: RecordingReceiver;
  let elsewhere: RecordingReceiver;

  beforeAll(async () => {
    receiver = await RecordingReceiver.start();
    elsewhere = await RecordingReceiver.start();
  });
  afterAll(async () => {
    await receiver?.close();
    await elsewhere?.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    elsewhere.received.length = 0;
    receiver.answer = { kind: 'fixed', status: 201, headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'r-1' }, body: '{"ok":true}' };
  });

  it('sends method, path, query, headers (order and case) and body exactly as rendered; Host and Content-Length are computed', async () => {
    const body = JSON.stringify({ card: PAN, cvv: CVV, note: 'héllo' });
    const result = await client.send(
      delivery(`${receiver.url}/v1/cards/add?merchant=7&mode=live`, {
        method: 'PUT',
        headers: 'Content-Type: application/json\r\nX-Api-Key: abc/def=\r\nAccept:  text/plain \nHost: evil.example\r\nContent-Length: 3\r\n',
        body,
      }),
    );
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0];
    expect(got?.method).toBe('PUT');
    expect(got?.target).toBe('/v1/cards/add?merchant=7&mode=live');
    expect(got?.body).toBe(body);
    const template = got?.rawHeaders.filter(([name]) => ['Content-Type', 'X-Api-Key', 'Accept'].includes(name));
    expect(template).toEqual([
      ['Content-Type', 'application/json'],
      ['X-Api-Key', 'abc/def='],
      ['Accept', 'text/plain'],
    ]);
    expect(got?.headers.host).toBe(`127.0.0.1:${receiver.port}`);
    expect(got?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(result).toMatchObject({ status: 201, body: '{"ok":true}' });
    expect(result.headers).toContain('Content-Type: application/json');
    expect(result.headers).toContain('X-Request-Id: r-1');
    expect(result.headers.split('\r\n').every((line) => /^[A-Z][A-Za-z-]*: /.test(line))).toBe(true);
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('sends Connection: close, as Spreedly does, whatever the template says; the transcript shows it', async () => {
    const result = await client.send(delivery(`${receiver.url}/deliver`, { headers: 'Connection: keep-alive\r\nKeep-Alive: timeout=5', body: '{}' }));
    const got = receiver.received[0];
    expect(got?.headers.connection).toBe('close');
    expect(got?.headers['keep-alive']).toBeUndefined();
    expect(result.transcript).toContain('Content-Length: 2\nConnection: close\n\n{}');
    await client.send(delivery(`${receiver.url}/status`, { method: 'GET' }));
    expect(receiver.received[1]?.headers.connection).toBe('close');
  });

  it('GET and DELETE with an empty body send no body', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      await client.send(delivery(`${receiver.url}/status`, { method }));
    }
    expect(receiver.received.map((r) => [r.method, r.body, r.headers['content-length']])).toEqual([
      ['GET', '', undefined],
      ['DELETE', '', undefined],
    ]);
  });

  it('never follows a redirect: the 302 is the answer, the other server receives nothing', async () => {
    receiver.answer = { kind: 'fixed', status: 302, headers: { Location: `${elsewhere.url}/stolen?card=${PAN}` }, body: '' };
    const result = await client.send(delivery(`${receiver.url}/deliver`, { body: `card=${PAN}` }));
    expect(result.status).toBe(302);
    expect(result.headers).toContain(`Location: ${elsewhere.url}/stolen?card=[FILTERED]`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(elsewhere.received).toHaveLength(0);
    expect(receiver.received).toHaveLength(1);
  });

  it('refuses a destination outside the allowance before sending anything (EgressRefusedError)', async () => {
    const strict = new HttpDeliveryClient(new EgressGuard([]));
    const error = await failure(strict.send(delivery(`${receiver.url}/x?card=${PAN}`, { body: PAN })), EgressRefusedError);
    expect(error.message).toBe('Egress to 127.0.0.1 refused: loopback address.');
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses URLs it cannot use: not absolute, another scheme, user info', async () => {
    const notUrl = await failure(client.send(delivery('/relative/path')), DeliveryInputError);
    expect(notUrl.attribute).toBe('url');
    expect(notUrl.toAppError().entries).toEqual([{ key: 'errors.invalid', attribute: 'url', message: 'Url is invalid' }]);
    expect((await failure(client.send(delivery(`ftp://127.0.0.1:${receiver.port}/`)), EgressRefusedError)).reason).toBe('scheme not allowed');
    expect((await failure(client.send(delivery(`http://u:${SECRET}@127.0.0.1:${receiver.port}/`)), EgressRefusedError)).reason).toBe('credentials in the URL');
    expect(receiver.received).toHaveLength(0);
  });
});

describe('HttpDeliveryClient: header lines are parsed strictly', () => {
  let receiver: RecordingReceiver;
  beforeAll(async () => {
    receiver = await RecordingReceiver.start();
  });
  afterAll(() => receiver?.close());

  it.each([
    ['a lone CR (CRLF injection)', 'X-A: 1\rX-Injected: 2', 'line 1 has a control character in its value'],
    ['a NUL in a value', 'X-A: a\u0000b', 'line 1 has a control character in its value'],
    ['a name with a space', 'Bad Name: x', 'line 1 has an invalid header name'],
    ['a folded continuation line', 'X-A: 1\r\n  X-Folded: 2', 'line 2 has an invalid header name'],
    ['a line without a colon', 'X-A: 1\nNoColon', 'line 2 is not "Name: value"'],
    ['an empty name', ': value', 'line 1 is not "Name: value"'],
    ['a value beyond Latin-1', 'X-Emoji: \u{1F600}', 'line 1 has a control character in its value'],
  ])('refuses %s: DeliveryInputError on headers, 422 errors.invalid, nothing sent', async (_what, headers, reason) => {
    const error = await failure(client.send(delivery(`${receiver.url}/`, { headers: `${headers}\r\nAuthorization: Bearer ${SECRET}`, body: PAN })), DeliveryInputError);
    expect(error.attribute).toBe('headers');
    expect(error.reason).toBe(reason);
    expect(error.message).toBe(`The delivery headers is invalid: ${reason}.`);
    expect(error.message).not.toContain(SECRET);
    const appError = error.toAppError();
    expect(appError).toBeInstanceOf(AppError);
    expect(appError.status).toBe(422);
    expect(appError.entries).toEqual([{ key: 'errors.invalid', attribute: 'headers', message: 'Headers is invalid' }]);
    expect(receiver.received).toHaveLength(0);
  });

  it('accepts \\n or \\r\\n separators, blank lines, repeated names, and drops headers the transport owns', () => {
    expect(parseHeaderLines('A: 1\n\nB:2\r\nA: 3\r\nConnection: close\nTransfer-Encoding: chunked\nExpect: 100-continue\n')).toEqual([
      ['A', '1'],
      ['B', '2'],
      ['A', '3'],
    ]);
    expect(parseHeaderLines('')).toEqual([]);
  });
});

describe('HttpDeliveryClient: failures', () => {
  let receiver: RecordingReceiver;
  beforeAll(async () => {
    receiver = await RecordingReceiver.start();
  });
  afterAll(() => receiver?.close());
  beforeEach(() => {
    receiver.received.length = 0;
  });

  it('a receiver that never answers: DeliveryResultUnknownError after about the timeout', async () => {
    receiver.answer = { kind: 'hang' };
    const { value: error, ms } = await timed(failure(client.send(delivery(`${receiver.url}/slow?card=${PAN}`, { body: `{"cvv":"${CVV}"}`, timeoutMs: 600 })), DeliveryResultUnknownError));
    expect(ms).toBeGreaterThanOrEqual(550);
    expect(ms).toBeLessThan(1500);
    expect(error.message).toBe('The receiver did not answer in time.');
    expect(error.detail).toBe('timeout');
    expect(error.transcript).toContain('[!!] timeout after');
    expect(error.transcript).toContain('/slow?card=[FILTERED]');
    expect(error.transcript).not.toContain(PAN);
    expect(error.transcript).not.toContain(`"${CVV}"`);
    expect(receiver.received).toHaveLength(1);
  });

  it('a connection lost after the request was read: DeliveryResultUnknownError at once', async () => {
    receiver.answer = { kind: 'reset' };
    const { value: error, ms } = await timed(failure(client.send(delivery(`${receiver.url}/`, { body: 'x' })), DeliveryResultUnknownError));
    expect(ms).toBeLessThan(1000);
    expect(error.message).toBe('The connection to the receiver was lost.');
    expect(receiver.received).toHaveLength(1);
  });

  it('a refused port: DeliveryFaultError, nothing in the message but the fact', async () => {
    const port = await closedPort();
    const error = await failure(client.send(delivery(`http://127.0.0.1:${port}/deliver?card=${PAN}`, { body: PAN })), DeliveryFaultError);
    expect(error.message).toBe('Unable to connect to the receiver.');
    expect(error.detail).toBe('ECONNREFUSED');
    expect(`${error.message} ${error.detail}`).not.toContain(PAN);
    expect(error.transcript).toContain('[!!] ECONNREFUSED after');
    expect(findCardData(error.transcript)).toEqual([]);
  });

  it('a TLS handshake that never completes: DeliveryFaultError (nothing sent) after about the timeout', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const sockets: net.Socket[] = [];
    silent.on('connection', (socket) => sockets.push(socket));
    try {
      const { port } = silent.address() as net.AddressInfo;
      const { value: error, ms } = await timed(failure(client.send(delivery(`https://127.0.0.1:${port}/`, { body: PAN, timeoutMs: 500 })), DeliveryFaultError));
      expect(ms).toBeGreaterThanOrEqual(450);
      expect(ms).toBeLessThan(1500);
      expect(error.message).toBe('Unable to connect to the receiver in time.');
      expect(error.detail).toBe('connect_timeout');
      expect(error.transcript).toContain('[!!] connect_timeout after');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('an answer over 1 MiB: DeliveryFaultError, not read into memory', async () => {
    receiver.answer = { kind: 'huge', bytes: 3 * 1024 * 1024 };
    const error = await failure(client.send(delivery(`${receiver.url}/big`, { body: 'x' })), DeliveryFaultError);
    expect(error.message).toBe('The receiver response was too large.');
    expect(error.detail).toBe('over_1048576_bytes');
    receiver.answer = { kind: 'huge', bytes: 1024 * 1024 };
    expect((await client.send(delivery(`${receiver.url}/big`, { body: 'x' }))).body).toHaveLength(1024 * 1024);
  });

  it('DNS that never answers: DeliveryFaultError after about the timeout (the deadline covers resolution too)', async () => {
    const silentDns: LookupFunction = () => undefined;
    const { value: error, ms } = await timed(failure(new HttpDeliveryClient(new EgressGuard([], silentDns)).send(delivery('https://slow-dns.example/', { timeoutMs: 400 })), DeliveryFaultError));
    expect(ms).toBeGreaterThanOrEqual(350);
    expect(ms).toBeLessThan(1500);
    expect(error.message).toBe('The receiver host could not be resolved in time.');
    expect(error.detail).toBe('dns_timeout');
  });

  it('a name that does not resolve: DeliveryFaultError', async () => {
    const nxdomain: LookupFunction = (_host, _options, callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) =>
      callback(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), []);
    const error = await failure(new HttpDeliveryClient(new EgressGuard([], nxdomain)).send(delivery('https://nowhere.example/')), DeliveryFaultError);
    expect(error.message).toBe('Unable to resolve the receiver host.');
    expect(error.detail).toBe('ENOTFOUND');
  });
});

describe('HttpDeliveryClient: scrubbing', () => {
  let receiver: RecordingReceiver;
  beforeAll(async () => {
    receiver = await RecordingReceiver.start();
  });
  afterAll(() => receiver?.close());

  it('a receiver that echoes PAN, CVV and a secret: transcript and returned response hold [FILTERED] instead', async () => {
    receiver.answer = { kind: 'echo' };
    const body = JSON.stringify({ card: PAN, cvv: CVV, password: SECRET, spaced: '4111 1111 1111 1111', form: `s=${encodeURIComponent(SECRET)}`, total: 1234 });
    const result = await client.send(
      delivery(`${receiver.url}/echo?pan=${PAN}&secret=${encodeURIComponent(SECRET)}`, {
        headers: `Content-Type: application/json\r\nX-Echo: ${PAN}|${CVV}\r\nAuthorization: Basic ${Buffer.from(`u:${SECRET}`).toString('base64')}`,
        body,
      }),
    );
    // Delivered in full…
    expect(receiver.received[0]?.body).toBe(body);
    // …and nothing of it kept.
    for (const text of [result.transcript, result.body, result.headers]) {
      expect(text).not.toContain(PAN);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(encodeURIComponent(SECRET));
      expect(text).not.toMatch(/(?<!\d)123(?!\d)/);
      expect(findCardData(text, [PAN, SECRET])).toEqual([]);
    }
    expect(JSON.parse(result.body)).toMatchObject({ card: '[FILTERED]', cvv: '[FILTERED]', password: '[FILTERED]', spaced: '[FILTERED]', total: 1234 });
    expect(result.headers).toContain('X-Echoed: [FILTERED]|[FILTERED]');
    expect(result.transcript).toContain(`[*>] POST http://127.0.0.1:${receiver.port}/echo?pan=[FILTERED]&secret=[FILTERED]`);
    expect(result.transcript).toContain('Authorization: Basic [FILTERED]');
    expect(result.transcript).toMatch(/\[<\*\] Response 200 received in \d+ms\nContent-Type: application\/json/);
  });

  it('encode_response: base64 of the scrubbed bytes, binary content intact', async () => {
    const binary = Buffer.concat([Buffer.from([0, 1, 2, 0xff, 0xfe]), Buffer.from(`card=${PAN};`), Buffer.from([0x80, 0x81])]);
    receiver.answer = { kind: 'fixed', status: 200, headers: { 'Content-Type': 'application/octet-stream' }, body: binary };
    const result = await client.send(delivery(`${receiver.url}/file`, { body: 'x', encodeResponse: true }));
    const decoded = Buffer.from(result.body, 'base64');
    expect(decoded.equals(Buffer.concat([Buffer.from([0, 1, 2, 0xff, 0xfe]), Buffer.from('card=[FILTERED];'), Buffer.from([0x80, 0x81])]))).toBe(true);
    expect(result.transcript).not.toContain(PAN);
  });
});

describe('HttpDeliveryClient: TLS and mTLS', () => {
  let ca: TestCa;
  let otherCa: TestCa;
  let mtls: MtlsReceiver;
  const pinTo127: LookupFunction = (_host, _options, callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) =>
    callback(null, [{ address: '127.0.0.1', family: 4 }]);

  beforeAll(async () => {
    ca = await TestCa.create();
    otherCa = await TestCa.create('Someone Else CA');
    mtls = await MtlsReceiver.start({ ca, dnsNames: ['receiver.test'], requireClientCert: true });
  });
  afterAll(() => mtls?.close());

  const trusting = () => new HttpDeliveryClient(new EgressGuard(['receiver.test', '127.0.0.1'], pinTo127), { extraCaPem: ca.pem });

  it('delivers with the client certificate to a server that requires one, verifying the server by name (SNI)', async () => {
    const clientCertificate = await ca.issueClient('coffer-merchant-7');
    const result = await trusting().send(delivery(`https://receiver.test:${mtls.port}/mtls`, { body: 'hello', clientCertificate }));
    expect(result.status).toBe(200);
    expect(result.body).toBe('accepted');
    expect(mtls.received.at(-1)).toMatchObject({ method: 'POST', target: '/mtls', body: 'hello', servername: 'receiver.test', clientCommonName: 'coffer-merchant-7' });
  });

  it('without a client certificate the server refuses the session by a TLS alert: DeliveryFaultError (its HTTP layer saw nothing)', async () => {
    const before = mtls.received.length;
    const missing = await failure(trusting().send(delivery(`https://receiver.test:${mtls.port}/mtls`, { body: PAN })), DeliveryFaultError);
    expect(missing.message).toBe('Unable to connect to the receiver.');
    // TLS 1.3: the refusal comes as an alert after the client's side of the handshake; undici alone would say "other side closed".
    expect(missing.detail).toBe('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED');
    expect(missing.message + missing.detail + missing.transcript).not.toContain(PAN);
    expect(mtls.received.length).toBe(before);
    expect(mtls.refusedHandshakes).toBeGreaterThanOrEqual(1);
  });

  it('a certificate from another CA: node:https drops the connection after the handshake without an alert, which cannot be told from a lost answer', async () => {
    const before = mtls.received.length;
    const foreign = await failure(
      trusting().send(delivery(`https://receiver.test:${mtls.port}/mtls`, { body: PAN, clientCertificate: await otherCa.issueClient('intruder') })),
      DeliveryResultUnknownError,
    );
    expect(foreign.message).toBe('The connection to the receiver was lost.');
    // "other side closed", or a reset when the close overtakes the request on the wire.
    expect(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']).toContain(foreign.detail);
    expect(mtls.received.length).toBe(before);
  });

  it('normal certificate verification stays on: an unknown CA, or a name the certificate does not carry, is a fault', async () => {
    const clientCertificate = await ca.issueClient('coffer-merchant-7');
    const untrusted = new HttpDeliveryClient(new EgressGuard(['receiver.test'], pinTo127));
    const unknownCa = await failure(untrusted.send(delivery(`https://receiver.test:${mtls.port}/`, { clientCertificate })), DeliveryFaultError);
    expect(unknownCa.detail).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN/);
    const wrongName = new HttpDeliveryClient(new EgressGuard(['other.test'], pinTo127), { extraCaPem: ca.pem });
    const mismatch = await failure(wrongName.send(delivery(`https://other.test:${mtls.port}/`, { clientCertificate })), DeliveryFaultError);
    expect(mismatch.detail).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
  });
});
