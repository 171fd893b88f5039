import net from 'node:net';
import { expect } from 'vitest';
import type { ApiClient } from '../helpers/client.js';
import { seededRandomInt } from '../helpers/seeded-random.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { FakeAdyen } from '../fakes/fake-adyen.js';
import { startFakeStripe, type FakeStripe } from '../fakes/fake-stripe.js';

/**
 * Coffer with three gateways on real local fakes for the routing tests: two Stripe
 * gateways (two API keys on one fake Stripe, told apart by the key each request carries), one
 * Adyen gateway on a fake Adyen, and one Checkout.com gateway whose endpoint refuses connections.
 * Splits draw from a seeded generator, so a count of routed payments is the same on every run.
 */

export const STRIPE_KEY_1 = 'sk_live_CofferRoutingKey00000000001';
export const STRIPE_KEY_2 = 'sk_live_CofferRoutingKey00000000002';
const ADYEN_MERCHANT = 'CofferRouting';
const ADYEN_KEY = 'AQE-routing-api-key-0001';
/** Real cards for Coffer (not in its test-card list), approved by both fakes. */
export const VISA = '4242424242424242';
export const MASTER = '5200828282828210';
export const AMEX = '378734493671000';
/** Declined by the fake Stripe (generic_decline, a hard decline). */
export const STRIPE_DECLINE = '4000000000000002';

export interface RoutingE2e {
  server: TestServer;
  live: ApiClient;
  stripe: FakeStripe;
  adyen: FakeAdyen;
  gateways: { stripe1: string; stripe2: string; adyen: string; dead: string };
  vault(number: string, extra?: Record<string, unknown>): Promise<string>;
  /** Charges the fake Stripe took with this API key. */
  stripeCharges(apiKey: string): number;
  close(): Promise<void>;
}

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startRoutingE2e(store: 'sqlite' | 'postgres', env: Record<string, string> = {}): Promise<RoutingE2e> {
  const stripe = await startFakeStripe([STRIPE_KEY_1, STRIPE_KEY_2]);
  const adyen = await FakeAdyen.start({ merchantAccount: ADYEN_MERCHANT, apiKeys: [ADYEN_KEY] });
  const dead = `http://127.0.0.1:${await closedPort()}`;
  const server = await startServer({
    store,
    random: seededRandomInt(70_30),
    env: {
      COFFER_GATEWAY_ENDPOINTS: JSON.stringify({ stripe: stripe.url, adyen: adyen.url, checkout_v2: dead }),
      COFFER_EGRESS_ALLOW: '127.0.0.1',
      COFFER_GATEWAY_TIMEOUTS: JSON.stringify({ stripe: 2, adyen: 2, checkout_v2: 2 }),
      ...env,
    },
  });
  const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
  const live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
  const createGateway = async (fields: Record<string, unknown>): Promise<string> => {
    const res = await live.sendJson('POST', '/v1/gateways.json', { gateway: fields });
    expect(res.status, res.text).toBe(201);
    return res.json().gateway.token as string;
  };
  const gateways = {
    stripe1: await createGateway({ gateway_type: 'stripe', login: STRIPE_KEY_1 }),
    stripe2: await createGateway({ gateway_type: 'stripe', login: STRIPE_KEY_2 }),
    adyen: await createGateway({ gateway_type: 'adyen', merchant_account: ADYEN_MERCHANT, api_key: ADYEN_KEY, sandbox: true }),
    dead: await createGateway({ gateway_type: 'checkout_v2', secret_key: 'sk_routing_dead_0001' }),
  };
  return {
    server,
    live,
    stripe,
    adyen,
    gateways,
    async vault(number, extra = {}) {
      const res = await live.sendJson('POST', '/v1/payment_methods.json', {
        payment_method: {
          email: 'ada@example.com',
          credit_card: { first_name: 'Ada', last_name: 'Lovelace', number, verification_value: number.length === 15 ? '7373' : '737', month: 3, year: 2031, address1: '12 St James Sq', city: 'London', zip: 'SW1Y 4JH', country: 'GB' },
          ...extra,
        },
      });
      expect(res.status, res.text).toBe(201);
      return res.json().transaction.payment_method.token as string;
    },
    stripeCharges(apiKey) {
      return stripe.requests.filter((request) => request.method === 'POST' && request.path === '/v1/payment_intents' && request.headers.authorization === `Bearer ${apiKey}`).length;
    },
    async close() {
      await server.close();
      await stripe.close();
      await adyen.close();
    },
  };
}
