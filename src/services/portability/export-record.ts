import { CARD_ADDRESS_FIELDS, CARD_SHIPPING_FIELDS, type JsonValue, type PaymentMethod } from '../../domain/payment-method.js';
import type { AdapterPaymentMethod } from '../../gateways/kit/index.js';

/*
 * One stored payment method as a line of the import format (docs/portability.md, "The file"), so
 * that a Coffer export imports into another Coffer and comes back the same: the token, type,
 * created_at, storage state, email, metadata, data, the card's or account's fields and the network
 * transaction id. Never a CVV (PCI DSS 3.3.1: none is kept past authorization, and the format has
 * no field for one). Fields without a value are left out, as the import reads "absent" as "none".
 */

type Line = Record<string, JsonValue>;

const CARD_TEXT = ['first_name', 'last_name', ...CARD_ADDRESS_FIELDS, ...CARD_SHIPPING_FIELDS] as const;

function put(target: Line, field: string, value: JsonValue | undefined): void {
  if (value !== undefined && value !== null && value !== '') target[field] = value;
}

/**
 * The line for `method`, with its sensitive values from `opened` (the sealer's `open`); null for a
 * method the format has no shape for (`sprel`) or whose values are gone (redacted).
 */
export function exportLineOf(method: PaymentMethod, opened: AdapterPaymentMethod | null): Line | null {
  const line: Line = { token: method.token, payment_method_type: method.paymentMethodType, created_at: method.createdAt, storage_state: method.storageState };
  put(line, 'email', method.email);
  if (method.metadata !== null && Object.keys(method.metadata).length > 0) line.metadata = method.metadata;
  put(line, 'data', method.data);
  if (method.paymentMethodType === 'credit_card') {
    if (opened === null || opened.type !== 'credit_card') return null;
    const details = method.details;
    const card: Line = { number: opened.number.reveal() };
    put(card, 'month', details.month);
    put(card, 'year', details.year);
    for (const field of CARD_TEXT) put(card, field, details[field]);
    put(card, 'eligible_for_card_updater', details.eligible_for_card_updater);
    line.credit_card = card;
  } else if (method.paymentMethodType === 'bank_account') {
    if (opened === null || opened.type !== 'bank_account') return null;
    const details = method.details;
    const account: Line = { bank_routing_number: opened.routingNumber.reveal(), bank_account_number: opened.accountNumber.reveal() };
    put(account, 'bank_account_type', details.account_type);
    put(account, 'bank_account_holder_type', details.account_holder_type);
    put(account, 'bank_name', details.bank_name);
    put(account, 'first_name', details.first_name);
    put(account, 'last_name', details.last_name);
    line.bank_account = account;
  } else if (method.paymentMethodType === 'third_party_token') {
    const reference: Line = {};
    put(reference, 'reference', method.details.third_party_token);
    put(reference, 'gateway_type', method.details.gateway_type);
    line.third_party_token = reference;
  } else {
    return null;
  }
  put(line, 'network_transaction_id', method.details.network_transaction_id ?? null);
  return line;
}

/** Whether the method's sensitive values must be opened for its line (a third-party token has none). */
export function needsOpening(method: PaymentMethod): boolean {
  return method.paymentMethodType === 'credit_card' || method.paymentMethodType === 'bank_account';
}
