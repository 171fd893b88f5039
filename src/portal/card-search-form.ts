import { AppError, type ErrorEntry } from '../domain/errors.js';
import { STORAGE_STATES, type StorageState } from '../domain/payment-method.js';
import type { PaymentMethodSearch } from '../domain/payment-method-search.js';
import { fullNumberRefused, holdsFullNumber, isWholeNumber } from './full-number-guard.js';
import { dayRange, pagePosition } from './search-form-fields.js';

/** The boxes of the card search, by form field: their labels (the only thing an error names). */
export const CARD_SEARCH_FIELDS = {
  last_four: 'Last four',
  first_six: 'First six',
  name: 'Cardholder name',
  email: 'Email',
  fingerprint: 'Fingerprint',
  metadata_key: 'Metadata key',
  metadata_value: 'Metadata value',
  state: 'State',
  from: 'Created from',
  to: 'Created to',
  before: 'before',
} as const;

export type CardSearchField = keyof typeof CARD_SEARCH_FIELDS;


function invalid(field: CardSearchField, message: string): ErrorEntry {
  return { key: 'errors.invalid', attribute: field, message: `${CARD_SEARCH_FIELDS[field]} ${message}` };
}

/**
 * The search form's values (POSTed, or the query of the page it redirected to) as a repository
 * search. A full card number in any box is refused first, naming the box and never the value;
 * other malformed values are a 422 naming the box. Only the fields of CARD_SEARCH_FIELDS are read.
 */
export function cardSearchOf(values: Record<string, string>, count: number): { search: PaymentMethodSearch; given: Partial<Record<CardSearchField, string>> } {
  const given: Partial<Record<CardSearchField, string>> = {};
  for (const field of Object.keys(CARD_SEARCH_FIELDS) as CardSearchField[]) {
    const value = (values[field] ?? '').trim();
    if (value === '') continue;
    if (isWholeNumber(value) || (field !== 'fingerprint' && holdsFullNumber(value))) throw fullNumberRefused(CARD_SEARCH_FIELDS[field]);
    given[field] = value;
  }
  const errors: ErrorEntry[] = [];
  const search: PaymentMethodSearch = { count };
  if (given.last_four !== undefined) {
    if (/^\d{4}$/.test(given.last_four)) search.lastFour = given.last_four;
    else errors.push(invalid('last_four', 'must be exactly 4 digits.'));
  }
  if (given.first_six !== undefined) {
    if (/^\d{6}$/.test(given.first_six)) search.firstSix = given.first_six;
    else errors.push(invalid('first_six', 'must be exactly 6 digits.'));
  }
  if (given.name !== undefined) {
    if (given.name.length <= 100) search.namePrefix = given.name.replace(/\s+/g, ' ');
    else errors.push(invalid('name', 'is too long (at most 100 characters).'));
  }
  if (given.email !== undefined) {
    if (given.email.length <= 255 && given.email.includes('@')) search.email = given.email;
    else errors.push(invalid('email', 'must be a whole email address.'));
  }
  if (given.fingerprint !== undefined) {
    if (/^[0-9a-f]{36}$/i.test(given.fingerprint)) search.fingerprint = given.fingerprint.toLowerCase();
    else errors.push(invalid('fingerprint', 'must be the 36 hexadecimal characters of a fingerprint.'));
  }
  if (given.metadata_key !== undefined || given.metadata_value !== undefined) {
    if (given.metadata_key === undefined || given.metadata_value === undefined) errors.push(invalid('metadata_key', 'and value go together.'));
    else if (given.metadata_key.length > 50 || given.metadata_value.length > 500) errors.push(invalid('metadata_value', 'is too long.'));
    else search.metadata = { key: given.metadata_key, value: given.metadata_value };
  }
  if (given.state !== undefined) {
    if ((STORAGE_STATES as readonly string[]).includes(given.state)) search.states = [given.state as StorageState];
    else errors.push(invalid('state', 'is not one of the storage states.'));
  }
  const days = dayRange(given, (field, message) => errors.push(invalid(field, message)));
  if (days.from !== undefined) search.createdFrom = days.from;
  if (days.to !== undefined) search.createdTo = days.to;
  const position = pagePosition(given.before, (message) => errors.push(invalid('before', message)));
  if (position !== undefined) search.beforePosition = position;
  if (errors.length > 0) throw new AppError(errors);
  return { search, given };
}

/** True when the search has any key besides paging: an empty search lists the newest methods. */
export function searchesAnything(given: Partial<Record<CardSearchField, string>>): boolean {
  return Object.keys(given).some((field) => field !== 'before');
}
