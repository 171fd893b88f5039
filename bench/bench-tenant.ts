import { ApiClient, type ApiCredentials } from './api-client.js';

/** The test card the sandbox scenarios vault (Spreedly's Visa success card). */
export const SANDBOX_PAN = '4111111111111111';
/**
 * A Luhn-valid number that is not a test card, for the production environment of the gateway
 * scenario (a production gateway refuses test cards). It only ever reaches the fake gateway.
 */
export const LIVE_PAN = '4539148803436467';

/** Every card number the bench and the drills send: the log scan looks for each. */
export const BENCH_PANS: readonly string[] = [SANDBOX_PAN, LIVE_PAN];

/** What the scenarios of one store run against. */
export interface BenchTenant {
  sandbox: ApiCredentials;
  testGateway: string;
  /** Retained cards of the sandbox environment, purchased with in turn. */
  retainedCards: string[];
  /** Succeeded purchases, shown in turn. */
  transactions: string[];
  /** The production environment with a Stripe gateway pointed at the fake gateway. */
  live: { credentials: ApiCredentials; gateway: string; retainedCards: string[] } | null;
}

/** The card part of a tokenize request. */
export function cardFields(number: string): Record<string, unknown> {
  return { first_name: 'Joe', last_name: 'Jones', number, verification_value: '123', month: 3, year: 2035 };
}

/** The JSON purchase body a client sends for a retained card. */
export function purchaseJson(paymentMethodToken: string, amount = 100): string {
  return JSON.stringify({ transaction: { payment_method_token: paymentMethodToken, amount, currency_code: 'USD' } });
}

/** The same purchase as the Ruby gem sends it in XML. */
export function purchaseXml(paymentMethodToken: string, amount = 100): string {
  return `<transaction><payment_method_token>${paymentMethodToken}</payment_method_token><amount>${amount}</amount><currency_code>USD</currency_code></transaction>`;
}

async function retainedCards(client: ApiClient, number: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  // A few at a time: set-up is not what is measured, but it should not take long either.
  for (let start = 0; start < count; start += 8) {
    const batch = Array.from({ length: Math.min(8, count - start) }, () =>
      client.expect(201, 'POST', '/v1/payment_methods.json', { json: { payment_method: { credit_card: cardFields(number), retained: true } } }),
    );
    for (const reply of await Promise.all(batch)) tokens.push(reply.json.transaction.payment_method.token as string);
  }
  return tokens;
}

/**
 * Builds the fixtures of one bench store over the API: a test gateway, `cards` retained cards,
 * `purchases` succeeded purchases and, when `live` is given, a Stripe gateway in the production
 * environment (its endpoint is the fake gateway, set by COFFER_GATEWAY_ENDPOINTS).
 */
export async function prepareTenant(
  baseUrl: string,
  sandbox: ApiCredentials,
  live: ApiCredentials | null,
  sizes: { cards: number; purchases: number },
): Promise<BenchTenant> {
  const client = new ApiClient(baseUrl, sandbox);
  try {
    const gateway = (await client.expect(201, 'POST', '/v1/gateways.json', { json: { gateway: { gateway_type: 'test' } } })).json.gateway.token as string;
    const cards = await retainedCards(client, SANDBOX_PAN, sizes.cards);
    const transactions: string[] = [];
    for (let index = 0; index < sizes.purchases; index += 1) {
      const reply = await client.expect(200, 'POST', `/v1/gateways/${gateway}/purchase.json`, {
        json: JSON.parse(purchaseJson(cards[index % cards.length] as string)),
      });
      transactions.push(reply.json.transaction.token as string);
    }
    return { sandbox, testGateway: gateway, retainedCards: cards, transactions, live: live === null ? null : await prepareLive(baseUrl, live, sizes.cards) };
  } finally {
    await client.close();
  }
}

async function prepareLive(baseUrl: string, credentials: ApiCredentials, cards: number): Promise<BenchTenant['live']> {
  const client = new ApiClient(baseUrl, credentials);
  try {
    const gateway = (await client.expect(201, 'POST', '/v1/gateways.json', { json: { gateway: { gateway_type: 'stripe', login: 'sk_live_benchfake' } } })).json.gateway
      .token as string;
    return { credentials, gateway, retainedCards: await retainedCards(client, LIVE_PAN, Math.min(cards, 50)) };
  } finally {
    await client.close();
  }
}
