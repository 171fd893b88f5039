import type { PaymentMethodCreateInput } from '../../src/domain/payment-method.js';

/**
 * Service-level inputs for `core.paymentMethods.create`, as the HTTP layer would hand them over
 * (no single-use, no allow_* flags).
 */

export interface CardHolder {
  first_name: string;
  last_name: string;
}

const NO_FLAGS = { singleUse: false, allowBlankName: false, allowExpiredDate: false, allowBlankDate: false } as const;

/** A credit card of `holder`; the CVV is left out when null. */
export function creditCardInput(
  holder: CardHolder,
  card: { number: string; month: number; year: number; cvv: string | null },
  retained: boolean,
): PaymentMethodCreateInput {
  return {
    type: 'credit_card',
    card: { ...holder, number: card.number, month: card.month, year: card.year, ...(card.cvv === null ? {} : { verification_value: card.cvv }) },
    retained,
    ...NO_FLAGS,
  };
}

/** A bank account of `holder` at routing number 021000021. */
export function bankAccountInput(holder: CardHolder, account: string, retained: boolean): PaymentMethodCreateInput {
  return {
    type: 'bank_account',
    bankAccount: { ...holder, bank_routing_number: '021000021', bank_account_number: account },
    retained,
    ...NO_FLAGS,
  };
}
