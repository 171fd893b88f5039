import { currencyExponent } from '../../domain/money.js';
import { GatewayInputError } from './contract.js';

/**
 * Where a gateway's minor unit differs from ISO 4217's (Adyen counts IDR in whole rupiah), its
 * own exponent per currency code; every other currency uses the ISO exponent.
 */
export type ExponentOverrides = Readonly<Record<string, number>>;

/** The exponent a gateway uses for `currency`. Unknown currencies never reach an adapter (validated on input). */
export function gatewayExponent(currency: string, overrides: ExponentOverrides = {}): number {
  const own = Object.hasOwn(overrides, currency) ? overrides[currency] : undefined;
  const exponent = own ?? currencyExponent(currency);
  if (exponent === undefined) throw new GatewayInputError(`The currency ${currency} is not supported.`, 'invalid_amount');
  return exponent;
}

/**
 * Coffer's amount (an integer in ISO minor units: 1000 = 10.00 USD = ¥1000 = 1.000 KWD) in the
 * gateway's minor unit. When the gateway's unit is coarser and the amount does not divide into it,
 * nothing is rounded silently: the call is refused with `invalid_amount`.
 */
export function gatewayMinorUnits(amount: number, currency: string, overrides: ExponentOverrides = {}): number {
  const iso = currencyExponent(currency);
  if (iso === undefined) throw new GatewayInputError(`The currency ${currency} is not supported.`, 'invalid_amount');
  const shift = gatewayExponent(currency, overrides) - iso;
  if (shift >= 0) return amount * 10 ** shift;
  const divisor = 10 ** -shift;
  if (amount % divisor !== 0) {
    throw new GatewayInputError(`This gateway takes ${currency} amounts in whole units of ${divisor} minor units; ${amount} is not one.`, 'invalid_amount');
  }
  return amount / divisor;
}

/** The amount as a decimal string in major units with the gateway's exponent: "10.00", "1000", "1.000". */
export function decimalAmount(amount: number, currency: string, overrides: ExponentOverrides = {}): string {
  const units = gatewayMinorUnits(amount, currency, overrides);
  const exponent = gatewayExponent(currency, overrides);
  if (exponent === 0) return String(units);
  const digits = String(units).padStart(exponent + 1, '0');
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}
