import { randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A random base-62 string from the CSPRNG. `randomInt` is unbiased, so every character
 * carries log2(62) ≈ 5.95 bits: 29 characters ≈ 172 bits, like Spreedly's tokens in shape.
 */
export function randomToken(length = 29): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** Token lengths by kind, chosen to resemble Spreedly's. */
export const TOKEN_LENGTH = {
  item: 29,
  environmentKey: 26,
  accessSecretKey: 26,
  accessSecret: 48,
  organization: 26,
} as const;
