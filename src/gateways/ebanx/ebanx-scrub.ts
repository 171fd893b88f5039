import { scrubFormFields, scrubJsonKeys, scrubWith, type ScrubRule } from '../kit/index.js';

/** EBANX's names of secret and card fields in its JSON (Direct API, token, verifycard). */
const JSON_FIELDS = scrubJsonKeys('integration_key', 'card_number', 'card_cvv', 'card_due_date', 'token');

/**
 * The transcript rule. Direct, token and verifycard requests carry their JSON URL-encoded in the
 * `request_body` form field, where no JSON rule sees it: the field is decoded, its secret keys
 * filtered, and encoded again. Capture, cancel and refund send `integration_key` as a plain form
 * field; answers are JSON (a stored card's `token` is EBANX's reusable card credential).
 */
export const scrubEbanx: ScrubRule = scrubWith(
  (text) =>
    text.replace(/(request_body=)([^&\s]+)/g, (_whole, head: string, encoded: string) => {
      let json: string;
      try {
        json = decodeURIComponent(encoded.replace(/\+/g, ' '));
      } catch {
        return `${head}[FILTERED]`;
      }
      return `${head}${encodeURIComponent(JSON_FIELDS(json))}`;
    }),
  JSON_FIELDS,
  scrubFormFields('integration_key'),
);
