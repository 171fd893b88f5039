import { blankResponse, GatewayFaultError, GatewayInputError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from './contract.js';
import type { GatewayHttpClient, OutboundRequest, OutboundResponse } from './http-client.js';
import type { GatewayModule, InquiryAnswer } from './gateway-module.js';
import { formEncode, type FormValue } from './form.js';
import { scrubLiterals, scrubWith, type ScrubRule } from './scrub.js';
import { credentialFields } from './credentials.js';

/** How calls of one gateway go out: the shared client, the operator's origin override, the timeout. */
export interface ChannelSettings {
  http: GatewayHttpClient;
  /** This gateway type's entry of COFFER_GATEWAY_ENDPOINTS: replaces the origin only, never the path. */
  override?: string | undefined;
  timeoutMs: number;
}

export interface ChannelRequest {
  method: OutboundRequest['method'];
  /** Appended to the gateway's base URL for this call (`/v71/payments`), query string included. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * `url` with its scheme, host and port replaced by those of `override` (a local fake, a regional
 * front): the documented path, API version included, is kept.
 */
export function withOriginOverride(url: string, override: string | undefined): string {
  if (override === undefined) return url;
  const target = new URL(url);
  const origin = new URL(override);
  return `${origin.origin}${target.pathname}${target.search}`;
}

/**
 * The way to the gateway for one call: builds URLs from the gateway's endpoint, applies the
 * override, sends through the shared client (timeout, egress guard, size cap) and records the
 * exchange in the transcript, scrubbed by the gateway's rules, the shared rules, and the literal
 * values of this call's secret credentials and card number.
 */
export class GatewayChannel {
  /** Requests handed to the client so far (any of them may have reached the gateway). */
  sent = 0;
  private readonly scrub: ScrubRule;

  constructor(
    private readonly module: GatewayModule,
    private readonly request: GatewayRequest,
    private readonly transcript: TranscriptEntry[],
    private readonly settings: ChannelSettings,
  ) {
    this.scrub = scrubWith(module.scrub, scrubLiterals(secretValues(module, request)));
  }

  /** The full URL of `path` for this call (test or live base, then the override). */
  url(path: string): string {
    if (this.module.endpoint === null) throw new Error(`${this.module.definition.gatewayType} has no endpoint`);
    return withOriginOverride(`${this.module.endpoint(this.request)}${path}`, this.settings.override);
  }

  get timeoutMs(): number {
    return this.settings.timeoutMs;
  }

  /** One exchange. Transport failures are thrown as GatewayFaultError or GatewayResultUnknownError. */
  async send(outbound: ChannelRequest): Promise<OutboundResponse> {
    const url = this.url(outbound.path);
    this.sent += 1;
    return this.settings.http.send(
      { method: outbound.method, url, headers: outbound.headers ?? {}, ...(outbound.body === undefined ? {} : { body: outbound.body }), timeoutMs: this.settings.timeoutMs },
      this.transcript,
      this.scrub,
    );
  }

  /** POSTs `body` as JSON (undefined fields left out). */
  postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<OutboundResponse> {
    return this.send({ method: 'POST', path, headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify(body) });
  }

  /** POSTs `fields` form-encoded with bracketed nesting. */
  postForm(path: string, fields: Record<string, FormValue>, headers: Record<string, string> = {}): Promise<OutboundResponse> {
    return this.send({ method: 'POST', path, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: formEncode(fields) });
  }

  /** POSTs an XML document (see `xmlDocument`). */
  postXml(path: string, document: string, headers: Record<string, string> = {}): Promise<OutboundResponse> {
    return this.send({ method: 'POST', path, headers: { 'content-type': 'application/xml', accept: 'application/xml', ...headers }, body: document });
  }

  /** A line of the adapter's own in the transcript (scrubbed like the rest). */
  note(text: string): void {
    this.transcript.push({ text: this.scrub(text) });
  }
}

/**
 * What must never appear in a transcript literally: secret credentials, the card number, bank
 * account numbers, a wallet token's DPAN and its cryptogram (scrubbed like a CVV: docs/wallets.md).
 */
function secretValues(module: GatewayModule, request: GatewayRequest): string[] {
  const fields = credentialFields(module.definition);
  const values = Object.entries(request.credentials)
    .filter(([name]) => fields.get(name)?.safe !== true)
    .map(([, secret]) => secret.reveal());
  const method = request.paymentMethod;
  if (method?.type === 'credit_card') values.push(method.number.reveal());
  if (method?.type === 'bank_account') values.push(method.accountNumber.reveal(), method.routingNumber.reveal());
  if (method?.type === 'apple_pay' || method?.type === 'google_pay') {
    values.push(method.number.reveal());
    if (method.cryptogram !== null) values.push(method.cryptogram.reveal());
  }
  return values;
}

/**
 * Runs one operation of a gateway module: the handler it implements (an operation it does not is
 * answered `unsupported_feature` without a call), a request it cannot express refused with its code
 * before anything is sent, and an adapter error after a request went out treated as an unknown
 * outcome (the gateway may have acted on it), never as a crash.
 */
export async function executeOperation(module: GatewayModule, request: GatewayRequest, transcript: TranscriptEntry[], settings: ChannelSettings): Promise<GatewayResponse> {
  const name = module.definition.name;
  const handler = module.operations[request.operation];
  if (handler === undefined) return { ...blankResponse(false, `${name} does not support ${request.operation}.`), errorCode: 'unsupported_feature' };
  const channel = new GatewayChannel(module, request, transcript, settings);
  try {
    return await handler({ request, http: channel });
  } catch (error) {
    // A fault after an earlier request of this operation went out (Worldpay's capture, PayPal's
    // order after its token) cannot prove the payment was not taken by that earlier request.
    if (error instanceof GatewayFaultError && error.notTaken && channel.sent > 1) throw new GatewayFaultError(error.message, error.detail, false);
    if (error instanceof GatewayFaultError || error instanceof GatewayResultUnknownError) throw error;
    if (error instanceof GatewayInputError && channel.sent === 0) {
      channel.note(`[!!] not sent: ${error.message}`);
      return { ...blankResponse(false, error.message), errorCode: error.code };
    }
    const detail = error instanceof Error ? error.name : 'error';
    if (channel.sent === 0) throw new GatewayFaultError(`${name} could not be called.`, `adapter ${detail}`, true);
    throw new GatewayResultUnknownError(`${name}'s answer could not be processed.`, `adapter ${detail}`);
  }
}

/**
 * Asks the gateway what became of `request` (a call whose result is unknown; docs/events.md), through
 * the same channel as an operation (timeouts, egress guard, transcript). A failure to ask is an
 * `unknown` answer: the caller asks again later.
 */
export async function executeInquiry(module: GatewayModule, request: GatewayRequest, transcript: TranscriptEntry[], settings: ChannelSettings): Promise<InquiryAnswer> {
  if (module.inquire === null) return { kind: 'unknown' };
  const channel = new GatewayChannel(module, request, transcript, settings);
  try {
    return await module.inquire({ request, http: channel });
  } catch {
    return { kind: 'unknown' };
  }
}
