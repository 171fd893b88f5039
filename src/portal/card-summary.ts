import type { PaymentMethod } from '../domain/payment-method.js';
import { joinFullName, maskedNumber } from '../vault/card-rules.js';

/** How a list shows a payment method: masks only, as the API's view (never a number). */
export interface CardSummary {
  brand: string;
  /** `XXXX-XXXX-XXXX-1111`, a bank account's `*6789`, or '' when there is no number (redacted, a token). */
  masked: string;
  lastFour: string | null;
  expiry: string;
  name: string;
}

const BRANDS: Record<string, string> = {
  visa: 'Visa',
  master: 'Mastercard',
  american_express: 'American Express',
  discover: 'Discover',
  jcb: 'JCB',
  diners_club: 'Diners Club',
  dankort: 'Dankort',
  maestro: 'Maestro',
  elo: 'Elo',
  alia: 'Alia',
  sodexo: 'Sodexo',
  vr: 'VR',
  cabal: 'Cabal',
  naranja: 'Naranja',
  carnet: 'Carnet',
  unionpay: 'UnionPay',
};

export function cardSummary(method: PaymentMethod): CardSummary {
  if (method.paymentMethodType === 'credit_card') {
    const d = method.details;
    const lastFour = d.last_four_digits ?? null;
    const brand = d.card_type === null ? 'Card' : (BRANDS[d.card_type] ?? d.card_type);
    return {
      brand,
      masked: method.storageState === 'redacted' || lastFour === null ? '' : maskedNumber(lastFour),
      lastFour,
      expiry: d.month === null || d.year === null ? '' : `${String(d.month).padStart(2, '0')}/${d.year}`,
      name: joinFullName(d.first_name, d.last_name) ?? '',
    };
  }
  if (method.paymentMethodType === 'bank_account') {
    const d = method.details;
    const lastFour = d.account_number_display_digits ?? null;
    return { brand: 'Bank account', masked: lastFour === null ? '' : `*${lastFour}`, lastFour, expiry: '', name: joinFullName(d.first_name, d.last_name) ?? '' };
  }
  if (method.paymentMethodType === 'third_party_token') return { brand: `Token (${method.details.gateway_type ?? 'gateway'})`, masked: '', lastFour: null, expiry: '', name: '' };
  return { brand: 'Offsite (sprel)', masked: '', lastFour: null, expiry: '', name: '' };
}

/** "Visa ····1111" for a transaction row; '' without a method. */
export function cardLabel(method: PaymentMethod | undefined | null): string {
  if (method === undefined || method === null) return '';
  const summary = cardSummary(method);
  return summary.lastFour === null ? summary.brand : `${summary.brand} ····${summary.lastFour}`;
}
