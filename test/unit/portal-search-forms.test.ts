import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { cardSearchOf } from '../../src/portal/card-search-form.js';
import { csvCell, csvLine } from '../../src/portal/csv.js';
import { FULL_NUMBER_REFUSED, holdsFullNumber, isWholeNumber } from '../../src/portal/full-number-guard.js';
import { minorUnits, transactionQueryString, transactionSearchOf } from '../../src/portal/transaction-search-form.js';
import { prefixUpperBound } from '../../src/store/repositories/payment-method-search.js';

/** The messages of the AppError `run` throws (and that it throws one). */
function refusal(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).entries.map((entry) => entry.message);
  }
  throw new Error('expected a refusal');
}

describe('a full card number in a search box', () => {
  it('is recognised whole, separated, Luhn-valid or not, and inside other words', () => {
    for (const text of ['4111111111111111', '4111 1111 1111 1111', '4111-1111-1111-1111', '4111.1111.1111.1111', '4111111111111112', '3714496353984312345', 'card 5555555555554444 of Bob']) {
      expect(holdsFullNumber(text), text).toBe(true);
    }
    expect(isWholeNumber('4111 1111 1111 1111')).toBe(true);
    expect(isWholeNumber('411111111111')).toBe(false);
    for (const text of ['1111', '411111', 'Ada Lovelace', 'order-2024-0001', 'customer12@example.com', '12.50']) expect(holdsFullNumber(text), text).toBe(false);
  });

  it('is refused by both forms, naming the box and never the value', () => {
    for (const field of ['last_four', 'name', 'email', 'metadata_value', 'fingerprint']) {
      const messages = refusal(() => cardSearchOf({ [field]: '4111 1111 1111 1111' }, 50));
      expect(messages).toHaveLength(1);
      expect(messages[0]).toContain(FULL_NUMBER_REFUSED);
      expect(messages[0]).not.toContain('4111');
    }
    for (const field of ['order_id', 'token', 'last_four', 'amount_from', 'currency']) {
      expect(refusal(() => transactionSearchOf({ [field]: '5555555555554444' }, 50))[0]).toContain(FULL_NUMBER_REFUSED);
    }
  });
});

describe('the card search form', () => {
  it('reads every box', () => {
    const { search } = cardSearchOf({ last_four: '1111', first_six: '411111', name: ' Ada   Lo ', email: 'Ada@Example.com', fingerprint: 'A'.repeat(36), state: 'retained', metadata_key: 'k', metadata_value: 'v', from: '2026-03-01', to: '2026-03-01', before: '12' }, 50);
    expect(search).toEqual({
      count: 50, lastFour: '1111', firstSix: '411111', namePrefix: 'Ada Lo', email: 'Ada@Example.com', fingerprint: 'a'.repeat(36), states: ['retained'],
      metadata: { key: 'k', value: 'v' }, createdFrom: '2026-03-01T00:00:00.000Z', createdTo: '2026-03-02T00:00:00.000Z', beforePosition: 12,
    });
  });

  it('refuses each malformed box by its label, all at once', () => {
    const messages = refusal(() => cardSearchOf({ last_four: '123', first_six: 'abcdef', name: 'x'.repeat(101), email: 'no-at-sign', fingerprint: 'zz', state: 'lost', metadata_value: 'v', from: '2026-13-45', to: 'soon', before: '-1' }, 50));
    expect(messages).toEqual([
      'Last four must be exactly 4 digits.',
      'First six must be exactly 6 digits.',
      'Cardholder name is too long (at most 100 characters).',
      'Email must be a whole email address.',
      'Fingerprint must be the 36 hexadecimal characters of a fingerprint.',
      'Metadata key and value go together.',
      'State is not one of the storage states.',
      'Created from must be a date (YYYY-MM-DD).',
      'Created to must be a date (YYYY-MM-DD).',
      'before is not a page of this search.',
    ]);
    expect(refusal(() => cardSearchOf({ metadata_key: 'k', metadata_value: 'v'.repeat(501) }, 50))).toEqual(['Metadata value is too long.']);
  });
});

describe('the payment search form', () => {
  it('reads amounts in the currency\'s units', () => {
    expect(minorUnits('12.5', 2)).toBe(1250);
    expect(minorUnits('12', 0)).toBe(12);
    expect(minorUnits('1.234', 3)).toBe(1234);
    expect(minorUnits('1.5', 0)).toBeUndefined();
    const { filter, lastFour } = transactionSearchOf({ amount_from: '10', amount_to: '20.5', currency: 'usd', last_four: '4242', state: 'succeeded', type: 'Purchase', from: '2026-03-01', to: '2026-03-02' }, 50);
    expect(filter).toEqual({ count: 50, amountFrom: 1000, amountTo: 2050, currency: 'USD', state: 'succeeded', type: 'Purchase', from: '2026-03-01T00:00:00.000Z', to: '2026-03-03T00:00:00.000Z' });
    expect(lastFour).toBe('4242');
    expect(transactionSearchOf({ amount_from: '1000', currency: 'JPY' }, 50).filter.amountFrom).toBe(1000);
  });

  it('refuses each malformed box by its label', () => {
    expect(refusal(() => transactionSearchOf({ token: 'a b', last_four: '12', gateway: 'g/1', state: 'won', type: 'Gift', currency: 'XYZ', amount_from: 'ten', from: '1/2/2026', before: 'x' }, 50))).toEqual([
      'Token is not a transaction token.',
      'Card last four must be exactly 4 digits.',
      'Gateway is not a gateway of this environment.',
      'State is not a transaction state.',
      'Type is not a transaction type.',
      'Currency is not an ISO 4217 currency Coffer knows.',
      'Amount from must be an amount such as 10.00.',
      'From must be a date (YYYY-MM-DD).',
      'before is not a page of this search.',
    ]);
    expect(refusal(() => transactionSearchOf({ amount_to: '1.5', currency: 'JPY' }, 50))).toEqual(['Amount to must be an amount such as 1000.']);
  });

  it('writes the query of a search in a fixed order, a page cursor replaced', () => {
    expect(transactionQueryString({ currency: 'USD', order_id: 'o 1', before: '9' }, { before: '5' })).toBe('order_id=o+1&currency=USD&before=5');
    expect(transactionQueryString({ order_id: 'o', before: '9' }, { before: '' })).toBe('order_id=o');
  });
});

describe('CSV cells', () => {
  it('quotes every cell, doubles quotes and defuses formulas', () => {
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(csvCell(`${start}SUM(A1)`)).toBe(`"'${start}SUM(A1)"`);
    expect(csvCell(-5)).toBe('"-5"');
    expect(csvCell(null)).toBe('""');
    expect(csvLine(['a', 1, null])).toBe('"a","1",""\r\n');
  });
});

describe('a name prefix as a range', () => {
  it('ends just after every name that starts with it', () => {
    expect(prefixUpperBound('ada')).toBe('adb');
    expect(prefixUpperBound('zoë')).toBe('zoì');
    expect('ada lovelace' < prefixUpperBound('ada') && 'ada lovelace' >= 'ada').toBe(true);
  });
});
