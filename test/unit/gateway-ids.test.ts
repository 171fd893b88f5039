import { describe, expect, it } from 'vitest';
import { cardFreeId } from '../fakes/gateway-ids.js';
import { containsCardLike } from '../../src/domain/scrubbing/card-like.js';

describe('fake gateway ids', () => {
  it('passes over an id that Coffer would scrub as card-like, and keeps the next one', () => {
    // Seen from the Elavon fake: 6049-4357-8061-4 is a Luhn-valid run of 13 digits.
    const masked = '261124ED3-4857EBF7-6049-4357-8061-4E733302E5D9';
    const clean = '261124ED3-4857EBF7-6049-AB57-8061-4E733302E5D9';
    expect(containsCardLike(masked)).toBe(true);
    const made = [masked, clean];
    expect(cardFreeId(() => made.shift() as string)).toBe(clean);
    expect(made).toEqual([]);
  });
});
