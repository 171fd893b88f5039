import { randomFillSync } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const CODES = Array.from(ALPHABET, (char) => char.charCodeAt(0));
/** Bytes below this are used (248 = 4 × 62): the rest are drawn again, so every character is equally likely. */
const UNBIASED_BELOW = 256 - (256 % ALPHABET.length);

/** CSPRNG bytes drawn a pool at a time: one fill for many tokens rather than a call per character. */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const byte = pool[poolAt] as number;
  pool[poolAt] = 0;
  poolAt += 1;
  return byte;
}

/**
 * A random base-62 string from the CSPRNG. Rejection sampling keeps it unbiased, so every
 * character carries log2(62) ≈ 5.95 bits: 29 characters ≈ 172 bits, like Spreedly's tokens in
 * shape. Built as one flat string (a bulk import makes four tokens a card; a character at a time
 * made a chain of 29 strings for each).
 */
export function randomToken(length = 29): string {
  const codes = new Array<number>(length);
  for (let i = 0; i < length; ) {
    const byte = randomByte();
    if (byte >= UNBIASED_BELOW) continue;
    codes[i] = CODES[byte % ALPHABET.length] as number;
    i += 1;
  }
  return String.fromCharCode(...codes);
}

/** Base-36 characters of an ordered token's time: milliseconds since 1970 fit in nine until the year 5188. */
const TIME_CHARS = 9;

/**
 * A token for a row of a table that grows with traffic (transactions, payment methods, events,
 * callbacks): its creation time in milliseconds, in base 36 (digits and lowercase letters, which
 * every collation sorts alike, SQLite's and PostgreSQL's locales included), then random base-62
 * characters. New rows' tokens then land at the end of their unique index (and of the events'
 * index by object) instead of on a random page of it: a purchase writes 28 % fewer WAL pages,
 * and inserts into a table of millions stay as cheap as into an empty one (docs/decisions.md, "Storage"). The rest is
 * random, from the CSPRNG like `randomToken`: 20 characters, ≈ 119 bits, for the usual 29 (a random
 * UUID has 122). The creation time it shows is in the object's `created_at` anyway.
 */
export function orderedToken(length = 29, now = Date.now()): string {
  return now.toString(36).padStart(TIME_CHARS, '0').slice(-TIME_CHARS) + randomToken(length - TIME_CHARS);
}

/** Token lengths by kind, chosen to resemble Spreedly's. */
export const TOKEN_LENGTH = {
  item: 29,
  environmentKey: 26,
  accessSecretKey: 26,
  accessSecret: 48,
  organization: 26,
} as const;
