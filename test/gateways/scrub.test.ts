import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formEncode, scrubTranscript } from '../../src/gateways/kit/index.js';
import { scrubLiterals } from '../../src/gateways/kit/scrub.js';
import { scrubStripe } from '../../src/gateways/stripe/stripe-api.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Scrub test on a realistic transcript (ARCHITECTURE.md habit 2): what Coffer keeps of an
 * exchange with Stripe must hold no PAN, no CVV and no secret key, and must still read as the
 * exchange it was. The e2e suite (stripe.e2e.test.ts) scans real transcripts the same way.
 */

const PAN = '4242424242424242';
const CVV = '739';
const LIVE_KEY = 'sk_live_51PqRsTuVwXyZ0123456789abcdefGHIJ';
const TOKEN = 'Vn1TcO9XQZ3b5wUtH2yRkLm0Pa7Ds';

const clean = (text: string) => scrubTranscript(scrubStripe(text));

/** The card a purchase sends, form-encoded by the adapter's own encoder. */
const purchaseBody = formEncode({
  amount: 1000,
  currency: 'usd',
  capture_method: 'automatic',
  confirm: true,
  payment_method_types: ['card'],
  payment_method_data: {
    type: 'card',
    card: { number: PAN, exp_month: 12, exp_year: 2034, cvc: CVV },
    billing_details: { name: 'Ada Lovelace', address: { postal_code: 'SW1Y 4JH' } },
  },
  expand: ['latest_charge'],
});

/** `store` sends the card at the top level (`card[number]`) to /v1/payment_methods. */
const storeBody = formEncode({ type: 'card', card: { number: PAN, exp_month: 12, exp_year: 2034, cvc: CVV } });

const jsonResponse = JSON.stringify(
  {
    id: 'pi_3PqRsTLkdIwHu7ix0abc1234',
    object: 'payment_intent',
    amount: 1000,
    status: 'succeeded',
    payment_method_details: { card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034, number: PAN, cvc: CVV, checks: { cvc_check: 'pass' } } },
  },
  null,
  2,
);

const xmlBody = `<?xml version="1.0" encoding="UTF-8"?>
<transaction>
  <amount>1000</amount>
  <credit_card>
    <first_name>Ada</first_name>
    <number>${PAN}</number>
    <verification_value>${CVV}</verification_value>
    <month>12</month>
  </credit_card>
</transaction>`;

/** What GatewayHttpClient records: request line, headers, body; then the response. */
function exchange(path: string, requestBody: string, responseBody: string): string {
  return [
    `[*>] POST https://api.stripe.com${path}`,
    `authorization: Bearer ${LIVE_KEY}`,
    'stripe-version: 2024-06-20',
    'content-type: application/x-www-form-urlencoded',
    `idempotency-key: ${TOKEN}`,
    '',
    requestBody,
    '',
    '[<*] Response 200 received in 312ms',
    '',
    responseBody,
  ].join('\n');
}

const transcript = [
  exchange('/v1/payment_intents', purchaseBody, jsonResponse),
  exchange('/v1/payment_methods', storeBody, '{"id":"pm_1PqRsT","card":{"last4":"4242"}}'),
  `[*>] POST https://core.example.com/v1/gateways/abc/purchase.xml\nAuthorization: Basic ZW52OnNlY3JldA==\ncontent-type: text/xml\n\n${xmlBody}`,
].join('\n\n');

