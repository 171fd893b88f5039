import { currencyExponent } from '../domain/money.js';

/** An amount in minor units as people read it: "10.00 USD", "1000 JPY". */
export function formatAmount(amount: number | null, currency: string | null): string {
  if (amount === null) return '—';
  if (currency === null) return String(amount);
  const exponent = currencyExponent(currency) ?? 2;
  const major = exponent === 0 ? String(amount) : (amount / 10 ** exponent).toFixed(exponent);
  return `${major} ${currency}`;
}
