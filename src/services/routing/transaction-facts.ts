import { AppError, MESSAGES } from '../../domain/errors.js';
import type { PaymentMethodsRepository } from '../../store/interfaces/payment-methods.js';
import { detectCardType, issuerIdentificationNumber, normalizePan } from '../../vault/card-rules.js';
import type { TransactionInput } from '../transactions/transaction-input.js';
import type { TransactionFacts } from './workflow-router.js';
import type { Environment } from '../../domain/environment.js';
import type { PaymentMethod } from '../../domain/payment-method.js';

/**
 * What the workflow rules look at, from the transaction body and its payment method: the stored
 * method's non-sensitive details (card_type, issuer_identification_number, metadata), or an inline
 * card's number read in memory (never stored by routing; the vault stores it when the chain runs).
 * Coffer has no BIN table, so there is no BIN country: rules match BIN prefixes and ranges only.
 */

function textOf(value: unknown): string | null {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
}

function metadataOf(raw: unknown): Record<string, string> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      return {};
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const text = textOf(item);
    if (text !== null) out[key] = text;
  }
  return out;
}

function storedFacts(row: PaymentMethod): Pick<TransactionFacts, 'cardBrand' | 'bin' | 'paymentMethodType' | 'metadata'> {
  // Only a card has a brand and a BIN (a wallet method's are its DPAN's: docs/wallets.md).
  const card = row.paymentMethodType === 'credit_card' || row.paymentMethodType === 'apple_pay' || row.paymentMethodType === 'google_pay' ? row.details : undefined;
  const bin = textOf(card?.issuer_identification_number) ?? textOf(card?.first_six_digits);
  return { cardBrand: textOf(card?.card_type), bin, paymentMethodType: row.paymentMethodType, metadata: metadataOf(row.metadata) };
}

function inlineFacts(input: NonNullable<TransactionInput['inlinePaymentMethod']>): Pick<TransactionFacts, 'cardBrand' | 'bin' | 'paymentMethodType' | 'metadata'> {
  const number = input.card?.number === undefined ? null : normalizePan(input.card.number);
  const digits = number !== null && /^\d+$/.test(number) ? number : null;
  return {
    cardBrand: digits === null ? null : detectCardType(digits),
    bin: digits === null ? null : issuerIdentificationNumber(digits),
    paymentMethodType: input.type ?? (input.card !== undefined ? 'credit_card' : input.bankAccount !== undefined ? 'bank_account' : null),
    metadata: metadataOf(input.metadata),
  };
}

/** The facts of a transaction body; an unknown payment method token is the 422 a gateway purchase answers. */
export async function factsOf(paymentMethods: Pick<PaymentMethodsRepository, 'find'>, environment: Environment, input: TransactionInput): Promise<TransactionFacts> {
  const common = { currency: input.currencyCode ?? null, amount: input.amount ?? null };
  if (input.paymentMethodToken !== undefined) {
    const row = await paymentMethods.find(environment.key, input.paymentMethodToken);
    if (row === undefined) throw new AppError({ key: 'errors.payment_method_not_found', message: MESSAGES.paymentMethodTokenUnknown }, {}, 422);
    return { ...common, ...storedFacts(row) };
  }
  if (input.inlinePaymentMethod !== undefined) return { ...common, ...inlineFacts(input.inlinePaymentMethod) };
  return { ...common, cardBrand: null, bin: null, paymentMethodType: null, metadata: {} };
}
