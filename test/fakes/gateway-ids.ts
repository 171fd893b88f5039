import { containsCardLike } from '../../src/domain/scrubbing/card-like.js';

/**
 * An id for a fake gateway to hand out, made by `make` until it holds nothing card-like. About one
 * UUID-based id in 770 (`…ED3-4857EBF7-6049-4357-8061-4E73…`) holds a Luhn-valid run of 13+
 * digits across its dashes; Coffer scrubs card-like text out of gateway ids by design
 * (src/gateways/response-scrubbing.ts), so such an id would come back masked and a test that looks
 * the id up in the fake would fail at random.
 */
export function cardFreeId(make: () => string): string {
  for (;;) {
    const id = make();
    if (!containsCardLike(id)) return id;
  }
}
