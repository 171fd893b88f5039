import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { decodeForm } from '../../src/http/format/form-codec.js';
import { decodeJson } from '../../src/http/format/json-codec.js';
import { decodeXml } from '../../src/http/format/xml-codec.js';

/**
 * Errors never repeat what was submitted (docs/security.md): a key of a free-form field, an
 * unknown field or the root is the client's own text, and may be a card number.
 */
const PAN = '4929420573595709';
const SPACED = '4929 4205 7359 5709';

function refusal(decode: () => unknown): AppError {
  try {
    decode();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('the body was accepted');
}

function expectNoCard(error: AppError): void {
  const text = JSON.stringify(error.entries);
  expect(text.replace(/\D/g, '')).not.toContain(PAN);
}

describe('errors about a body never name it by a key that could be anything sent', () => {
  const cases: Array<[string, () => unknown]> = [
    ['JSON: a control character under a free-form key that is a card number', () => decodeJson(JSON.stringify({ payment_method: { metadata: { [PAN]: 'a\u0001' } } }))],
    ['JSON: a card-number key that itself holds a control character', () => decodeJson(JSON.stringify({ payment_method: { metadata: { [`${PAN}\u0001`]: 'a' } } }))],
    ['JSON: a card number with spaces as a key', () => decodeJson(JSON.stringify({ payment_method: { data: { [SPACED]: 'a\u0002' } } }))],
    ['JSON: an unknown top-level field nested too deep', () => decodeJson(JSON.stringify({ payment_method: { [PAN]: JSON.parse('['.repeat(40) + ']'.repeat(40)) } }))],
    ['JSON: a card-number root over a value that is not an object', () => decodeJson(JSON.stringify({ [PAN]: 5 }))],
    ['XML: a control character under a card-number-like element', () => decodeXml(`<payment_method><metadata><x${PAN}>a&#x1;</x${PAN}></metadata></payment_method>`)],
    ['XML: a root named after a card number holding text only', () => decodeXml(`<x${PAN}>text</x${PAN}>`)],
    ['form: a control character in a field named after a card number', () => decodeForm(`credit_card[${PAN}]=a%01`)],
  ];
  it.each(cases)('%s', (_name, decode) => {
    const error = refusal(decode);
    expect([422, 400]).toContain(error.status);
    expectNoCard(error);
  });

  it('still names a key that reads as a field name', () => {
    const error = refusal(() => decodeJson(JSON.stringify({ payment_method: { metadata: { customer: 'a\u0001' } } })));
    expect(error.entries).toEqual([{ key: 'errors.invalid', attribute: 'customer', message: 'Customer contains a control character' }]);
    const root = refusal(() => decodeJson(JSON.stringify({ transaction: 5 })));
    expect(root.entries[0]?.message).toBe('The request body could not be parsed: "transaction" must be an object.');
  });
});
