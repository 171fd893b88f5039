import { randomUUID } from 'node:crypto';
import { containsCardLike } from '../domain/scrubbing/card-like.js';

/**
 * A new request id: a random UUID that does not read as a card. Now and then (one in several hundred)
 * has all-digit groups that, joined by their hyphens, make a Luhn-valid run of 12 or more digits;
 * such an id would be echoed in `X-Request-Id` and logged, and every leak scan would take it for a
 * card number (docs/security.md, "What comes out"). Those are drawn again.
 */
export function newRequestId(draw: () => string = randomUUID): string {
  for (;;) {
    const id = draw();
    if (!containsCardLike(id)) return id;
  }
}
