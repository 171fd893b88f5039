/**
 * Why a wallet payment token (Apple Pay `EC_v1`, Google Pay `ECv2`) was refused. Each reason is its own
 * class so a caller maps it to its own API error without parsing messages.
 *
 * Invariant: a message names the check that failed and never quotes the token, its plaintext, the
 * device account number or the cryptogram: these errors may be logged and rendered. Causes from
 * node:crypto or the ASN.1 decoders are dropped for the same reason (they can quote input bytes).
 */
export type WalletErrorCode =
  | 'malformed'
  | 'bad_signature'
  | 'untrusted_chain'
  | 'expired'
  | 'unknown_key'
  | 'decryption_failed'
  | 'wrong_recipient';

export abstract class WalletTokenError extends Error {
  abstract readonly code: WalletErrorCode;
}

/** The token is not in the wallet's documented shape (missing field, bad base64, bad JSON, bad DER). */
export class WalletTokenMalformedError extends WalletTokenError {
  readonly code = 'malformed' as const;
  override readonly name = 'WalletTokenMalformedError';
}

/** A signature does not verify (CMS signature, message digest, Google's intermediate key signatures). */
export class WalletSignatureError extends WalletTokenError {
  readonly code = 'bad_signature' as const;
  override readonly name = 'WalletSignatureError';
}

/** The signing certificates do not chain to the trusted root, or lack the wallet's marker extensions. */
export class WalletUntrustedChainError extends WalletTokenError {
  readonly code = 'untrusted_chain' as const;
  override readonly name = 'WalletUntrustedChainError';
}

/** Outside its time: CMS signing time out of the window, intermediate key or message expired. */
export class WalletTokenExpiredError extends WalletTokenError {
  readonly code = 'expired' as const;
  override readonly name = 'WalletTokenExpiredError';
}

/** No merchant key matches (Apple's `publicKeyHash`; for Google, no key's MAC checks). */
export class WalletUnknownKeyError extends WalletTokenError {
  readonly code = 'unknown_key' as const;
  override readonly name = 'WalletUnknownKeyError';
}

/** The key was found but the ciphertext does not open (tampered ciphertext, tag or ephemeral key). */
export class WalletDecryptionError extends WalletTokenError {
  readonly code = 'decryption_failed' as const;
  override readonly name = 'WalletDecryptionError';
}

/** Google Pay: the message signature does not bind this merchant's recipient id. */
export class WalletWrongRecipientError extends WalletTokenError {
  readonly code = 'wrong_recipient' as const;
  override readonly name = 'WalletWrongRecipientError';
}
