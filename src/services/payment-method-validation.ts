import { fieldError, type ErrorEntry } from '../domain/errors.js';
import type { BankAccountInput, CardInput, Metadata, ThirdPartyTokenInput, ValidationAllowances } from '../domain/payment-method.js';
import { checkCardNumber, isExpired, isValidMonth, isValidYear, validAccountNumber, validRoutingNumber } from '../vault/card-rules.js';
import { resolveNames } from './payment-method-records.js';

/*
 * Spreedly-style validation: every problem is reported at once, each as a field error with
 * the attribute and message clients display ("First name can't be blank", "Year is expired").
 */

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const CVV = /^\d{3,4}$/;

export const METADATA_LIMITS = { keys: 25, keyLength: 50, valueLength: 500 } as const;

function blankText(value: string | undefined): boolean {
  return value === undefined || value.trim() === '';
}

/** Names are required unless `allow_blank_name`. */
export function nameErrors(first: string | null | undefined, last: string | null | undefined, allow: ValidationAllowances): ErrorEntry[] {
  if (allow.allowBlankName) return [];
  const errors: ErrorEntry[] = [];
  if (blankText(first ?? undefined)) errors.push(fieldError.blank('first_name'));
  if (blankText(last ?? undefined)) errors.push(fieldError.blank('last_name'));
  return errors;
}

/** Month and year: present (unless allow_blank_date), in range, not past (unless allow_expired_date). */
export function expiryErrors(month: number | null | undefined, year: number | null | undefined, allow: ValidationAllowances, now: Date): ErrorEntry[] {
  const errors: ErrorEntry[] = [];
  const hasMonth = month !== null && month !== undefined;
  const hasYear = year !== null && year !== undefined;
  if (!hasMonth && !allow.allowBlankDate) errors.push(fieldError.blank('month'));
  if (hasMonth && !isValidMonth(month)) errors.push(fieldError.invalid('month'));
  if (!hasYear && !allow.allowBlankDate) errors.push(fieldError.blank('year'));
  if (hasYear && !isValidYear(year)) errors.push(fieldError.invalid('year'));
  if (errors.length === 0 && hasMonth && hasYear && !allow.allowExpiredDate && isExpired(month, year, now)) errors.push(fieldError.expired('year'));
  return errors;
}

export function emailErrors(email: string | undefined): ErrorEntry[] {
  return email === undefined || EMAIL.test(email) ? [] : [fieldError.invalid('email')];
}

export function verificationValueErrors(value: string | undefined): ErrorEntry[] {
  return value === undefined || CVV.test(value) ? [] : [fieldError.invalid('verification_value')];
}

/** A new card: number, names, expiry, CVV format. */
export function cardErrors(card: CardInput, allow: ValidationAllowances, now: Date): ErrorEntry[] {
  const errors: ErrorEntry[] = [];
  if (blankText(card.number)) errors.push(fieldError.blank('number'));
  else if (!checkCardNumber(card.number as string).valid) errors.push(fieldError.invalid('number'));
  // A full_name alone counts: it is split into first and last name.
  const names = resolveNames(card);
  errors.push(...nameErrors(names.first, names.last, allow));
  errors.push(...expiryErrors(card.month, card.year, allow, now));
  errors.push(...verificationValueErrors(card.verification_value));
  return errors;
}

const ACCOUNT_TYPES = ['checking', 'savings'];
const HOLDER_TYPES = ['personal', 'business'];

export function bankAccountErrors(bank: BankAccountInput, allow: ValidationAllowances): ErrorEntry[] {
  const errors: ErrorEntry[] = [];
  if (blankText(bank.bank_routing_number)) errors.push(fieldError.blank('bank_routing_number'));
  else if (!validRoutingNumber(bank.bank_routing_number as string)) errors.push(fieldError.invalid('bank_routing_number'));
  if (blankText(bank.bank_account_number)) errors.push(fieldError.blank('bank_account_number'));
  else if (!validAccountNumber(bank.bank_account_number as string)) errors.push(fieldError.invalid('bank_account_number'));
  const names = resolveNames(bank);
  errors.push(...nameErrors(names.first, names.last, allow));
  if (bank.bank_account_type !== undefined && !ACCOUNT_TYPES.includes(bank.bank_account_type)) errors.push(fieldError.inclusion('bank_account_type'));
  if (bank.bank_account_holder_type !== undefined && !HOLDER_TYPES.includes(bank.bank_account_holder_type)) {
    errors.push(fieldError.inclusion('bank_account_holder_type'));
  }
  return errors;
}

export function thirdPartyErrors(input: ThirdPartyTokenInput): ErrorEntry[] {
  const errors: ErrorEntry[] = [];
  if (blankText(input.reference)) errors.push(fieldError.blank('reference'));
  if (blankText(input.gateway_type)) errors.push(fieldError.blank('gateway_type'));
  return errors;
}

function metadataError(message: string): ErrorEntry {
  return { key: 'errors.invalid', attribute: 'metadata', message };
}

/** Checks metadata against Spreedly's limits and returns it typed, or the errors. */
export function checkMetadata(value: unknown): { metadata: Metadata | null; errors: ErrorEntry[] } {
  if (value === undefined || value === null) return { metadata: null, errors: [] };
  if (typeof value !== 'object' || Array.isArray(value)) return { metadata: null, errors: [metadataError('Metadata must be a set of key-value pairs')] };
  const entries = Object.entries(value as Record<string, unknown>);
  const errors: ErrorEntry[] = [];
  if (entries.length > METADATA_LIMITS.keys) errors.push(metadataError(`Metadata cannot have more than ${METADATA_LIMITS.keys} keys`));
  for (const [key, item] of entries) {
    if (key.length > METADATA_LIMITS.keyLength) errors.push(metadataError(`Metadata keys must be ${METADATA_LIMITS.keyLength} characters or fewer`));
    if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') {
      errors.push(metadataError('Metadata values must be strings, numbers or booleans'));
    } else if (String(item).length > METADATA_LIMITS.valueLength) {
      errors.push(metadataError(`Metadata values must be ${METADATA_LIMITS.valueLength} characters or fewer`));
    }
  }
  // One message per kind of problem is enough.
  const unique = errors.filter((error, index) => errors.findIndex((other) => other.message === error.message) === index);
  return { metadata: unique.length === 0 ? (value as Metadata) : null, errors: unique };
}
