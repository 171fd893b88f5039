import type { BankAccountDetails, CardDetails, CardInput, DetailValue, PaymentMethodDetails, WalletDetails } from '../domain/payment-method.js';
import type { DecryptedWallet } from './wallet-tokens.service.js';
import { CARD_TEXT_FIELDS } from '../domain/payment-method.js';
import {
  accountDisplayDigits,
  detectCardType,
  firstSix,
  issuerIdentificationNumber,
  lastFour,
  routingDisplayDigits,
  splitFullName,
} from '../vault/card-rules.js';

/**
 * A payment method's details as a set of fields, for the changes that work on any kind's fields
 * alike (update, redaction). Card details carry only what may be shown (masks, brand, expiry,
 * names, addresses); the PAN and CVV are sealed elsewhere.
 */
export type Details = Record<string, DetailValue>;

/** First and last name from explicit fields, or split from `full_name` on its last space. */
export function resolveNames(input: { first_name?: string; last_name?: string; full_name?: string }): { first: string | null; last: string | null } {
  if (input.first_name === undefined && input.last_name === undefined && input.full_name !== undefined) {
    const split = splitFullName(input.full_name);
    return { first: split.firstName, last: split.lastName };
  }
  return { first: input.first_name ?? null, last: input.last_name ?? null };
}

export function cardDetails(card: CardInput, digits: string): CardDetails {
  const names = resolveNames(card);
  const details: Details = {
    first_name: names.first,
    last_name: names.last,
    card_type: detectCardType(digits),
    month: card.month ?? null,
    year: card.year ?? null,
    first_six_digits: firstSix(digits),
    last_four_digits: lastFour(digits),
    issuer_identification_number: issuerIdentificationNumber(digits),
    eligible_for_card_updater: card.eligible_for_card_updater ?? null,
  };
  for (const field of CARD_TEXT_FIELDS) if (field !== 'first_name' && field !== 'last_name') details[field] = card[field] ?? null;
  return details as CardDetails;
}

/** A decrypted wallet token's details: a card's, from the DPAN and what the wallet gave (no address). */
export function walletDetails(wallet: DecryptedWallet, digits: string): WalletDetails {
  const card: CardInput = { month: wallet.month, year: wallet.year };
  if (wallet.cardholderName !== null) card.full_name = wallet.cardholderName;
  return { ...cardDetails(card, digits), wallet_auth_method: wallet.networkToken ? 'network_token' : 'pan_only' };
}

export function bankAccountDetails(
  input: { first_name?: string; last_name?: string; full_name?: string; bank_name?: string; bank_account_type?: string; bank_account_holder_type?: string },
  routing: string,
  account: string,
): BankAccountDetails {
  const names = resolveNames(input);
  return {
    first_name: names.first,
    last_name: names.last,
    bank_name: input.bank_name ?? null,
    account_type: input.bank_account_type ?? null,
    account_holder_type: input.bank_account_holder_type ?? null,
    routing_number_display_digits: routingDisplayDigits(routing),
    account_number_display_digits: accountDisplayDigits(account),
  };
}

/** What stays of a card's details after redaction: name, brand, expiry, last four (as Spreedly keeps). */
export function redactedDetails(details: PaymentMethodDetails): Details {
  const kept: Details = { ...details };
  delete kept.first_six_digits;
  delete kept.issuer_identification_number;
  delete kept.routing_number_display_digits;
  return kept;
}

const PERSONAL_FIELDS = [...CARD_TEXT_FIELDS, 'bank_name'] as const;

/** `remove_personal_data`: names, addresses, phone and company go too. */
export function withoutPersonalData(details: Details): Details {
  const kept = { ...details };
  for (const field of PERSONAL_FIELDS) if (field in kept) kept[field] = null;
  return kept;
}
