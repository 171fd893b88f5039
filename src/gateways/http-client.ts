import { Agent, errors as undiciErrors, request } from 'undici';
import { GatewayFaultError, GatewayResultUnknownError, type TranscriptEntry } from './adapter.js';
import { scrubTranscript } from './scrub.js';

export interface OutboundRequest {
  method: 'GET' | 'POST' | 'DELETE';
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

function errorCode(error: unknown): string {
  const withCode = error as { code?: string; cause?: { code?: string } };
  return withCode.code ?? withCode.cause?.code ?? (error as Error).name;
}

/**
 * The one outbound HTTP client every adapter uses: connection pooling (undici), a hard timeout
 * per call, a response size cap, and a transcript of each exchange scrubbed before it is kept.
 * Transport failures become typed errors: `GatewayFaultError` when nothing can have reached the
 * gateway, `GatewayResultUnknownError` when it may have (timeouts, connections lost mid-way).
 */
export class GatewayHttpClient {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });

  async send(outbound: OutboundRequest, transcript: TranscriptEntry[], scrub: (text: string) => string = (t) => t): Promise<OutboundResponse> {
    const clean = (text: string) => scrubTranscript(scrub(text));
    const target = new URL(outbound.url);
    const headerLines = Object.entries(outbound.headers).map(([name, value]) => `${name}: ${value}`).join('\n');
    transcript.push({ text: clean(`[*>] ${outbound.method} ${target.origin}${target.pathname}\n${headerLines}\n\n${outbound.body ?? ''}`) });
    const started = performance.now();
    try {
      const response = await request(outbound.url, {
        method: outbound.method,
        headers: outbound.headers,
        body: outbound.body,
        dispatcher: this.agent,
        headersTimeout: outbound.timeoutMs,
        bodyTimeout: outbound.timeoutMs,
        signal: AbortSignal.timeout(outbound.timeoutMs),
        maxRedirections: 0,
      } as Parameters<typeof request>[1]);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_RESPONSE_BYTES) {
          response.body.destroy();
          throw new GatewayFaultError('The gateway response was too large.', `over ${MAX_RESPONSE_BYTES} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const latencyMs = Math.round(performance.now() - started);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
      transcript.push({ text: clean(`[<*] Response ${response.statusCode} received in ${latencyMs}ms\n\n${body}`) });
      return { status: response.statusCode, headers, body, latencyMs };
    } catch (error) {
      if (error instanceof GatewayFaultError) throw error;
      const code = errorCode(error);
      transcript.push({ text: `[!!] ${code} after ${Math.round(performance.now() - started)}ms` });
      if (NOT_SENT.has(code)) throw new GatewayFaultError('Unable to connect to the gateway.', code);
      if (error instanceof undiciErrors.RequestAbortedError || code === 'TimeoutError' || code === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
        throw new GatewayResultUnknownError('The gateway did not answer in time.', code);
      }
      throw new GatewayResultUnknownError('The connection to the gateway was lost.', code);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
