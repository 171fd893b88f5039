/** Single-query primitives over `wallet_token_uses`: a wallet token is decrypted into a payment method once. */
export interface WalletTokenUsesRepository {
  /** Records a token's digest; false when it was recorded before (a replay). Atomic on both dialects. */
  claim(environmentKey: string, digest: string, usedAt: string): Promise<boolean>;
}
