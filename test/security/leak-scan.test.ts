import { describe, expect, it } from 'vitest';
import { luhnValid } from '../../src/vault/card-rules.js';
import { TEST_CARDS } from '../../src/domain/test-cards.js';
import {
  assertNoCardData,
  findCardData,
  findKnownSecretsInBytes,
  KNOWN_TEST_PANS,
  maskCardData,
  maskFinding,
} from '../helpers/leak-scan.js';

describe('findCardData', () => {
  it('finds every test PAN in clear, in JSON, XML and log text', () => {
    for (const { number } of TEST_CARDS) {
      expect(findCardData(`{"number":"${number}"}`), number).toContain(number);
      expect(findCardData(`<number>${number}</number>`), number).toContain(number);
      expect(findCardData(`card=${number}&cvv=123`), number).toContain(number);
    }
    expect(KNOWN_TEST_PANS).toHaveLength(TEST_CARDS.length);
  });

  it('finds a test PAN even inside other characters (a known value is a leak anywhere)', () => {
    expect(findCardData('abc4111111111111111xyz')).toEqual(['4111111111111111']);
  });

  it('finds extra known secrets', () => {
    expect(findCardData('login: sk_live_abc123', ['sk_live_abc123'])).toEqual(['sk_live_abc123']);
    expect(findCardData('nothing here', ['sk_live_abc123'])).toEqual([]);
    expect(findCardData('ignored empty secret', [''])).toEqual([]);
  });

  it('finds Luhn-valid 13–19 digit runs that are not test cards', () => {
    // Stripe's test Visa and a made-up 13-digit Visa; neither is in TEST_CARDS.
    expect(findCardData('"card":"4242424242424242"')).toEqual(['4242424242424242']);
    expect(findCardData('sk_live_X_4242424242424242')).toEqual(['4242424242424242']);
    expect(findCardData('n=4222222222222;')).toEqual(['4222222222222']);
    expect(findCardData('x 6011000000000004 y')).toEqual(['6011000000000004']);
    // 19 digits.
    expect(findCardData('[4917610000000000003]')).toContain('4917610000000000003');
  });

  it('finds PANs written with spaces or dashes', () => {
    expect(findCardData('card 4111 1111 1111 1111 exp')).toEqual(['4111 1111 1111 1111']);
    expect(findCardData('4242-4242-4242-4242')).toEqual(['4242-4242-4242-4242']);
    expect(findCardData('amex 3782 822463 10005.')).toEqual(['3782 822463 10005']);
    expect(findCardData('19: 4444 3333 2222 1111 455')).toEqual(['4444 3333 2222 1111 455']);
    // A grouped PAN followed by a grouped year is still found (the window within the chain).
    expect(findCardData('4242 4242 4242 4242 2030')).toEqual(['4242 4242 4242 4242']);
  });

  it('ignores Luhn-invalid runs and runs glued to letters or digits', () => {
    expect(findCardData('4111111111111112')).toEqual([]);
    expect(findCardData('4242-4242-4242-4241')).toEqual([]);
    expect(findCardData('a4242424242424242')).toEqual([]);
    expect(findCardData('4242424242424242f')).toEqual([]);
    // 20 digits: too long to be a PAN.
    expect(findCardData('42424242424242424242')).toEqual([]);
    // 12 digits: too short.
    expect(findCardData('424242424242')).toEqual([]);
  });

  it('does not flag what Coffer legitimately emits', () => {
    const clean = [
      // Timestamps: ISO, epoch ms (pino), µs and ns, and Luhn-valid ones among them.
      '2024-05-01T12:34:56Z',
      '2024-05-01T12:34:56.789Z',
      '{"level":30,"time":1718000000007,"pid":4242,"msg":"request"}',
      'time 1718000000000 1718000000001 1718000000002 1718000000003 1718000000004 1718000000005 1718000000006 1718000000008 1718000000009',
      '1718000000000000 1718000000000000000',
      // Tokens (29 alphanumerics, even digit-heavy ones) and 36-hex fingerprints.
      'token 7YS9y1PFnXCPQvS3ADE0SwDwHyQ',
      '"token":"P4242424242424242424242424242"',
      'fingerprint e3cef43464fc832f6e04f187df25af497994',
      'fingerprint 123456789012345678901234567890123456',
      'fingerprint 4242424242424242abcdef0123456789abcd',
      // What the views show of a card.
      '"number":"XXXX-XXXX-XXXX-1111"',
      '<number>XXXX-XXXX-XXXX-4444</number>',
      '"first_six_digits":"411111"',
      '"issuer_identification_number":"41111111"',
      '"last_four_digits":"1111"',
      '"verification_value":"XXX"',
      // Request ids, UUIDs whose groups happen to be all digits, amounts, sealed blobs.
      'reqId 12345678-1234-5678-9012-345678901234',
      '"amount":4242,"currency_code":"USD"',
      'c1.d-ABC-1.AAAA4242424242424242+/BBBB==',
      'phone 555-123-4567',
    ];
    for (const text of clean) expect(findCardData(text), text).toEqual([]);
    // The timestamp lines above do hold Luhn-valid runs, so the test shows they are skipped.
    expect(Array.from({ length: 10 }, (_, i) => `171800000000${i}`).some((run) => luhnValid(run))).toBe(true);
  });
});

describe('masking', () => {
  it('keeps only the first six and last four digits of a PAN', () => {
    expect(maskFinding('4111111111111111')).toBe('411111******1111');
    expect(maskFinding('4111 1111 1111 1111')).toBe('4111 11** **** 1111');
    expect(maskFinding('sk_live_abcdef')).toBe('sk_***********');
  });

  it('masks findings inside text, and assertNoCardData never echoes the PAN', () => {
    expect(maskCardData('/v1/x?n=4111111111111111&m=1')).toBe('/v1/x?n=411111******1111&m=1');
    let message = '';
    try {
      assertNoCardData('{"n":"5555555555554444"}', 'GET /v1/payment_methods/x');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('GET /v1/payment_methods/x');
    expect(message).toContain('555555******4444');
    expect(message).not.toContain('5555555555554444');
  });
});

describe('findKnownSecretsInBytes', () => {
  it('finds known PANs and secrets in binary data, not base64 of them', () => {
    const bytes = Buffer.concat([Buffer.from([0, 1, 2, 255]), Buffer.from('xx5555555555554444yy'), Buffer.from([0])]);
    expect(findKnownSecretsInBytes(bytes)).toEqual(['5555555555554444']);
    expect(findKnownSecretsInBytes(Buffer.from(Buffer.from('4111111111111111').toString('base64')))).toEqual([]);
    expect(findKnownSecretsInBytes(Buffer.from('..sk_live_q..'), ['sk_live_q'])).toEqual(['sk_live_q']);
  });
});