describe('scrubTranscript(scrubStripe(…)) on a Stripe transcript', () => {
  const scrubbed = clean(transcript);

  it('leaves no card number, in any encoding', () => {
    expect(transcript).toContain(PAN);
    expect(scrubbed).not.toContain(PAN);
    expect(findCardData(scrubbed)).toEqual([]);
    expect(scrubbed).toContain('payment_method_data%5Bcard%5D%5Bnumber%5D=[FILTERED]');
    expect(scrubbed).toContain('card%5Bnumber%5D=[FILTERED]');
    expect(scrubbed).toContain(`<number>[FILTERED]</number>`);
    expect(scrubbed).toMatch(/"number": "\[FILTERED\]"/);
  });

  it('leaves no secret key nor Basic credentials', () => {
    expect(scrubbed).not.toContain(LIVE_KEY);
    expect(scrubbed).not.toMatch(/sk_(live|test)_[A-Za-z0-9]{4,}/);
    expect(scrubbed).toContain('authorization: Bearer [FILTERED]');
    expect(scrubbed).toContain('Authorization: Basic [FILTERED]');
    expect(scrubbed).not.toContain('ZW52OnNlY3JldA==');
  });

  it('filters the CVV of JSON, XML and top-level card[cvc] form fields', () => {
    expect(scrubbed).toMatch(/"cvc": "\[FILTERED\]"/);
    expect(scrubbed).toContain('<verification_value>[FILTERED]</verification_value>');
    // store: `card[cvc]` at the top level of the form
    expect(scrubbed).toMatch(/(^|&|\n)type=card&card%5Bnumber%5D=\[FILTERED\]&card%5Bexp_month%5D=12&card%5Bexp_year%5D=2034&card%5Bcvc%5D=\[FILTERED\]/m);
  });

  // SRC BUG (reported): neither scrubStripe (expects `card%5Bcvc%5D=`, i.e. a top-level `card`) nor
  // the shared FORM_FIELD rule (expects `cvc=` right after the name) matches the nested
  // `payment_method_data[card][cvc]` the adapter sends for purchase, authorize and verify:
  // the CVV is stored in clear in the transcript. The PAN is only caught by the generic digit rule.
  it('filters the CVV of the nested payment_method_data[card][cvc] field, encoded or not', () => {
    expect(scrubbed).toContain('payment_method_data%5Bcard%5D%5Bcvc%5D=[FILTERED]');
    expect(clean(`payment_method_data[card][number]=${PAN}&payment_method_data[card][cvc]=${CVV}`)).toBe(
      'payment_method_data[card][number]=[FILTERED]&payment_method_data[card][cvc]=[FILTERED]',
    );
  });

  it('keeps the exchange readable: request line, headers, non-secret fields, JSON and XML structure', () => {
    expect(scrubbed).toContain('[*>] POST https://api.stripe.com/v1/payment_intents\n');
    expect(scrubbed).toContain('stripe-version: 2024-06-20\n');
    expect(scrubbed).toContain(`idempotency-key: ${TOKEN}\n`);
    expect(scrubbed).toContain('[<*] Response 200 received in 312ms');
    expect(scrubbed).toMatch(/^amount=1000&currency=usd&capture_method=automatic&confirm=true&payment_method_types%5B%5D=card&/m);
    expect(scrubbed).toContain('payment_method_data%5Bcard%5D%5Bexp_month%5D=12&payment_method_data%5Bcard%5D%5Bexp_year%5D=2034');
    expect(scrubbed).toContain('payment_method_data%5Bbilling_details%5D%5Bname%5D=Ada+Lovelace');
    expect(scrubbed).toContain('expand%5B%5D=latest_charge');

    const response = scrubbed.slice(scrubbed.indexOf('{'), scrubbed.indexOf('\n}') + 2);
    const parsed = JSON.parse(response);
    expect(parsed).toMatchObject({ id: 'pi_3PqRsTLkdIwHu7ix0abc1234', amount: 1000, status: 'succeeded' });
    expect(parsed.payment_method_details.card).toMatchObject({ last4: '4242', exp_month: 12, number: '[FILTERED]', cvc: '[FILTERED]', checks: { cvc_check: 'pass' } });

    expect(scrubbed).toContain('<first_name>Ada</first_name>\n    <number>[FILTERED]</number>\n    <verification_value>[FILTERED]</verification_value>\n    <month>12</month>');
  });

  it('is stable: scrubbing scrubbed text changes nothing', () => {
    expect(clean(scrubbed)).toBe(scrubbed);
  });
});

describe('scrubbing, property-based', () => {
  const pan = fc.integer({ min: 12, max: 19 }).chain((length) => fc.stringMatching(new RegExp(`^[1-9]\\d{${length - 1}}$`)));
  const cvc = fc.stringMatching(/^\d{3,4}$/);
  const key = fc.stringMatching(/^[A-Za-z0-9]{24,99}$/).map((rest) => `sk_live_${rest}`);

  it('removes any PAN and key from a purchase exchange, and the CVV from JSON, XML and card[cvc]', () => {
    fc.assert(
      fc.property(pan, cvc, key, (number, code, secret) => {
        const text = [
          `authorization: Bearer ${secret}`,
          formEncode({ amount: 100, payment_method_data: { card: { number, cvc: code } } }),
          formEncode({ card: { number, cvc: code } }),
          JSON.stringify({ card: { number, cvc: code } }),
          `<number>${number}</number><verification_value>${code}</verification_value>`,
        ].join('\n');
        const out = clean(text);
        expect(out).not.toContain(number);
        expect(out).not.toContain(secret);
        expect(out).toContain('card%5Bcvc%5D=[FILTERED]');
        expect(out).toContain('"cvc":"[FILTERED]"');
        expect(out).toContain('<verification_value>[FILTERED]</verification_value>');
      }),
      { numRuns: 200 },
    );
  });
});

describe('scrubLiterals', () => {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  /** What it replaced before: one alternation of the values, longest first. */
  const byRegex = (values: string[], text: string) => text.replace(new RegExp([...values].sort((a, b) => b.length - a.length).map(escape).join('|'), 'g'), '[FILTERED]');

  it('property: replaces what an alternation of the values (longest first) replaces', () => {
    const values = ['4111111111111111', '411111', 'sk_live_a.b*c', '1111111111', 'abcabc'];
    const rule = scrubLiterals(values);
    const piece = fc.oneof(fc.constantFrom(...values, '4111', '41111111', 'sk_live_', 'abc', '1'), fc.string({ maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }).map((pieces) => pieces.join('')), (text) => {
        expect(rule(text)).toBe(byRegex(values, text));
      }),
      { numRuns: 3000 },
    );
  });

  it('two calls with different card numbers: each replaces only its own', () => {
    const first = scrubLiterals(['4111111111111111']);
    const second = scrubLiterals(['5555555555554444']);
    const text = 'a 4111111111111111 b 5555555555554444';
    expect(first(text)).toBe('a [FILTERED] b 5555555555554444');
    expect(second(text)).toBe('a 4111111111111111 b [FILTERED]');
    expect(scrubLiterals(['short', null, undefined])(text)).toBe(text);
  });
});
