import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  accountDisplayDigits, checkCardNumber, detectCardType, firstSix, isExpired, isValidMonth, isValidYear,
  issuerIdentificationNumber, joinFullName, lastFour, luhnValid, maskedAccountNumber, maskedNumber,
  maskedRoutingNumber, maskedVerificationValue, normalizePan, routingDisplayDigits, splitFullName,
  validAccountNumber, validPanLength, validRoutingNumber,
} from '../../src/vault/card-rules.js';
import {
  CLOSED_ACCOUNT_CARD, GATEWAY_ERROR_CARD, STORE_FAILS_CARD, TEST_CARD_NUMBERS, TEST_CARD_OUTCOMES, TEST_CARDS, THREE_DS_CARDS,
  TIMEOUT_CARD,
} from '../../src/domain/test-cards.js';
import { isTestBankAccount, isTestCard, TEST_BANK_ROUTING_NUMBERS } from '../../src/vault/test-cards.js';

/** Luhn check digit computed independently of the code under test. */
function checkDigit(payload: string): string {
  let sum = 0;
  [...payload].reverse().forEach((c, i) => {
    const d = Number(c) * (i % 2 === 0 ? 2 : 1);
    sum += d > 9 ? d - 9 : d;
  });
  return String((10 - (sum % 10)) % 10);
}

const digitString = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((ds) => ds.join(''));

describe('test cards', () => {
  it.each(TEST_CARDS.map((c) => [c.number, c.brand, c.label] as const))('%s detects as %s (%s), Luhn valid, test card', (number, brand) => {
    expect(detectCardType(number)).toBe(brand);
    expect(luhnValid(number)).toBe(true);
    expect(isTestCard(number)).toBe(true);
    expect(checkCardNumber(number)).toEqual({ digits: number, cardType: brand, valid: true });
  });

  it('lists every number from the docs, with declines and Coffer additions', () => {
    expect(TEST_CARD_NUMBERS.size).toBe(29);
    expect(TEST_CARD_OUTCOMES.get('4111111111111111')).toBe('succeed');
    expect(TEST_CARD_OUTCOMES.get('4012888888881881')).toBe('decline');
    expect(TEST_CARD_OUTCOMES.get('6799990100000000019')).toBe('decline');
    expect(TEST_CARD_OUTCOMES.get(CLOSED_ACCOUNT_CARD)).toBe('account_closed');
    expect(TEST_CARD_OUTCOMES.get(TIMEOUT_CARD)).toBe('timeout');
    expect(TEST_CARD_OUTCOMES.get(GATEWAY_ERROR_CARD)).toBe('gateway_error');
    expect(TEST_CARD_OUTCOMES.get(STORE_FAILS_CARD)).toBe('succeed');
    expect([...THREE_DS_CARDS]).toEqual(['4556761029983886', '4024007101934890']);
    expect([...TEST_CARD_OUTCOMES.values()].filter((o) => o === 'decline')).toHaveLength(10);
  });

  it('treats other numbers as real, ignoring spaces and dashes', () => {
    expect(isTestCard('4111 1111 1111 1111')).toBe(true);
    expect(isTestCard('4242424242424242')).toBe(false);
  });

  it('knows the test bank accounts', () => {
    for (const routing of TEST_BANK_ROUTING_NUMBERS) expect(validRoutingNumber(routing)).toBe(true);
    expect(isTestBankAccount('021000021', '9876543210')).toBe(true);
    expect(isTestBankAccount('021000021', '12')).toBe(false);
    expect(isTestBankAccount('026009593', '9876543210')).toBe(false);
  });
});

