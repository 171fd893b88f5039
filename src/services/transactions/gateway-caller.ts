import { AppError } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import type { GatewayCallConfig } from '../../config/config.js';
import { executeInquiry, executeOperation, GatewayFaultError, GatewayResultUnknownError, type AdapterPaymentMethod, type GatewayDefinition, type GatewayRequest, type GatewayResponse, type InquiryAnswer, type TranscriptEntry } from '../../gateways/kit/index.js';
import type { GatewayHttpClient } from '../../gateways/kit/http-client.js';
import { credentialFields, findGatewayModule } from '../../gateways/registry.js';
import { scrubberFor, scrubResponse, scrubTranscriptEntries } from '../../gateways/response-scrubbing.js';
import type { BreakerStore, InFlightLimiter } from '../../limits/circuit-breaker.js';
import type { Gateway } from '../../domain/gateway.js';

/** What gateway calls are made with: the shared client and the deployment's endpoint overrides. */
export interface AdapterContext {
  http: GatewayHttpClient;
  /** Origin override per gateway type (COFFER_GATEWAY_ENDPOINTS), e.g. a local fake in tests. */
  endpoints: Record<string, string>;
}

/** The result of one call: an answer (success, decline or pending), a fault, or an unknown outcome. */
export type CallOutcome =
  | { kind: 'answered'; response: GatewayResponse; latencyMs: number }
  | { kind: 'fault'; message: string; detail: string; latencyMs: number; /** The payment provably was not taken (GatewayFaultError.notTaken). */ notTaken: boolean }
  | { kind: 'unknown'; message: string; detail: string; latencyMs: number };

/** How one gateway call ended, as the metrics count it. */
export type GatewayCallResult = 'succeeded' | 'declined' | 'pending' | 'fault' | 'unknown' | 'error';

/** Why a call was refused before anything was sent. */
export type GatewayRefusal = 'circuit_open' | 'busy';

/** Told of every gateway call and refusal (the Prometheus metrics); must be cheap and never throw. */
export interface GatewayCallObserver {
  /** A call to this gateway was admitted: the breaker gauge lists the gateways this node has called. */
  admitted(gatewayToken: string, gatewayType: string): void;
  /** Nothing was sent: the gateway is followed all the same (its breaker may be open on every node). */
  refused(gatewayToken: string, gatewayType: string, reason: GatewayRefusal): void;
  finished(gatewayType: string, result: GatewayCallResult, seconds: number): void;
}

/** Per gateway type: its definition's names, no values, so it is kept for the process's life. */
const safeNamesByType = new Map<string, ReadonlySet<string>>();

/** The credential names a gateway type declares `safe` (echoed in its view): not scrubbed from what it answers. */
function safeCredentialNames(gatewayType: string): ReadonlySet<string> {
  let names = safeNamesByType.get(gatewayType);
  if (names === undefined) {
    const module = findGatewayModule(gatewayType);
    names = module === undefined ? new Set() : new Set([...credentialFields(module.definition)].filter(([, field]) => field.safe).map(([name]) => name));
    if (module !== undefined) safeNamesByType.set(gatewayType, names);
  }
  return names;
}

/** The result label of an answer. */
function resultOf(response: GatewayResponse): GatewayCallResult {
  if (response.pending) return 'pending';
  return response.success ? 'succeeded' : 'declined';
}

/** A slot to call one gateway: taken before the pending transaction is written, released after the call. */
export interface CallPermit {
  gatewayToken: string;
  /** This call is the breaker's half-open probe. */
  probe: boolean;
  /** Set once the call's outcome has been reported to the breaker. */
  reported: boolean;
  release(): void;
}

/**
 * Guards and performs gateway calls: the circuit breaker (API.md §8: 503 while open, nothing
 * sent), the per-gateway cap on calls in flight, the per-type timeout, and the classification of
 * what happened. Declines never count toward the breaker; faults and unknown results do.
 */
export class GatewayCaller {
  constructor(
    private readonly breaker: BreakerStore,
    private readonly inFlight: InFlightLimiter,
    private readonly context: AdapterContext,
    private readonly config: GatewayCallConfig,
    private readonly clock: Clock,
    private readonly observer: GatewayCallObserver | null = null,
  ) {}

  /**
   * Takes an in-flight slot, then asks the breaker; 503 (and nothing persisted) when either
   * refuses. The slot comes first so that a half-open probe is only handed to a caller that can
   * really send it; a probe released without having been sent is given back to the breaker.
   */
  async permit(gateway: Gateway, definition: GatewayDefinition): Promise<CallPermit> {
    if (!this.inFlight.tryAcquire(gateway.token)) {
      this.observer?.refused(gateway.token, gateway.gatewayType, 'busy');
      throw new AppError(
        { key: 'errors.gateway_busy', message: `Too many requests to ${definition.name} are in progress. Retry shortly.`, extra: { gateway_name: definition.name } },
        { 'Retry-After': '1' },
      );
    }
    let admission;
    try {
      admission = await this.breaker.admit(gateway.token, this.clock.now().getTime());
    } catch (error) {
      this.inFlight.release(gateway.token);
      throw error;
    }
    if (admission.kind === 'reject') {
      this.inFlight.release(gateway.token);
      this.observer?.refused(gateway.token, gateway.gatewayType, 'circuit_open');
      throw new AppError(
        { key: 'errors.circuit_breaker_open', message: `Requests to ${definition.name} are paused after repeated gateway errors. Retry later or use another gateway.`, extra: { gateway_name: definition.name } },
        { 'Retry-After': String(Math.max(1, admission.retryAfterSeconds)) },
      );
    }
    this.observer?.admitted(gateway.token, gateway.gatewayType);
    let released = false;
    const permit: CallPermit = {
      gatewayToken: gateway.token,
      probe: admission.kind === 'probe',
      reported: false,
      release: () => {
        if (released) return;
        released = true;
        this.inFlight.release(gateway.token);
        if (permit.probe && !permit.reported) void this.breaker.abandonProbe(gateway.token).catch(() => undefined);
      },
    };
    return permit;
  }

