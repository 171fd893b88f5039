import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/domain/secret.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import type { GatewayDefinition, GatewayRequest } from '../../src/gateways/kit/index.js';
import { findGatewayDefinition } from '../../src/gateways/registry.js';
import { MemoryBreakerStore, InFlightLimiter } from '../../src/limits/circuit-breaker.js';
import { GatewayCaller, type GatewayCallObserver, type GatewayCallResult } from '../../src/services/transactions/gateway-caller.js';
import { FaultyGateway } from '../fakes/faulty-gateway.js';
import type { Gateway } from '../../src/domain/gateway.js';

/**
 * The metrics' view of gateway calls (docs/metrics.md, "Gateways"), at the seam where calls are classified: what the
 * observer is told for an answer, and for an exception that is no gateway outcome at all (a bug,
 * a broken breaker store), which is counted as `error` and still thrown.
 */

class RecordingObserver implements GatewayCallObserver {
  readonly events: string[] = [];
  admitted(token: string, type: string): void {
    this.events.push(`admitted ${token} ${type}`);
  }
  refused(token: string, type: string, reason: string): void {
    this.events.push(`refused ${token} ${type} ${reason}`);
  }
  finished(type: string, result: GatewayCallResult, seconds: number): void {
    expect(seconds).toBeGreaterThanOrEqual(0);
    this.events.push(`finished ${type} ${result}`);
  }
}

/** A breaker that admits every call and fails to record a success (its store is broken). */
class BrokenOnSuccess extends MemoryBreakerStore {
  override async recordSuccess(): Promise<void> {
    throw new Error('breaker store broken');
  }
}

const stripe = findGatewayDefinition('stripe') as GatewayDefinition;
const gateway = { token: 'gw_metrics', gateway_type: 'stripe', settings: null } as unknown as Gateway;
const request: GatewayRequest = {
  operation: 'purchase',
  transactionToken: 'tx_metrics',
  testMode: false,
  credentials: { login: new Secret('sk_live_observer') },
  amount: 100,
  currencyCode: 'USD',
  paymentMethod: null,
  reference: null,
  orderId: null,
  description: null,
  ip: null,
  email: null,
  shippingAddress: null,
  gatewaySpecificFields: {},
  attempt3dsecure: false,
} as unknown as GatewayRequest;

describe('GatewayCaller tells its observer', () => {
  let fake: FaultyGateway;
  let http: GatewayHttpClient;
  beforeAll(async () => {
    fake = await FaultyGateway.start();
    http = new GatewayHttpClient();
  });
  afterAll(async () => {
    await http.close();
    await fake.close();
  });

  function caller(breaker: MemoryBreakerStore, observer: GatewayCallObserver): GatewayCaller {
    const config = { timeoutMs: 2000, timeoutMsByType: {}, endpoints: { stripe: fake.url }, maxInFlight: 1 };
    return new GatewayCaller(breaker, new InFlightLimiter(1), { http, endpoints: config.endpoints }, config, { now: () => new Date() }, observer);
  }

  it('of each admitted call and its result, and of a refusal when the slot is taken', async () => {
    const observer = new RecordingObserver();
    const gatewayCaller = caller(new MemoryBreakerStore(), observer);
    const permit = await gatewayCaller.permit(gateway, stripe);
    await expect(gatewayCaller.permit(gateway, stripe)).rejects.toThrow(/in progress/);
    fake.mode = 'status500';
    const outcome = await gatewayCaller.call(permit, gateway, request, []);
    permit.release();
    expect(outcome.kind).toBe('fault');
    expect(observer.events).toEqual(['admitted gw_metrics stripe', 'refused gw_metrics stripe busy', 'finished stripe fault']);
  });

  it('of an exception that is no gateway outcome as `error`, and the exception still reaches the caller', async () => {
    const observer = new RecordingObserver();
    const gatewayCaller = caller(new BrokenOnSuccess(), observer);
    const permit = await gatewayCaller.permit(gateway, stripe);
    fake.mode = 'ok';
    await expect(gatewayCaller.call(permit, gateway, request, [])).rejects.toThrow('breaker store broken');
    permit.release();
    expect(observer.events).toEqual(['admitted gw_metrics stripe', 'finished stripe error']);
  });
});
