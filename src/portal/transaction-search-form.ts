import { AppError, type ErrorEntry } from '../domain/errors.js';
import { currencyExponent } from '../domain/money.js';
import { isTransactionState, TRANSACTION_TYPES, type TransactionSearch } from '../domain/transaction.js';
import { fullNumberRefused, holdsFullNumber, isWholeNumber } from './full-number-guard.js';
import { dayRange, pagePosition } from './search-form-fields.js';

/** The boxes of "find a payment", by form field: their labels (the only thing an error names). */
export const TRANSACTION_SEARCH_FIELDS = {
  token: 'Token',
  order_id: 'Order id',
  last_four: 'Card last four',
  gateway: 'Gateway',
  state: 'State',
  type: 'Type',
  amount_from: 'Amount from',
  amount_to: 'Amount to',
  currency: 'Currency',
  from: 'From',
  to: 'To',
  before: 'before',
} as const;

export type TransactionSearchField = keyof typeof TRANSACTION_SEARCH_FIELDS;
export type GivenTransactionSearch = Partial<Record<TransactionSearchField, string>>;

const TOKEN = /^[A-Za-z0-9_-]{1,64}$/;
const AMOUNT = /^\d{1,12}(?:\.\d{1,4})?$/;

function invalid(field: TransactionSearchField, message: string): ErrorEntry {
  return { key: 'errors.invalid', attribute: field, message: `${TRANSACTION_SEARCH_FIELDS[field]} ${message}` };
}

/** "12.5" in a currency of exponent 2 → 1250; undefined when it has more decimals than the currency. */
export function minorUnits(text: string, exponent: number): number | undefined {
  const [whole = '0', fraction = ''] = text.split('.');
  if (fraction.length > exponent) return undefined;
  return Number(whole) * 10 ** exponent + Number(fraction.padEnd(exponent, '0') || '0');
}

/**
 * The form's values (POSTed, or the query of the page it redirected to) as a repository search,
 * plus the card's last four (resolved by the service). A full card number in any box is refused
 * first, naming the box and never the value; amounts are read in the currency's units (two
 * decimals when no currency is chosen).
 */
export function transactionSearchOf(values: Record<string, string>, count: number): { filter: TransactionSearch; lastFour?: string; given: GivenTransactionSearch } {
  const given: GivenTransactionSearch = {};
  for (const field of Object.keys(TRANSACTION_SEARCH_FIELDS) as TransactionSearchField[]) {
    const value = (values[field] ?? '').trim();
    if (value === '') continue;
    if (isWholeNumber(value) || holdsFullNumber(value)) throw fullNumberRefused(TRANSACTION_SEARCH_FIELDS[field]);
    given[field] = value;
  }
  const errors: ErrorEntry[] = [];
  const filter: TransactionSearch = { count };
  let lastFour: string | undefined;
  if (given.token !== undefined) {
    if (TOKEN.test(given.token)) filter.token = given.token;
    else errors.push(invalid('token', 'is not a transaction token.'));
  }
  if (given.order_id !== undefined) filter.orderId = given.order_id.slice(0, 255);
  if (given.last_four !== undefined) {
    if (/^\d{4}$/.test(given.last_four)) lastFour = given.last_four;
    else errors.push(invalid('last_four', 'must be exactly 4 digits.'));
  }
  if (given.gateway !== undefined) {
    if (TOKEN.test(given.gateway)) filter.gatewayToken = given.gateway;
    else errors.push(invalid('gateway', 'is not a gateway of this environment.'));
  }
  if (given.state !== undefined) {
    if (isTransactionState(given.state)) filter.state = given.state;
    else errors.push(invalid('state', 'is not a transaction state.'));
  }
  if (given.type !== undefined) {
    if ((TRANSACTION_TYPES as readonly string[]).includes(given.type)) filter.type = given.type;
    else errors.push(invalid('type', 'is not a transaction type.'));
  }
  let exponent = 2;
  if (given.currency !== undefined) {
    const code = given.currency.toUpperCase();
    const known = currencyExponent(code);
    if (known === undefined) errors.push(invalid('currency', 'is not an ISO 4217 currency Coffer knows.'));
    else {
      filter.currency = code;
      exponent = known;
    }
  }
  for (const [field, key] of [['amount_from', 'amountFrom'], ['amount_to', 'amountTo']] as const) {
    const text = given[field];
    if (text === undefined) continue;
    const minor = AMOUNT.test(text) ? minorUnits(text, exponent) : undefined;
    if (minor === undefined) errors.push(invalid(field, `must be an amount such as ${exponent === 0 ? '1000' : `10.${'0'.repeat(exponent)}`}.`));
    else filter[key] = minor;
  }
  const days = dayRange(given, (field, message) => errors.push(invalid(field, message)));
  if (days.from !== undefined) filter.from = days.from;
  if (days.to !== undefined) filter.to = days.to;
  const position = pagePosition(given.before, (message) => errors.push(invalid('before', message)));
  if (position !== undefined) filter.beforePosition = position;
  if (errors.length > 0) throw new AppError(errors);
  return { filter, given, ...(lastFour === undefined ? {} : { lastFour }) };
}

/** The search's query string: the boxes given, in a fixed order, `extra` replacing some (never a refused value). */
export function transactionQueryString(given: GivenTransactionSearch, extra: GivenTransactionSearch = {}): string {
  const params = new URLSearchParams();
  for (const field of Object.keys(TRANSACTION_SEARCH_FIELDS) as TransactionSearchField[]) {
    const value = field in extra ? extra[field] : given[field];
    if (value !== undefined && value !== '') params.set(field, value);
  }
  return params.toString();
}
