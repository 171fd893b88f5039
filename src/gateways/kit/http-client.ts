import { Agent, errors as undiciErrors, request } from 'undici';
import { EgressLookupError, EgressRefusedError, pinnedLookup, type EgressGuard } from '../../receivers/egress.js';
import { GatewayFaultError, GatewayResultUnknownError, type TranscriptEntry } from './contract.js';
import { readCappedBody } from './read-capped-body.js';
import { scrubTranscript } from './scrub.js';

/** Destinations the operator chose (COFFER_GATEWAY_ENDPOINTS) go through the egress guard. */
export interface GatewayEgress {
  guard: EgressGuard;
  /** Base URLs of the endpoint overrides; a call whose origin is one of theirs is checked and pinned. */
  overrides: readonly string[];
}

export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  latencyMs: number;
}

/** Largest gateway answer read; more is a fault, not a memory problem. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/** Errors raised before any byte of the request could have been sent. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']);

/** Node's string code of a transport error; a DOMException's numeric `code` (23 for a timeout) is not one: its name is. */
function errorCode(error: unknown): string {
  const withCode = error as { code?: unknown; cause?: { code?: unknown } };
  if (typeof withCode.code === 'string') return withCode.code;
  if (typeof withCode.cause?.code === 'string') return withCode.cause.code;
  return (error as Error).name;
}

/**
 * The one outbound HTTP client every adapter uses: connection pooling (undici), a hard timeout
 * per call, a response size cap, and a transcript of each exchange scrubbed before it is kept.
 * Transport failures become typed errors: `GatewayFaultError` when nothing can have reached the
 * gateway, `GatewayResultUnknownError` when it may have (timeouts, connections lost mid-way).
 */
export class GatewayHttpClient {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
  private readonly guardedOrigins: ReadonlySet<string>;
  /** One pooled agent per guarded origin, pinned to the address its last check returned. */
  private readonly pinned = new Map<string, { address: string; agent: Agent }>();

  constructor(private readonly egress: GatewayEgress | null = null) {
    this.guardedOrigins = new Set((egress?.overrides ?? []).map((base) => new URL(base).origin));
  }

  async send(outbound: OutboundRequest, transcript: TranscriptEntry[], scrub: (text: string) => string = (t) => t): Promise<OutboundResponse> {
    const clean = (text: string) => scrubTranscript(scrub(text));
    const target = new URL(outbound.url);
    const headerLines = Object.entries(outbound.headers).map(([name, value]) => `${name}: ${value}`).join('\n');
    transcript.push({ text: clean(`[*>] ${outbound.method} ${target.origin}${target.pathname}\n${headerLines}\n\n${outbound.body ?? ''}`) });
    const dispatcher = await this.dispatcherFor(target, transcript, outbound.timeoutMs);
    const started = performance.now();
    try {
      const response = await request(outbound.url, {
        method: outbound.method,
        headers: outbound.headers,
        body: outbound.body,
        dispatcher,
        headersTimeout: outbound.timeoutMs,
        bodyTimeout: outbound.timeoutMs,
        signal: AbortSignal.timeout(outbound.timeoutMs),
        maxRedirections: 0,
      } as Parameters<typeof request>[1]);
      const raw = await readCappedBody(response.body, MAX_RESPONSE_BYTES);
      if (raw === null) throw new GatewayFaultError('The gateway response was too large.', `over ${MAX_RESPONSE_BYTES} bytes`);
      const body = raw.toString('utf8');
      const latencyMs = Math.round(performance.now() - started);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
      transcript.push({ text: clean(`[<*] Response ${response.statusCode} received in ${latencyMs}ms\n\n${body}`) });
      return { status: response.statusCode, headers, body, latencyMs };
    } catch (error) {
      if (error instanceof GatewayFaultError) throw error;
      const code = errorCode(error);
      transcript.push({ text: `[!!] ${code} after ${Math.round(performance.now() - started)}ms` });
      if (NOT_SENT.has(code)) throw new GatewayFaultError('Unable to connect to the gateway.', code, true);
      if (error instanceof undiciErrors.RequestAbortedError || code === 'TimeoutError' || code === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
        throw new GatewayResultUnknownError('The gateway did not answer in time.', code);
      }
      throw new GatewayResultUnknownError('The connection to the gateway was lost.', code);
    }
  }

  /**
   * The shared pool, or for an operator override the pool pinned to the address the egress guard
   * returns now (resolved once per call; a changed address gets a fresh pool). A refused or
   * unresolvable destination is a fault: nothing is sent.
   */
  private async dispatcherFor(target: URL, transcript: TranscriptEntry[], timeoutMs: number): Promise<Agent> {
    if (this.egress === null || !this.guardedOrigins.has(target.origin)) return this.agent;
    let address: string;
    let family: 4 | 6;
    let timer: NodeJS.Timeout | undefined;
    // DNS cannot be cancelled, but the call must not wait on a hung resolver beyond its timeout.
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new EgressLookupError(target.hostname, 'dns_timeout')), timeoutMs);
    });
    try {
      ({ address, family } = await Promise.race([this.egress.guard.check(target, ['http', 'https']), deadline]));
    } catch (error) {
      if (!(error instanceof EgressRefusedError) && !(error instanceof EgressLookupError)) throw error;
      const detail = error instanceof EgressRefusedError ? `egress refused (${error.reason})` : error.code;
      transcript.push({ text: `[!!] ${detail}` });
      throw new GatewayFaultError('Unable to connect to the gateway.', detail, true);
    } finally {
      clearTimeout(timer);
    }
    const current = this.pinned.get(target.origin);
    if (current?.address === address) return current.agent;
    const agent = new Agent({ keepAliveTimeout: 10_000, connections: 64, connect: { lookup: pinnedLookup({ address, family }) } });
    this.pinned.set(target.origin, { address, agent });
    // Calls still on the old pool finish there; close() waits for them.
    if (current !== undefined) void current.agent.close().catch(() => undefined);
    return agent;
  }

  async close(): Promise<void> {
    await Promise.all([this.agent.close(), ...[...this.pinned.values()].map((entry) => entry.agent.close())]);
  }
}
