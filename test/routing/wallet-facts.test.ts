import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/domain/environment.js';
import type { PaymentMethod } from '../../src/domain/payment-method.js';
import { factsOf } from '../../src/services/routing/transaction-facts.js';

/** Routing rules by brand and BIN see a wallet method's card (its DPAN's), as they see a card's (docs/wallets.md). */

const environment = { key: 'env' } as Environment;

function stored(paymentMethodType: PaymentMethod['paymentMethodType']): PaymentMethod {
  return {
    token: 'pm',
    environmentKey: 'env',
    paymentMethodType,
    details: { card_type: 'master', first_six_digits: '555555', issuer_identification_number: '55555555', last_four_digits: '4444', wallet_auth_method: 'network_token' },
    metadata: null,
  } as unknown as PaymentMethod;
}

describe('routing facts of wallet methods', () => {
  it.each(['apple_pay', 'google_pay'] as const)('%s: brand and BIN of the DPAN, and its own type', async (type) => {
    const facts = await factsOf({ find: async () => stored(type) }, environment, { paymentMethodToken: 'pm', retainOnSuccess: false, attempt3dsecure: false });
    expect(facts).toMatchObject({ cardBrand: 'master', bin: '55555555', paymentMethodType: type });
  });

  it('a third-party token still has neither', async () => {
    const facts = await factsOf({ find: async () => stored('third_party_token') }, environment, { paymentMethodToken: 'pm', retainOnSuccess: false, attempt3dsecure: false });
    expect(facts).toMatchObject({ cardBrand: null, bin: null });
  });
});
