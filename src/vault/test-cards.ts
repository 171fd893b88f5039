/**
 * Which payment methods are test data: a payment method gets `test=true` when its card is one of
 * the published test cards (src/domain/test-cards.ts) or its bank account is a test account.
 */
import { TEST_CARD_NUMBERS } from '../domain/test-cards.js';
import { normalizePan, validAccountNumber } from './card-rules.js';

/** Whether a card number is a test card. Spaces and dashes are ignored, as on input. */
export function isTestCard(digits: string): boolean {
  return TEST_CARD_NUMBERS.has(normalizePan(digits));
}

/**
 * Routing numbers whose accounts are test bank accounts. 021000021 (with account 9876543210) is the
 * one Spreedly's clients use; the others are further well-known sample routing numbers, all ABA-valid.
 */
export const TEST_BANK_ROUTING_NUMBERS: ReadonlySet<string> = new Set(['021000021', '011000015', '091000019']);

/** Whether a bank account is a test account: a test routing number and any well-formed account number. */
export function isTestBankAccount(routing: string, account: string): boolean {
  return TEST_BANK_ROUTING_NUMBERS.has(routing) && validAccountNumber(account);
}