  /** How long one call to this gateway may take: its own setting, else its type's, else the deployment's. */
  timeoutMs(gateway: Gateway): number {
    const ownSeconds = gateway.settings.timeout_seconds;
    return ownSeconds !== undefined ? ownSeconds * 1000 : (this.config.timeoutMsByType[gateway.gatewayType] ?? this.config.timeoutMs);
  }

  /**
   * Runs the operation on the gateway type's module and records the outcome with the breaker. Whatever
   * the gateway wrote comes back through the call's scrubber (a decline text may echo the card;
   * docs/security.md, "Scrubbing what comes back from gateways and receivers"): the answer's texts,
   * the fault messages and the transcript. `concerning` is the payment method of a reference
   * transaction (not sent, but the gateway may echo it).
   */
  async call(permit: CallPermit, gateway: Gateway, request: GatewayRequest, transcript: TranscriptEntry[], concerning: AdapterPaymentMethod | null = null): Promise<CallOutcome> {
    const scrubber = scrubberFor(request, concerning, safeCredentialNames(gateway.gatewayType));
    try {
      const outcome = await this.callUnscrubbed(permit, gateway, request, transcript);
      if (outcome.kind === 'answered') return { ...outcome, response: scrubResponse(outcome.response, scrubber) };
      // A transport error's detail is its code, which undici does not always give as a string.
      const text = (value: unknown) => (typeof value === 'string' ? scrubber.text(value) : (value as string));
      return { ...outcome, message: text(outcome.message), detail: text(outcome.detail) };
    } finally {
      scrubTranscriptEntries(transcript, scrubber);
    }
  }

  /**
   * Asks the gateway about a call whose result is unknown (the adapter's `inquire`; docs/events.md),
   * through the same channel and endpoints as a call; the answer's texts are scrubbed alike.
   */
  async inquire(gateway: Gateway, request: GatewayRequest, transcript: TranscriptEntry[]): Promise<InquiryAnswer> {
    const module = findGatewayModule(gateway.gatewayType);
    if (module === undefined || module.inquire === null) return { kind: 'unknown' };
    const scrubber = scrubberFor(request, null, safeCredentialNames(gateway.gatewayType));
    try {
      const settings = { http: this.context.http, override: this.context.endpoints[gateway.gatewayType], timeoutMs: this.timeoutMs(gateway) };
      const answer = await executeInquiry(module, request, transcript, settings);
      return answer.kind === 'found' ? { kind: 'found', response: scrubResponse(answer.response, scrubber) } : answer;
    } finally {
      scrubTranscriptEntries(transcript, scrubber);
    }
  }

  /** Classifies the call (the metrics), then hands its outcome on unchanged. */
  private async callUnscrubbed(permit: CallPermit, gateway: Gateway, request: GatewayRequest, transcript: TranscriptEntry[]): Promise<CallOutcome> {
    const observer = this.observer;
    if (observer === null) return this.callAndReport(permit, gateway, request, transcript);
    const started = performance.now();
    let result: GatewayCallResult = 'error';
    try {
      const outcome = await this.callAndReport(permit, gateway, request, transcript);
      result = outcome.kind === 'answered' ? resultOf(outcome.response) : outcome.kind;
      return outcome;
    } finally {
      observer.finished(gateway.gatewayType, result, (performance.now() - started) / 1000);
    }
  }

  private async callAndReport(permit: CallPermit, gateway: Gateway, request: GatewayRequest, transcript: TranscriptEntry[]): Promise<CallOutcome> {
    permit.reported = true;
    const module = findGatewayModule(gateway.gatewayType);
    if (module === undefined) return { kind: 'fault', message: 'This gateway type cannot transact yet.', detail: gateway.gatewayType, latencyMs: 0, notTaken: true };
    const settings = { http: this.context.http, override: this.context.endpoints[gateway.gatewayType], timeoutMs: this.timeoutMs(gateway) };
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const response = await executeOperation(module, request, transcript, settings);
      await this.breaker.recordSuccess(gateway.token);
      return { kind: 'answered', response, latencyMs: elapsed() };
    } catch (error) {
      if (error instanceof GatewayResultUnknownError || error instanceof GatewayFaultError) {
        await this.breaker.recordFailure(gateway.token, this.clock.now().getTime());
        if (error instanceof GatewayResultUnknownError) return { kind: 'unknown', message: error.message, detail: error.detail, latencyMs: elapsed() };
        return { kind: 'fault', message: error.message, detail: error.detail, latencyMs: elapsed(), notTaken: error.notTaken };
      }
      throw error;
    }
  }
}
