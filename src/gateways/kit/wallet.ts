import type { AdapterPaymentMethod, GatewayRequest, WalletPaymentMethod } from './contract.js';

/**
 * What adapters share about wallet methods (Apple Pay, Google Pay; docs/wallets.md): which method
 * is one, whether its cryptogram goes with this request, and the ECI in the forms gateways ask for.
 */

/** The payment method kinds a gateway lists to take wallet tokens. */
export const WALLET_KINDS = ['apple_pay', 'google_pay'] as const;

/** The request's payment method when it is a wallet token; null otherwise. */
export function walletOf(method: AdapterPaymentMethod | null): WalletPaymentMethod | null {
  return method !== null && (method.type === 'apple_pay' || method.type === 'google_pay') ? method : null;
}

/** A network token (DPAN) rather than a Google Pay PAN_ONLY card. */
export function networkTokenOf(method: AdapterPaymentMethod | null): WalletPaymentMethod | null {
  const wallet = walletOf(method);
  return wallet !== null && wallet.networkToken ? wallet : null;
}

/**
 * The cryptogram to send: on a cardholder-initiated charge only. A merchant-initiated charge on a
 * stored wallet token goes with the stored-credential fields and no cryptogram (the first one was
 * single-use), as the gateways' network-token references describe.
 */
export function cryptogramFor(request: GatewayRequest, wallet: WalletPaymentMethod): string | null {
  if (request.storedCredential?.initiator === 'merchant') return null;
  return wallet.cryptogram?.reveal() ?? null;
}

/** The ECI as two digits ("7" → "07"), the form most gateways take; null when the wallet gave none. */
export function twoDigitEci(eci: string | null): string | null {
  if (eci === null || eci === '') return null;
  return eci.length === 1 ? `0${eci}` : eci;
}
