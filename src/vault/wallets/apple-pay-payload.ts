import { Secret } from '../../domain/secret.js';
import { isObject, type JsonObject } from './token-fields.js';
import { WalletTokenMalformedError } from './wallet-errors.js';

/**
 * The decrypted `EC_v1` payment data (Apple's "Payment Token Format Reference", payment data keys).
 * The device account number (DPAN), the cryptogram and EMV data stay in `Secret`s: they redact
 * themselves wherever printed and open only through `reveal()`.
 */
export interface ApplePayPaymentData {
  accountNumber: Secret;
  expirationYear: number;
  expirationMonth: number;
  /** ISO 4217 numeric code, as Apple sends it (for example "840"). */
  currencyCode: string;
  /** In the currency's minor unit. */
  transactionAmount: number;
  cardholderName: string | null;
  deviceManufacturerIdentifier: string;
  paymentDataType: '3DSecure' | 'EMV';
  /** 3DSecure: the online payment cryptogram (base64) and, when Apple gives one, the ECI. */
  cryptogram: Secret | null;
  eciIndicator: string | null;
  /** EMV: the EMV payment structure (base64), for the few processors that take it. */
  emvData: Secret | null;
}

// Messages name fields only: the plaintext holds the DPAN and must not leak through an error.
function malformed(field: string): WalletTokenMalformedError {
  return new WalletTokenMalformedError(`the decrypted payment data has no valid ${field}`);
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

/** `applicationExpirationDate` is YYMMDD; the day is the month's last and carries nothing. */
function expiration(value: string): { year: number; month: number } {
  if (!/^\d{6}$/.test(value)) throw malformed('applicationExpirationDate');
  const month = Number(value.slice(2, 4));
  if (month < 1 || month > 12) throw malformed('applicationExpirationDate');
  return { year: 2000 + Number(value.slice(0, 2)), month };
}

export function parseApplePayPaymentData(plaintext: Buffer): ApplePayPaymentData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(plaintext.toString('utf8')) as unknown;
  } catch {
    throw new WalletTokenMalformedError('the decrypted payment data is not JSON');
  }
  if (!isObject(parsed)) throw new WalletTokenMalformedError('the decrypted payment data is not a JSON object');
  const pan = text(parsed, 'applicationPrimaryAccountNumber');
  if (!/^\d{12,19}$/.test(pan)) throw malformed('applicationPrimaryAccountNumber');
  const { year, month } = expiration(text(parsed, 'applicationExpirationDate'));
  const amount = parsed['transactionAmount'];
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0) throw malformed('transactionAmount');
  const type = text(parsed, 'paymentDataType');
  if (type !== '3DSecure' && type !== 'EMV') throw malformed('paymentDataType');
  const details = parsed['paymentData'];
  if (!isObject(details)) throw malformed('paymentData');
  const cryptogram = type === '3DSecure' ? text(details, 'onlinePaymentCryptogram') : null;
  const emvData = type === 'EMV' ? text(details, 'emvData') : null;
  return {
    accountNumber: new Secret(pan),
    expirationYear: year,
    expirationMonth: month,
    currencyCode: text(parsed, 'currencyCode'),
    transactionAmount: amount,
    cardholderName: optionalText(parsed, 'cardholderName'),
    deviceManufacturerIdentifier: text(parsed, 'deviceManufacturerIdentifier'),
    paymentDataType: type,
    cryptogram: cryptogram === null ? null : new Secret(cryptogram),
    eciIndicator: optionalText(details, 'eciIndicator'),
    emvData: emvData === null ? null : new Secret(emvData),
  };
}