describe('card numbers', () => {
  it('normalises spaces and dashes only', () => {
    expect(normalizePan('4111 1111 1111 1111')).toBe('4111111111111111');
    expect(normalizePan('4111-1111-1111-1111')).toBe('4111111111111111');
    expect(normalizePan('4111.1111.1111.1111')).toBe('4111.1111.1111.1111');
    expect(checkCardNumber('4111.1111.1111.1111').valid).toBe(false);
  });

  it('checks Luhn', () => {
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('')).toBe(false);
    expect(luhnValid('41111111111111x1')).toBe(false);
    expect(luhnValid('0')).toBe(true);
  });

  it('detects UnionPay, other brands and unknowns', () => {
    expect(detectCardType('6212345678901265')).toBe('unionpay');
    expect(checkCardNumber('6212345678901266')).toEqual({ digits: '6212345678901266', cardType: 'unionpay', valid: true });
    expect(detectCardType('5019717010103742')).toBe('dankort');
    expect(detectCardType('2200000000000004')).toBe('mir');
    expect(detectCardType('6271000000000000')).toBe('unionpay');
    expect(detectCardType('9999999999999995')).toBeNull();
    expect(detectCardType('411111111111111')).toBeNull();
    expect(detectCardType('')).toBeNull();
  });

  it('checks lengths per brand', () => {
    expect(validPanLength('378282246310005', 'american_express')).toBe(true);
    expect(validPanLength('3782822463100050', 'american_express')).toBe(false);
    expect(validPanLength('411111111111', null)).toBe(true);
    expect(validPanLength('41111111111', null)).toBe(false);
    expect(validPanLength('41111111111111111111', null)).toBe(false);
    expect(validPanLength('41111111111111111', 'visa')).toBe(false);
    expect(checkCardNumber('4111111111111112')).toEqual({ digits: '4111111111111112', cardType: 'visa', valid: false });
  });

  it('masks', () => {
    expect(maskedNumber('4111111111111111')).toBe('XXXX-XXXX-XXXX-1111');
    expect(maskedNumber('30569309025904')).toBe('XXXX-XXXX-XXXX-5904');
    expect(maskedNumber('4444333322221111455')).toBe('XXXX-XXXX-XXXX-1455');
    expect(firstSix('5555555555554444')).toBe('555555');
    expect(lastFour('5555555555554444')).toBe('4444');
    expect(issuerIdentificationNumber('5555555555554444')).toBe('55555555');
    expect(maskedVerificationValue(3)).toBe('XXX');
    expect(maskedVerificationValue(4)).toBe('XXXX');
    expect(maskedVerificationValue(null)).toBe('');
    expect(maskedVerificationValue(0)).toBe('');
  });
});

describe('expiry', () => {
  it('validates month and year', () => {
    expect([0, 1, 12, 13, 1.5].map(isValidMonth)).toEqual([false, true, true, false, false]);
    expect([1899, 1900, 2030, 2199, 2200, 30].map(isValidYear)).toEqual([false, true, true, true, false, false]);
  });

  it('is valid through the last instant of the month, UTC', () => {
    expect(isExpired(8, 2030, new Date('2030-08-31T23:59:59.999Z'))).toBe(false);
    expect(isExpired(8, 2030, new Date('2030-09-01T00:00:00.000Z'))).toBe(true);
    expect(isExpired(12, 2030, new Date('2030-12-31T23:59:59.999Z'))).toBe(false);
    expect(isExpired(12, 2030, new Date('2031-01-01T00:00:00.000Z'))).toBe(true);
    expect(isExpired(2, 2028, new Date('2028-02-29T12:00:00Z'))).toBe(false);
    expect(isExpired(1, 2020, new Date('2026-06-15T00:00:00Z'))).toBe(true);
  });
});

describe('names', () => {
  it('splits on the last space', () => {
    expect(splitFullName('Kvothe Jones')).toEqual({ firstName: 'Kvothe', lastName: 'Jones' });
    expect(splitFullName('Jean Luc Picard')).toEqual({ firstName: 'Jean Luc', lastName: 'Picard' });
    expect(splitFullName('  Jean   Luc \t Picard ')).toEqual({ firstName: 'Jean Luc', lastName: 'Picard' });
    expect(splitFullName('Cher')).toEqual({ firstName: 'Cher', lastName: null });
    expect(splitFullName('   ')).toEqual({ firstName: null, lastName: null });
  });

  it('joins', () => {
    expect(joinFullName('Jean Luc', 'Picard')).toBe('Jean Luc Picard');
    expect(joinFullName('Cher', null)).toBe('Cher');
    expect(joinFullName(null, ' Smedry ')).toBe('Smedry');
    expect(joinFullName('', undefined)).toBeNull();
  });
});

