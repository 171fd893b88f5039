import { CARD_ADDRESS_FIELDS, CARD_SHIPPING_FIELDS } from '../../domain/payment-method.js';
import { CVV_FIELDS } from './import-record.js';

/*
 * The CSV shape of the import (docs/portability.md, "CSV"): named columns, each mapped to its
 * place in the JSON line's shape, so both go through the same checks (import-record.ts).
 */

type Place = { nested: 'credit_card' | 'bank_account' | 'third_party_token' | null; field: string; json?: boolean };

const TOP: Record<string, Place> = {
  token: { nested: null, field: 'token' },
  payment_method_type: { nested: null, field: 'payment_method_type' },
  created_at: { nested: null, field: 'created_at' },
  storage_state: { nested: null, field: 'storage_state' },
  email: { nested: null, field: 'email' },
  metadata: { nested: null, field: 'metadata', json: true },
  data: { nested: null, field: 'data', json: true },
  network_transaction_id: { nested: null, field: 'network_transaction_id' },
  network_transaction_ids: { nested: null, field: 'network_transaction_ids', json: true },
  third_party_reference: { nested: 'third_party_token', field: 'reference' },
  gateway_type: { nested: 'third_party_token', field: 'gateway_type' },
};
const CARD_ONLY = ['number', 'month', 'year', 'eligible_for_card_updater', ...CARD_ADDRESS_FIELDS, ...CARD_SHIPPING_FIELDS];
const BANK_ONLY = ['bank_routing_number', 'bank_account_number', 'bank_account_type', 'bank_account_holder_type', 'bank_name'];
/** Names and addresses shared by cards and bank accounts: placed by the row's type. */
const SHARED = ['first_name', 'last_name', 'full_name'];

/** Columns no CSV import may have, by name only (a CVV column is allowed, to refuse its filled cells row by row). */
export function unknownColumns(header: string[]): string[] {
  const known = new Set([...Object.keys(TOP), ...CARD_ONLY, ...BANK_ONLY, ...SHARED, ...CVV_FIELDS]);
  return header.filter((column) => !known.has(column));
}

/** A CSV row (column → cell) in the JSON line's shape; empty cells are "not given". A JSON cell that is not JSON: the field's name. */
export function csvRowToLine(row: Record<string, string>): Record<string, unknown> | { invalidJson: string } {
  const line: Record<string, unknown> = {};
  const nested: Record<string, Record<string, unknown>> = {};
  const type = row.payment_method_type !== undefined && row.payment_method_type !== '' ? row.payment_method_type : 'credit_card';
  const put = (place: 'credit_card' | 'bank_account' | 'third_party_token', field: string, value: unknown) => {
    nested[place] = { ...(nested[place] ?? {}), [field]: value };
  };
  for (const [column, cell] of Object.entries(row)) {
    if (cell === '') continue;
    const top = TOP[column];
    if (top !== undefined) {
      let value: unknown = cell;
      if (top.json === true) {
        try {
          value = JSON.parse(cell);
        } catch {
          return { invalidJson: column };
        }
      }
      if (top.nested === null) line[top.field] = value;
      else put(top.nested, top.field, value);
    } else if (CVV_FIELDS.has(column)) put('credit_card', column, cell);
    else if (CARD_ONLY.includes(column)) put('credit_card', column, cell);
    else if (BANK_ONLY.includes(column)) put('bank_account', column, cell);
    else if (SHARED.includes(column)) put(type === 'bank_account' ? 'bank_account' : 'credit_card', column, cell);
  }
  if (line.payment_method_type === undefined) line.payment_method_type = type;
  return { ...line, ...nested };
}
