import { describe, expect, it } from 'vitest';
import { containsCardLike } from '../../src/domain/scrubbing/card-like.js';
import { newRequestId } from '../../src/http/request-ids.js';

describe('newRequestId', () => {
  it('draws again when a UUID reads as a card (all-digit groups making a Luhn-valid run)', () => {
    // All-digit middle groups that join into a Luhn-valid run, as a random UUID now and then has.
    const cardLike = '0a1b2c3d-4242-4242-4242-424242424242';
    expect(containsCardLike(cardLike)).toBe(true);
    const draws = [cardLike, '9bbd1a2d-2fde-443f-b745-b78be0331a92'];
    expect(newRequestId(() => draws.shift() as string)).toBe('9bbd1a2d-2fde-443f-b745-b78be0331a92');
    expect(draws).toEqual([]);
  });

  it('gives random UUIDs, none card-like', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newRequestId()));
    expect(ids.size).toBe(2000);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(containsCardLike(id)).toBe(false);
    }
  });
});