describe('bank accounts', () => {
  it('masks and validates', () => {
    expect(routingDisplayDigits('021000021')).toBe('021');
    expect(accountDisplayDigits('9876544321')).toBe('4321');
    expect(maskedRoutingNumber('021000021')).toBe('021*');
    expect(maskedAccountNumber('9876544321')).toBe('*4321');
    expect(validRoutingNumber('021000021')).toBe(true);
    expect(validRoutingNumber('021000022')).toBe(false);
    expect(validRoutingNumber('02100002')).toBe(false);
    expect(validRoutingNumber('02100002a')).toBe(false);
    expect(['123', '1234', '12345678901234567', '123456789012345678', '12a4'].map(validAccountNumber))
      .toEqual([false, true, true, false, false]);
  });
});

describe('properties', () => {
  it('Luhn: the computed check digit validates; any single-digit change invalidates', () => {
    fc.assert(fc.property(digitString(1, 30), fc.nat(), fc.integer({ min: 1, max: 9 }), (payload, at, delta) => {
      const number = payload + checkDigit(payload);
      expect(luhnValid(number)).toBe(true);
      const i = at % number.length;
      const changed = number.slice(0, i) + String((Number(number[i]) + delta) % 10) + number.slice(i + 1);
      expect(luhnValid(changed)).toBe(false);
    }));
  });

  it('detects Visa, Mastercard and Amex by prefix and length', () => {
    const detects = (prefix: fc.Arbitrary<string>, length: number, brand: string) =>
      fc.assert(fc.property(prefix.chain((p) => digitString(length - p.length, length - p.length).map((t) => p + t)), (pan) => {
        expect(pan).toHaveLength(length);
        expect(detectCardType(pan)).toBe(brand);
      }));
    detects(fc.constant('4'), 16, 'visa');
    detects(fc.integer({ min: 51, max: 55 }).map(String), 16, 'master');
    detects(fc.integer({ min: 2221, max: 2720 }).map(String), 16, 'master');
    detects(fc.constantFrom('34', '37'), 15, 'american_express');
  });

  it('masks reveal only the last four; prefixes and suffixes are taken from the input', () => {
    fc.assert(fc.property(digitString(12, 19), (pan) => {
      const masked = maskedNumber(pan);
      expect(masked).toMatch(/^XXXX-XXXX-XXXX-\d{4}$/);
      expect(masked.endsWith(pan.slice(-4))).toBe(true);
      expect(masked).not.toMatch(/\d{5,}/);
      expect(pan.startsWith(firstSix(pan)) && firstSix(pan).length === 6).toBe(true);
      expect(pan.startsWith(issuerIdentificationNumber(pan)) && issuerIdentificationNumber(pan).length === 8).toBe(true);
      expect(pan.endsWith(lastFour(pan)) && lastFour(pan).length === 4).toBe(true);
    }));
  });

  it('splitFullName then joinFullName round-trips normalised names', () => {
    const word = fc.stringMatching(/^[A-Za-z'.-]{1,12}$/);
    const gap = fc.stringMatching(/^[ \t]{1,3}$/);
    fc.assert(fc.property(fc.array(fc.tuple(word, gap), { minLength: 1, maxLength: 5 }), gap, (parts, lead) => {
      const normalised = parts.map(([w]) => w).join(' ');
      const messy = lead + parts.map(([w, g]) => w + g).join('');
      const { firstName, lastName } = splitFullName(messy);
      expect(joinFullName(firstName, lastName)).toBe(normalised);
      expect(lastName).toBe(parts.length > 1 ? parts[parts.length - 1]?.[0] : null);
    }));
  });
});
