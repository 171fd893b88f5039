/** Single-query primitives over `used_nonces`: a nonce is spent at most once per environment. */
export interface UsedNoncesRepository {
  /** Spends a nonce; false when it was already spent (a replay). Atomic on both dialects. */
  claim(environmentKey: string, nonce: string, expiresAt: string): Promise<boolean>;
  /** Gives a nonce back (the tokenization it was claimed for wrote nothing). */
  release(environmentKey: string, nonce: string): Promise<void>;
  /** Forgets nonces whose timestamp window has passed: a replay of them is refused as stale anyway. */
  purgeExpired(now: string): Promise<number>;
}
