import { AppError, MESSAGES } from '../../domain/errors.js';
import { containsCardLike } from '../../domain/scrubbing/card-like.js';
import { FILTERED } from '../../domain/scrubbing/scrubber.js';
import { currencyExponent, MAX_AMOUNT } from '../../domain/money.js';
import type { GatewayOperation } from '../../gateways/kit/index.js';
import type { GatewayDefinition } from '../../gateways/kit/index.js';
import { ACTIVE_STATES, TransactionState, type Transaction } from '../../domain/transaction.js';
import { isWalletType } from '../../domain/payment-method.js';

/** Transaction type recorded for each operation. */
export const TRANSACTION_TYPE: Record<GatewayOperation, string> = {
  purchase: 'Purchase',
  authorize: 'Authorization',
  capture: 'Capture',
  void: 'Void',
  credit: 'Credit',
  verify: 'Verification',
  store: 'Store',
  general_credit: 'GeneralCredit',
  complete: 'Complete',
};

/** Which transactions each reference operation may refer to. */
export const REFERENCE_TYPES: Record<'capture' | 'void' | 'credit', readonly string[]> = {
  capture: ['Authorization'],
  void: ['Authorization', 'Purchase', 'Capture', 'Credit', 'GeneralCredit', 'Verification'],
  credit: ['Purchase', 'Capture'],
};

/** Whether the gateway implements `operation` (its advertised characteristics). */
export function gatewaySupports(definition: GatewayDefinition, operation: Exclude<GatewayOperation, 'complete'>): boolean {
  const ability = operation === 'general_credit' ? 'supports_general_credit' : (`supports_${operation}` as const);
  return definition.characteristics.has(ability);
}

export function requireAbility(definition: GatewayDefinition, operation: Exclude<GatewayOperation, 'complete'>): void {
  if (!gatewaySupports(definition, operation)) {
    throw new AppError({
      key: 'errors.gateway_does_not_support_ability',
      message: `Unable to process the transaction because the gateway does not support ${operation}.`,
      extra: { ability: operation },
    });
  }
}

/** A wallet method (Apple Pay, Google Pay) goes only to a gateway whose adapter sends network tokens (docs/wallets.md). */
export function requirePaymentMethodKind(definition: GatewayDefinition, type: string | null | undefined): void {
  if (!isWalletType(type) || (definition.paymentMethods as readonly string[]).includes(type)) return;
  throw new AppError({
    key: 'errors.gateway_does_not_support_payment_method',
    attribute: 'payment_method_type',
    message: `The ${definition.name} gateway does not take ${type} payment methods.`,
  });
}

/** Integer minor units, above zero, within range. */
export function checkAmount(amount: number | undefined, invalid: boolean | undefined, required: boolean): void {
  if (invalid === true || (amount === undefined && required) || (amount !== undefined && (!Number.isInteger(amount) || amount < 1 || amount > MAX_AMOUNT))) {
    throw new AppError({ key: 'errors.invalid_amount', attribute: 'amount', message: 'Amount must be a positive integer in minor units (e.g. 100 for 1.00 USD).' });
  }
}

/** An uppercase ISO 4217 code Coffer knows. */
export function checkCurrency(currency: string | undefined, required: boolean): void {
  if ((currency === undefined && required) || (currency !== undefined && currencyExponent(currency) === undefined)) {
    throw new AppError({ key: 'errors.invalid_currency_code', attribute: 'currency_code', message: 'The currency_code is not a valid ISO 4217 currency code.' });
  }
}

export function referenceNotFound(): AppError {
  return new AppError({ key: 'errors.transaction_not_found', message: MESSAGES.referenceNotFound });
}

/** A run of digits as long as a card number: never echoed, whatever it is. */
const LONG_DIGITS = /\d{12,}/;

/**
 * 404 for an unknown transaction token. The token is echoed as Spreedly does, unless it could
 * be a card number (a client that put one in the path must not get it back in an error body).
 */
export function transactionNotFound(token: string): AppError {
  // A card written with separators (4111-1111-1111-1111) is caught by the scrubber's rules.
  const shown = LONG_DIGITS.test(token) || containsCardLike(token) ? FILTERED : token;
  return new AppError({ key: 'errors.transaction_not_found', message: MESSAGES.transactionNotFound(shown) });
}

/** The reference must be of a type the operation accepts, and must have succeeded. */
export function checkReference(operation: 'capture' | 'void' | 'credit', reference: Transaction): void {
  if (!REFERENCE_TYPES[operation].includes(reference.transactionType)) {
    throw new AppError({
      key: 'errors.reference_transaction_type_invalid',
      message: `A ${reference.transactionType} transaction cannot be referenced by ${operation}.`,
    });
  }
  if (reference.state !== TransactionState.succeeded) {
    throw new AppError({ key: 'errors.reference_transaction_not_succeeded', message: MESSAGES.referenceNotSucceeded });
  }
}

/**
 * What a capture or credit may still take from its reference, given its other children: the
 * reference's amount less what other captures (credits) hold; nothing once it is voided.
 */
export function remainingAmount(operation: 'capture' | 'credit', reference: Transaction, children: Transaction[], capturesAreFinal: boolean): number {
  const active = children.filter((child) => ACTIVE_STATES.includes(child.state));
  if (active.some((child) => child.transactionType === 'Void')) {
    throw new AppError({ key: 'errors.reference_transaction_already_settled', message: 'The reference transaction has been voided.' });
  }
  if (operation === 'capture' && capturesAreFinal && active.some((child) => child.transactionType === 'Capture')) {
    throw new AppError({ key: 'errors.reference_transaction_already_settled', message: 'This gateway settles an authorization with its first capture.' });
  }
  const kind = operation === 'capture' ? 'Capture' : 'Credit';
  const held = active.filter((child) => child.transactionType === kind).reduce((sum, child) => sum + (child.amount ?? 0), 0);
  return Math.max(0, (reference.amount ?? 0) - held);
}

/** A void is refused once a capture, credit or void holds against the reference. */
export function checkVoidable(children: Transaction[]): void {
  if (children.some((child) => ACTIVE_STATES.includes(child.state) && ['Capture', 'Credit', 'Void'].includes(child.transactionType))) {
    throw new AppError({
      key: 'errors.reference_transaction_already_settled',
      message: 'The reference transaction has already been captured, credited or voided.',
    });
  }
}
