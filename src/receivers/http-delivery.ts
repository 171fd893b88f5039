import tls from 'node:tls';
import { buildConnector, Client } from 'undici';
import { Scrubber } from '../domain/scrubbing/scrubber.js';
import { readCappedBody } from '../gateways/kit/read-capped-body.js';
import { scrubTranscript } from '../gateways/kit/scrub.js';
import { DeliveryFaultError, DeliveryInputError, DeliveryResultUnknownError } from './delivery-errors.js';
import { EgressLookupError, EgressRefusedError, pinnedLookup, type EgressGuard, type PinnedTarget } from './egress.js';
import { scrubResponseBody } from './response-body.js';

export { DeliveryFaultError, DeliveryInputError, DeliveryResultUnknownError } from './delivery-errors.js';

/** One rendered delivery: what to send where. */
export interface DeliveryRequest {
  url: string;
  method: 'POST' | 'PUT' | 'PATCH' | 'GET' | 'DELETE';
  /** Header lines "Name: value" separated by \r\n or \n (Spreedly's single-string form). */
  headers: string;
  body: string;
  timeoutMs: number;
  /** Client certificate for mTLS (PEM), when the receiver names one. */
  clientCertificate?: { cert: string; key: string };
  /** Values to replace by [FILTERED] in transcript and returned response (PAN, CVV, bank numbers, unsafe credentials). */
  sensitive: string[];
  /** Base64-encode the returned body (encode_response). */
  encodeResponse?: boolean;
}

/** The receiver's answer, scrubbed. Any status is an answer, 3xx included (never followed). */
export interface DeliveryResult {
  status: number;
  /** "Name: value" lines joined by \r\n. */
  headers: string;
  /** Decoded and scrubbed; base64 of the scrubbed bytes when `encodeResponse`; UNSCRUBBABLE_BODY when it cannot be scrubbed with certainty. */
  body: string;
  transcript: string;
  latencyMs: number;
}

/** How the client reaches receivers. */
export interface DeliveryClientOptions {
  /** PEM of CAs trusted in addition to Node's roots (COFFER_OUTBOUND_CA_FILE), for private PKIs. */
  extraCaPem?: string;
}

/** Largest receiver answer read; more is a fault, not a memory problem. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Controls other than HTAB (a lone CR included), DEL, and anything beyond Latin-1 (undici writes headers as latin1). */
function badHeaderValue(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f || code > 0xff) return true;
  }
  return false;
}
/** Headers the transport computes (Host, Content-Length) or owns (connection management: always `close`). */
const COMPUTED_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-connection']);

/**
 * Parses Spreedly's single-string headers strictly. Blank lines are skipped; a line that is not
 * `Name: value` with a token name and a value free of control characters is refused (no header
 * injection through a rendered value). Host, Content-Length and hop-by-hop headers are dropped:
 * the transport computes them.
 */
export function parseHeaderLines(text: string): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  const lines = text.split(/\r\n|\n/);
  for (const [index, line] of lines.entries()) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new DeliveryInputError('headers', `line ${index + 1} is not "Name: value"`);
    const name = line.slice(0, colon);
    if (!HEADER_NAME.test(name)) throw new DeliveryInputError('headers', `line ${index + 1} has an invalid header name`);
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    if (badHeaderValue(value)) throw new DeliveryInputError('headers', `line ${index + 1} has a control character in its value`);
    if (!COMPUTED_HEADERS.has(name.toLowerCase())) headers.push([name, value]);
  }
  return headers;
}

