import { Secret } from '../../src/domain/secret.js';
import { randomToken, TOKEN_LENGTH } from '../../src/domain/tokens.js';
import type { AdapterPaymentMethod, GatewayOperation, GatewayRequest } from '../../src/gateways/kit/index.js';

/**
 * Building blocks of gateway adapter tests: a card as the service hands it to an adapter, and a
 * complete GatewayRequest for an operation with sensible defaults a test overrides field by field.
 */

export interface TestCardOptions {
  cvc?: string | null;
  address?: boolean;
  month?: number;
  year?: number;
}

export function testCard(number: string, options: TestCardOptions = {}): AdapterPaymentMethod {
  const cvc = options.cvc === undefined ? '737' : options.cvc;
  const withAddress = options.address !== false;
  return {
    type: 'credit_card',
    number: new Secret(number),
    verificationValue: cvc === null ? null : new Secret(cvc),
    month: options.month ?? 3,
    year: options.year ?? 2030,
    firstName: 'Ada',
    lastName: 'Lovelace',
    cardType: 'visa',
    address: withAddress
      ? { address1: '12 St James Sq', address2: null, city: 'London', state: null, zip: 'SW1Y 4JH', country: 'GB' }
      : { address1: null, address2: null, city: null, state: null, zip: null, country: null },
    email: 'ada@example.com',
  };
}

const CARD_OPERATIONS: readonly GatewayOperation[] = ['purchase', 'authorize', 'verify', 'store', 'general_credit'];
const AMOUNT_OPERATIONS: readonly GatewayOperation[] = ['purchase', 'authorize', 'capture', 'credit', 'general_credit'];

/** A request for `operation` with `credentials` (plain strings, wrapped in Secrets), a Visa card where one is needed, 10.00 EUR. */
export function gatewayRequest(operation: GatewayOperation, credentials: Record<string, string>, overrides: Partial<GatewayRequest> = {}): GatewayRequest {
  return {
    operation,
    transactionToken: randomToken(TOKEN_LENGTH.item),
    testMode: true,
    credentials: Object.fromEntries(Object.entries(credentials).map(([name, value]) => [name, new Secret(value)])),
    amount: AMOUNT_OPERATIONS.includes(operation) ? 1000 : null,
    currencyCode: 'EUR',
    paymentMethod: CARD_OPERATIONS.includes(operation) ? testCard('4111111111111111') : null,
    reference: null,
    orderId: null,
    description: null,
    ip: null,
    email: null,
    shippingAddress: { name: null, address1: null, address2: null, city: null, state: null, zip: null, country: null, phone_number: null },
    gatewaySpecificFields: {},
    attempt3dsecure: false,
    ...overrides,
  };
}
