import { Secret } from '../../src/domain/secret.js';
import type { WalletPaymentMethod } from '../../src/gateways/kit/index.js';

/** The cryptogram of the adapter tests' wallet methods (Apple's documented example's shape). */
export const WALLET_CRYPTOGRAM = 'AOWfXu1Iv1pAQwAAAAAAAAAAAAA=';

/**
 * A decrypted wallet token as an adapter receives it (docs/wallets.md): an Apple Pay network token
 * by default; `networkToken: false` makes a Google Pay PAN_ONLY card of it.
 */
export function walletMethod(number: string, overrides: Partial<WalletPaymentMethod> = {}): WalletPaymentMethod {
  return {
    type: 'apple_pay',
    networkToken: true,
    number: new Secret(number),
    cryptogram: new Secret(WALLET_CRYPTOGRAM),
    eci: '7',
    month: 12,
    year: 2034,
    firstName: 'Ada',
    lastName: 'Lovelace',
    cardType: 'visa',
    email: 'ada@example.com',
    ...overrides,
  };
}

/** A Google Pay PAN_ONLY card: a plain card number, no cryptogram. */
export function googlePanOnly(number: string): WalletPaymentMethod {
  return walletMethod(number, { type: 'google_pay', networkToken: false, cryptogram: null, eci: null });
}
