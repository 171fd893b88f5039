import { CARD_ADDRESS_FIELDS, CARD_SHIPPING_FIELDS, type JsonValue, type Metadata } from '../../domain/payment-method.js';
import { containsCardLike } from '../../domain/scrubbing/card-like.js';
import type { AdoptedPaymentMethod } from './adopt-payment-method.js';

/*
 * One record of an import file (a JSON line, or a CSV row made into the same shape) checked
 * against the format of docs/portability.md and turned into what adoption takes. A refusal names
 * a reason and at most a field's name: never a value, which may be a card number.
 */

/** Why a row was refused (docs/portability.md, "What is refused, and why"). */
export type RejectionReason = 'malformed' | 'unknown_field' | 'cvv_present' | 'luhn' | 'number_invalid' | 'expiry' | 'invalid' | 'token_taken' | 'not_activated';

export interface Rejection {
  reason: RejectionReason;
  /** The field concerned (its name only). */
  field?: string;
}

/** A record ready for adoption: the method, and the token the file gave it (null when none). */
export interface ImportRecord {
  method: Omit<AdoptedPaymentMethod, 'token'>;
  /** The token of the file, when it fits Coffer's token rules or is to be replaced (`fits`). */
  oldToken: string | null;
  fits: boolean;
}

const TOP_FIELDS = new Set([
  'token',
  'payment_method_type',
  'created_at',
  'storage_state',
  'email',
  'metadata',
  'data',
  'credit_card',
  'bank_account',
  'third_party_token',
  'network_transaction_id',
  'network_transaction_ids',
]);
const CARD_TEXT = new Set(['first_name', 'last_name', 'full_name', ...CARD_ADDRESS_FIELDS, ...CARD_SHIPPING_FIELDS]);
const CARD_FIELDS = new Set([...CARD_TEXT, 'number', 'month', 'year', 'eligible_for_card_updater']);
const BANK_FIELDS = new Set(['bank_routing_number', 'bank_account_number', 'bank_account_type', 'bank_account_holder_type', 'bank_name', 'first_name', 'last_name', 'full_name']);
const THIRD_PARTY_FIELDS = new Set(['reference', 'gateway_type']);
/** Names a card's verification value goes by in other vaults' files: known, so refused as a CVV, not as unknown. */
export const CVV_FIELDS = new Set(['verification_value', 'cvv', 'cvc', 'cvv2', 'cvc2', 'security_code']);
const NESTED: Record<string, { type: AdoptedPaymentMethod['type']; fields: Set<string> }> = {
  credit_card: { type: 'credit_card', fields: CARD_FIELDS },
  bank_account: { type: 'bank_account', fields: BANK_FIELDS },
  third_party_token: { type: 'third_party_token', fields: THIRD_PARTY_FIELDS },
};

