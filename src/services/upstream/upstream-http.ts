import { Agent, request } from 'undici';
import { EgressLookupError, EgressRefusedError, pinnedLookup, type EgressGuard } from '../../receivers/egress.js';
import { readCappedBody } from '../../gateways/kit/read-capped-body.js';
import type { Secret } from '../../domain/secret.js';

/** Largest upstream answer read (a page of 100 payment methods is far below it). */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Where an upstream is and how to authenticate to it. */
export interface UpstreamEndpoint {
  url: string;
  environmentKey: string;
  accessSecret: Secret;
}

/** The upstream could not be reached or did not answer usably; nothing can be concluded about the token. */
export class UpstreamUnavailableError extends Error {
  constructor(readonly detail: string) {
    super(`The upstream vault is unavailable: ${detail}.`);
    this.name = 'UpstreamUnavailableError';
  }
}

/** The upstream answered 429: try again after `retryAfterMs`. */
export class UpstreamThrottledError extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`The upstream vault asked to wait ${Math.ceil(retryAfterMs / 1000)} s (429).`);
    this.name = 'UpstreamThrottledError';
  }
}

export interface UpstreamAnswer {
  status: number;
  body: unknown;
}

/** Retry-After in seconds or as an HTTP date (RFC 9110 §10.2.3); 1 s when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return 1_000;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? 1_000 : Math.max(0, date - now);
}

/**
 * JSON over HTTP to exactly one configured upstream (the egress guard resolves its host once per
 * call and the connection is pinned to that address, as for receivers; no redirects; a deadline
 * per call; the answer capped). The access secret goes only into the Authorization header.
 */
export class UpstreamHttp {
  private readonly pinned = new Map<string, { address: string; agent: Agent }>();

  constructor(
    private readonly guard: EgressGuard,
    private readonly timeoutMs: number,
  ) {}

  async call(endpoint: UpstreamEndpoint, method: 'GET' | 'POST', path: string, body?: unknown): Promise<UpstreamAnswer> {
    const base = new URL(endpoint.url);
    const target = new URL(path, base.origin);
    const agent = await this.agentFor(target);
    const auth = Buffer.from(`${endpoint.environmentKey}:${endpoint.accessSecret.reveal()}`, 'utf8').toString('base64');
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(target, {
        method,
        dispatcher: agent,
        headers: { authorization: `Basic ${auth}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new UpstreamUnavailableError(errorCode(error));
    }
    const raw = await readCappedBody(response.body, MAX_RESPONSE_BYTES);
    if (raw === null) throw new UpstreamUnavailableError('answer too large');
    if (response.statusCode === 429) throw new UpstreamThrottledError(retryAfterMs(response.headers['retry-after'], Date.now()));
    if (response.statusCode >= 500) throw new UpstreamUnavailableError(`HTTP ${response.statusCode}`);
    if (response.statusCode === 401 || response.statusCode === 403) throw new UpstreamUnavailableError(`HTTP ${response.statusCode}: the upstream refused the credentials`);
    let parsed: unknown = null;
    try {
      parsed = raw.length === 0 ? null : JSON.parse(raw.toString('utf8'));
    } catch {
      throw new UpstreamUnavailableError(`HTTP ${response.statusCode} with a body that is not JSON`);
    }
    return { status: response.statusCode, body: parsed };
  }

  private async agentFor(target: URL): Promise<Agent> {
    let resolved: { address: string; family: 4 | 6 };
    try {
      resolved = await this.guard.check(target, ['http', 'https']);
    } catch (error) {
      if (error instanceof EgressRefusedError) throw new UpstreamUnavailableError(`egress refused (${error.reason})`);
      if (error instanceof EgressLookupError) throw new UpstreamUnavailableError(`cannot resolve ${error.host}`);
      throw error;
    }
    const current = this.pinned.get(target.origin);
    if (current?.address === resolved.address) return current.agent;
    const agent = new Agent({ keepAliveTimeout: 10_000, connections: 8, connect: { lookup: pinnedLookup(resolved) } });
    this.pinned.set(target.origin, { address: resolved.address, agent });
    if (current !== undefined) void current.agent.close().catch(() => undefined);
    return agent;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pinned.values()].map((entry) => entry.agent.close().catch(() => undefined)));
    this.pinned.clear();
  }
}

/** Node's string code of a transport error; a DOMException's numeric `code` (23 for a timeout) is not one: its name is. */
function errorCode(error: unknown): string {
  const withCode = error as { code?: unknown; cause?: { code?: unknown } };
  if (typeof withCode.code === 'string') return withCode.code;
  if (typeof withCode.cause?.code === 'string') return withCode.cause.code;
  return (error as Error).name;
}
