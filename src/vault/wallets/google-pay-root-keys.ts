import { readFileSync } from 'node:fs';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { isObject } from './token-fields.js';

/**
 * Google's root signing keys, in the JSON Google publishes at
 * https://payments.developers.google.com/paymentmethodtoken/keys.json (production) and
 * .../paymentmethodtoken/test/keys.json (test): `{"keys":[{"keyValue", "protocolVersion",
 * "keyExpiration"}]}`, keyValue the base64 SPKI DER of a P-256 key, keyExpiration milliseconds.
 */
export interface GooglePayRootKey {
  key: KeyObject;
  /** Milliseconds since the epoch; null when Google gives none (ECv1 keys). */
  expiration: number | null;
}

export class GooglePayRootKeysError extends Error {
  override readonly name = 'GooglePayRootKeysError';
}

/** Reads a key set; only `ECv2` keys are kept (ECv1 and ECv2SigningOnly keys sign other protocols). */
export function parseGooglePayRootKeys(json: string): GooglePayRootKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json) as unknown;
  } catch {
    throw new GooglePayRootKeysError('the Google Pay root keys are not JSON');
  }
  const keys = isObject(parsed) ? parsed['keys'] : undefined;
  if (!Array.isArray(keys)) throw new GooglePayRootKeysError('the Google Pay root keys must be {"keys":[...]}');
  const roots = keys.flatMap((entry: unknown): GooglePayRootKey[] => {
    if (!isObject(entry) || entry['protocolVersion'] !== 'ECv2') return [];
    const value = entry['keyValue'];
    const expiration = entry['keyExpiration'];
    if (typeof value !== 'string') throw new GooglePayRootKeysError('a Google Pay root key has no keyValue');
    if (expiration !== undefined && (typeof expiration !== 'string' || !/^\d+$/.test(expiration))) throw new GooglePayRootKeysError('a Google Pay root keyExpiration is not milliseconds');
    let key: KeyObject;
    try {
      key = createPublicKey({ key: Buffer.from(value, 'base64'), format: 'der', type: 'spki' });
    } catch {
      throw new GooglePayRootKeysError('a Google Pay root keyValue is not a public key');
    }
    return [{ key, expiration: expiration === undefined ? null : Number(expiration) }];
  });
  if (roots.length === 0) throw new GooglePayRootKeysError('the Google Pay root keys hold no ECv2 key');
  return roots;
}

/** A key set file: the operator's override (`COFFER_GOOGLE_PAY_ROOT_KEYS`) or a shipped one. */
export function loadGooglePayRootKeys(path: string | URL): GooglePayRootKey[] {
  let json: string;
  try {
    json = readFileSync(path, 'utf8');
  } catch {
    throw new GooglePayRootKeysError('the Google Pay root keys file cannot be read');
  }
  return parseGooglePayRootKeys(json);
}

/** Google's published test key set, shipped in roots/ (docs/wallets.md, "Root keys"). */
export const GOOGLE_PAY_TEST_ROOT_KEYS = new URL('./roots/google-pay-test-keys.json', import.meta.url);
/** Google's production ECv2 root signing key as shipped (docs/wallets.md, "Root keys": provenance and fingerprint). */
export const GOOGLE_PAY_PRODUCTION_ROOT_KEYS = new URL('./roots/google-pay-production-keys.json', import.meta.url);