/** "content-type" → "Content-Type": undici gives names in lower case. */
function headerCase(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`);
}

function headerString(headers: Record<string, string | string[] | undefined>): string {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    for (const item of Array.isArray(value) ? value : [value ?? '']) lines.push(`${headerCase(name)}: ${item}`);
  }
  return lines.join('\r\n');
}

/** Node's string code of a transport error; a DOMException's numeric `code` (23 for a timeout) is not one: its name is. */
function errorCode(error: unknown): string {
  const withCode = error as { code?: unknown; cause?: { code?: unknown } };
  if (typeof withCode.code === 'string') return withCode.code;
  if (typeof withCode.cause?.code === 'string') return withCode.cause.code;
  return (error as Error).name;
}

/** The peer's TLS layer refused the session (handshake, certificate, alert): its HTTP layer never saw the request. */
const TLS_REFUSAL = /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|EPROTO$)/;

class ResponseTooLarge extends Error {}

/** Resolves with `work`, or rejects when `signal` aborts first (work that cannot be cancelled, like DNS). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Sends one rendered delivery to a receiver (ARCHITECTURE.md habit 8): the URL goes through the
 * egress guard, the connection goes to the pinned address (TLS still verifies the host name),
 * redirects are never followed, one deadline covers DNS, connect, headers and body, and the answer
 * is capped at 1 MiB. One undici Client per delivery, destroyed afterwards: pinning is per call.
 */
export class HttpDeliveryClient {
  private readonly ca: string[] | undefined;

  constructor(
    private readonly guard: EgressGuard,
    options: DeliveryClientOptions = {},
  ) {
    this.ca = options.extraCaPem === undefined ? undefined : [...tls.rootCertificates, options.extraCaPem];
  }

  async send(request: DeliveryRequest): Promise<DeliveryResult> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw new DeliveryInputError('url', 'it is not an absolute URL');
    }
    const headers = parseHeaderLines(request.headers);
    const scrubber = Scrubber.of(request.sensitive);
    const clean = (text: string) => scrubTranscript(scrubber.text(text));
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);

    const computed = [`Host: ${url.host}`, ...(request.body === '' ? [] : [`Content-Length: ${Buffer.byteLength(request.body)}`]), 'Connection: close'];
    const headerLines = [...headers.map(([name, value]) => `${name}: ${value}`), ...computed].join('\n');
    const sentText = clean(`[*>] ${request.method} ${url.origin}${url.pathname}${url.search}\n${headerLines}\n\n${request.body}`);
    const failure = (kind: 'fault' | 'unknown', message: string, detail: string) => {
      const transcript = `${sentText}\n\n[!!] ${detail} after ${elapsed()}ms`;
      return kind === 'fault' ? new DeliveryFaultError(message, detail, transcript, elapsed()) : new DeliveryResultUnknownError(message, detail, transcript, elapsed());
    };

    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error('deadline')), request.timeoutMs);
    try {
      let target: PinnedTarget;
      try {
        target = await untilAborted(this.guard.check(url, ['http', 'https']), deadline.signal);
      } catch (error) {
        if (error instanceof EgressRefusedError) throw error;
        if (error instanceof EgressLookupError) throw failure('fault', 'Unable to resolve the receiver host.', error.code);
        if (deadline.signal.aborted) throw failure('fault', 'The receiver host could not be resolved in time.', 'dns_timeout');
        throw error;
      }
      return await this.exchange(target, request, headers, deadline.signal, { scrubber, clean, sentText, started, failure });
    } finally {
      clearTimeout(timer);
    }
  }

  private async exchange(
    target: PinnedTarget,
    request: DeliveryRequest,
    headers: Array<[string, string]>,
    signal: AbortSignal,
    context: {
      scrubber: Scrubber;
      clean: (text: string) => string;
      sentText: string;
      started: number;
      failure: (kind: 'fault' | 'unknown', message: string, detail: string) => Error;
    },
  ): Promise<DeliveryResult> {
    const { url } = target;
    const connector = buildConnector({
      lookup: pinnedLookup(target),
      // The delivery's deadline decides; undici's own connect timeout is only a backstop behind it.
      timeout: request.timeoutMs + 1_000,
      rejectUnauthorized: true,
      ...(this.ca === undefined ? {} : { ca: this.ca }),
      ...(request.clientCertificate === undefined ? {} : { cert: request.clientCertificate.cert, key: request.clientCertificate.key }),
    });
    // With TLS 1.3 a server refuses a client certificate (or its absence) only after the client
    // has finished the handshake, by an alert; undici then reports "other side closed". The
    // socket's own first error keeps the alert, which says the server's HTTP layer saw nothing.
    let socketError: string | null = null;
    const client = new Client(url.origin, {
      connect: (options, callback) =>
        connector(options, (error, socket) => {
          socket?.on('error', (socketFailure: Error) => {
            socketError ??= errorCode(socketFailure);
          });
          if (error === null) callback(null, socket as NonNullable<typeof socket>);
          else callback(error, null);
        }),
      headersTimeout: request.timeoutMs,
      bodyTimeout: request.timeoutMs,
    });
    // Until the connection (TLS included) is up, undici has written nothing: any failure is a fault.
    let connected = false;
    client.on('connect', () => {
      connected = true;
    });
    // undici only acts on an aborted request once it has a socket; a connect or TLS handshake that
    // hangs must end at the deadline too, so the deadline tears the whole client down.
    const onDeadline = () => void client.destroy(new Error('deadline')).catch(() => undefined);
    signal.addEventListener('abort', onDeadline, { once: true });
    try {
      const response = await client.request({
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers: headers.flat(),
        body: request.body === '' && (request.method === 'GET' || request.method === 'DELETE') ? null : request.body,
        // `Connection: close`, as Spreedly's deliveries are seen: the client is destroyed after this
        // one exchange anyway, so the receiver should not hold a keep-alive socket for it (docs/receivers.md).
        reset: true,
        signal,
      });
      const capped = await readCappedBody(response.body, MAX_RESPONSE_BYTES);
      if (capped === null) throw new ResponseTooLarge();
      const latencyMs = Math.round(performance.now() - context.started);
      const body = await scrubResponseBody(capped, response.headers, context.scrubber, request.encodeResponse === true);
      const responseHeaders = context.clean(headerString(response.headers));
      const received = `[<*] Response ${response.statusCode} received in ${latencyMs}ms\n${responseHeaders.replace(/\r\n/g, '\n')}\n\n${body.transcript}`;
      return {
        status: response.statusCode,
        headers: responseHeaders,
        // The field rules of transcripts apply to a text body too (a "cvv" field of another card).
        body: body.omitted || request.encodeResponse === true ? body.body : scrubTranscript(body.body),
        transcript: `${context.sentText}\n\n${context.clean(received)}`,
        latencyMs,
      };
    } catch (error) {
      if (error instanceof ResponseTooLarge) throw context.failure('fault', 'The receiver response was too large.', `over_${MAX_RESPONSE_BYTES}_bytes`);
      if (signal.aborted) {
        throw connected
          ? context.failure('unknown', 'The receiver did not answer in time.', 'timeout')
          : context.failure('fault', 'Unable to connect to the receiver in time.', 'connect_timeout');
      }
      const code = socketError !== null && TLS_REFUSAL.test(socketError) ? socketError : errorCode(error);
      if (!connected || TLS_REFUSAL.test(code)) throw context.failure('fault', 'Unable to connect to the receiver.', code);
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') throw context.failure('unknown', 'The receiver did not answer in time.', code);
      throw context.failure('unknown', 'The connection to the receiver was lost.', code);
    } finally {
      signal.removeEventListener('abort', onDeadline);
      await client.destroy().catch(() => undefined);
    }
  }
}
