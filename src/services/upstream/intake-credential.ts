import crypto from 'node:crypto';
import { sha256Hex } from '../../domain/digest.js';

/** The header a delivery carries the one-time intake credential in. */
export const INTAKE_HEADER = 'X-Coffer-Intake-Credential';

/** The path of the intake under the public URL. */
export const INTAKE_PATH = '/v1/upstream/intake';

/** How long a credential admits its delivery: one deliver call, with room for a slow upstream. */
export const INTAKE_WINDOW_MS = 5 * 60_000;

/** A fresh credential: 256 random bits, URL-safe (it travels in a header the upstream renders). */
export function newIntakeCredential(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/**
 * What is stored instead of the credential: its SHA-256. The credential has 256 bits of entropy,
 * so a plain hash cannot be reversed or guessed; a leaked table admits nothing.
 */
export function intakeCredentialHash(credential: string): string {
  return sha256Hex(credential);
}

/**
 * The body template the upstream renders (wire-reference §7): the token and the sensitive values
 * only (numbers and expiry); every other field is read from the upstream's own view of the method.
 * Values are HTML-escaped by the template (`{{ }}`), which keeps the JSON well-formed; digits and
 * tokens are unchanged by it. No CVV: it is never copied (PCI DSS 3.3.1).
 */
export const INTAKE_BODY_TEMPLATE =
  '{"intake":{"payment_method_token":"{{ payment_method_token }}","number":"{{ credit_card_number }}","month":"{{ credit_card_month }}","year":"{{ credit_card_year }}",' +
  '"routing_number":"{{ bank_account_routing_number }}","account_number":"{{ bank_account_account_number }}"}}';
