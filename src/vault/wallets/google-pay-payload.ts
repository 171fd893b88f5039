import { Secret } from '../../domain/secret.js';
import { millis } from './google-pay-token.js';
import { isObject, type JsonObject } from './token-fields.js';
import { WalletTokenExpiredError, WalletTokenMalformedError } from './wallet-errors.js';

/**
 * The decrypted ECv2 message (Google's "Payment data cryptography" page, encrypted message). A
 * `PAN_ONLY` card is a plain card number (it may still need 3-D Secure); `CRYPTOGRAM_3DS` is a
 * network token (DPAN) with its cryptogram. Card number and cryptogram stay in `Secret`s.
 */
export interface GooglePayPaymentData {
  messageId: string;
  messageExpiration: Date;
  authMethod: 'PAN_ONLY' | 'CRYPTOGRAM_3DS';
  accountNumber: Secret;
  expirationMonth: number;
  expirationYear: number;
  cryptogram: Secret | null;
  eciIndicator: string | null;
  gatewayMerchantId: string | null;
}

function malformed(field: string): WalletTokenMalformedError {
  return new WalletTokenMalformedError(`the decrypted message has no valid ${field}`);
}

function text(object: JsonObject, name: string): string {
  const value = object[name];
  if (typeof value !== 'string' || value.length === 0) throw malformed(name);
  return value;
}

function optionalText(object: JsonObject, name: string): string | null {
  const value = object[name];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw malformed(name);
  return value;
}

function integer(object: JsonObject, name: string, min: number, max: number): number {
  const value = object[name];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw malformed(name);
  return value;
}

/** Reads the plaintext and refuses it once `messageExpiration` has passed. */
export function parseGooglePayPaymentData(plaintext: Buffer, now: Date): GooglePayPaymentData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(plaintext.toString('utf8')) as unknown;
  } catch {
    throw new WalletTokenMalformedError('the decrypted message is not JSON');
  }
  if (!isObject(parsed)) throw new WalletTokenMalformedError('the decrypted message is not a JSON object');
  let expiration: number;
  try {
    expiration = millis(parsed['messageExpiration'], 'messageExpiration');
  } catch {
    throw malformed('messageExpiration');
  }
  if (expiration <= now.getTime()) throw new WalletTokenExpiredError('the payment message has expired');
  if (parsed['paymentMethod'] !== 'CARD') throw malformed('paymentMethod');
  const details = parsed['paymentMethodDetails'];
  if (!isObject(details)) throw malformed('paymentMethodDetails');
  const authMethod = details['authMethod'];
  if (authMethod !== 'PAN_ONLY' && authMethod !== 'CRYPTOGRAM_3DS') throw malformed('authMethod');
  const pan = text(details, 'pan');
  if (!/^\d{12,19}$/.test(pan)) throw malformed('pan');
  const cryptogram = authMethod === 'CRYPTOGRAM_3DS' ? text(details, 'cryptogram') : null;
  return {
    messageId: text(parsed, 'messageId'),
    messageExpiration: new Date(expiration),
    authMethod,
    accountNumber: new Secret(pan),
    expirationMonth: integer(details, 'expirationMonth', 1, 12),
    expirationYear: integer(details, 'expirationYear', 2000, 2999),
    cryptogram: cryptogram === null ? null : new Secret(cryptogram),
    eciIndicator: optionalText(details, 'eciIndicator'),
    gatewayMerchantId: optionalText(parsed, 'gatewayMerchantId'),
  };
}
