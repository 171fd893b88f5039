import type { GatewayAdapter } from './adapter.js';
import type { GatewayHttpClient } from './http-client.js';
import { StripeAdapter } from './stripe/stripe.adapter.js';
import { TestGatewayAdapter } from './test/test-gateway.adapter.js';

/** What adapters are built from: the shared client and the deployment's endpoint overrides. */
export interface AdapterContext {
  http: GatewayHttpClient;
  /** Base URL per gateway type (COFFER_GATEWAY_ENDPOINTS), e.g. a fake Stripe in tests. */
  endpoints: Record<string, string>;
}

type AdapterFactory = (context: AdapterContext, timeoutMs: number) => GatewayAdapter;

const testAdapter = new TestGatewayAdapter();

/** Explicit: every gateway type that can transact, and how its adapter is made. */
export const ADAPTER_FACTORIES: Readonly<Record<string, AdapterFactory>> = {
  test: () => testAdapter,
  stripe: (context, timeoutMs) => new StripeAdapter(context.http, { baseUrl: context.endpoints.stripe ?? 'https://api.stripe.com', timeoutMs }),
};