/** Coffer's token rules: letters and digits (1–64), and nothing a log scrubber would take for a card number. */
export function fitsTokenRules(token: string): boolean {
  return /^[A-Za-z0-9]{1,64}$/.test(token) && !/\d{12,}/.test(token) && !containsCardLike(token);
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

type Result = ImportRecord | Rejection;

/** A parsed JSON line (or CSV row in the same shape) → a record, or why it is refused. */
export function importRecordOf(value: unknown): Result {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { reason: 'malformed' };
  const line = value as Record<string, unknown>;
  for (const field of Object.keys(line)) {
    if (CVV_FIELDS.has(field)) {
      if (present(line[field])) return { reason: 'cvv_present', field };
    } else if (!TOP_FIELDS.has(field)) return { reason: 'unknown_field', field };
  }
  const nestedNames = Object.keys(NESTED).filter((name) => line[name] !== undefined && line[name] !== null);
  const declared = line.payment_method_type;
  if (declared !== undefined && (typeof declared !== 'string' || !(declared in NESTED))) return { reason: 'invalid', field: 'payment_method_type' };
  const typeName = (declared as string | undefined) ?? nestedNames[0];
  if (typeName === undefined || nestedNames.some((name) => name !== typeName)) return { reason: 'invalid', field: 'payment_method_type' };
  const nested = line[typeName] ?? {};
  if (typeof nested !== 'object' || Array.isArray(nested)) return { reason: 'invalid', field: typeName };
  const spec = NESTED[typeName] as { type: AdoptedPaymentMethod['type']; fields: Set<string> };
  const fields: Record<string, unknown> = {};
  for (const [field, item] of Object.entries(nested as Record<string, unknown>)) {
    if (CVV_FIELDS.has(field)) {
      if (present(item)) return { reason: 'cvv_present', field: `${typeName}.${field}` };
      continue;
    }
    if (!spec.fields.has(field)) return { reason: 'unknown_field', field: `${typeName}.${field}` };
    if (item !== null && item !== undefined && item !== '') fields[field] = item;
  }
  const common = commonFields(line);
  if ('reason' in common) return common;
  const token = line.token;
  if (token !== undefined && token !== null && typeof token !== 'string') return { reason: 'invalid', field: 'token' };
  // A token that reads as a card number is never echoed (in a report's old → new map) nor kept.
  if (typeof token === 'string' && (/\d{12,}/.test(token) || containsCardLike(token))) return { reason: 'invalid', field: 'token' };
  const oldToken = typeof token === 'string' && token !== '' ? token : null;
  const method: Omit<AdoptedPaymentMethod, 'token'> = { type: spec.type, ...common };
  if (spec.type === 'credit_card') {
    const card = cardOf(fields);
    if ('reason' in card) return card;
    method.card = card.card;
  } else {
    for (const [field, item] of Object.entries(fields)) if (typeof item !== 'string') return { reason: 'invalid', field: `${typeName}.${field}` };
    if (spec.type === 'bank_account') method.bankAccount = fields as AdoptedPaymentMethod['bankAccount'];
    else method.thirdParty = fields as AdoptedPaymentMethod['thirdParty'];
  }
  return { method, oldToken, fits: oldToken !== null && fitsTokenRules(oldToken) };
}

type Common = Pick<AdoptedPaymentMethod, 'storageState' | 'createdAt' | 'email' | 'metadata' | 'data' | 'networkTransactionId'>;

function commonFields(line: Record<string, unknown>): Common | Rejection {
  const state = line.storage_state ?? 'retained';
  if (state !== 'retained' && state !== 'cached') return { reason: 'invalid', field: 'storage_state' };
  for (const field of ['created_at', 'email', 'network_transaction_id'] as const) {
    if (line[field] !== undefined && line[field] !== null && typeof line[field] !== 'string') return { reason: 'invalid', field };
  }
  const metadata = line.metadata;
  if (metadata !== undefined && metadata !== null && (typeof metadata !== 'object' || Array.isArray(metadata))) return { reason: 'invalid', field: 'metadata' };
  const ids = line.network_transaction_ids;
  if (ids !== undefined && ids !== null && (typeof ids !== 'object' || Array.isArray(ids) || Object.values(ids).some((id) => typeof id !== 'string'))) {
    return { reason: 'invalid', field: 'network_transaction_ids' };
  }
  // Coffer keeps one network transaction id per method, whichever gateway returned it (the card
  // network's id is the same whatever gateway carries it): the single field, else the first of the map.
  const firstId = ids === undefined || ids === null ? undefined : (Object.values(ids as Record<string, string>)[0] ?? undefined);
  const networkTransactionId = (line.network_transaction_id as string | undefined) || firstId || null;
  return {
    storageState: state,
    createdAt: (line.created_at as string | undefined) || null,
    email: (line.email as string | undefined) ?? null,
    metadata: (metadata as Metadata | undefined) ?? null,
    data: line.data === undefined ? null : (line.data as JsonValue),
    networkTransactionId,
  };
}

/** Month and year as whole numbers (files often carry them as text), text fields as text. */
function cardOf(fields: Record<string, unknown>): { card: NonNullable<AdoptedPaymentMethod['card']> } | Rejection {
  const card: Record<string, unknown> = {};
  for (const [field, item] of Object.entries(fields)) {
    if (field === 'month' || field === 'year') {
      const number = typeof item === 'number' ? item : typeof item === 'string' && /^\d{1,4}$/.test(item.trim()) ? Number(item.trim()) : NaN;
      if (!Number.isInteger(number)) return { reason: 'expiry', field };
      card[field] = number;
    } else if (field === 'eligible_for_card_updater') {
      if (typeof item === 'boolean') card[field] = item;
      else if (item === 'true' || item === 'false') card[field] = item === 'true';
      else return { reason: 'invalid', field: `credit_card.${field}` };
    } else if (field === 'number') {
      if (typeof item !== 'string' && typeof item !== 'number') return { reason: 'number_invalid' };
      card.number = String(item);
    } else if (typeof item === 'string' || typeof item === 'number') card[field] = String(item);
    else return { reason: 'invalid', field: `credit_card.${field}` };
  }
  return { card: card as NonNullable<AdoptedPaymentMethod['card']> };
}
