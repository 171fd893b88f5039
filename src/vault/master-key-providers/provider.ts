/**
 * Where the master key lives (docs/key-custody.md). The keyring never sees the master key itself:
 * it hands a provider each data key to wrap and each wrapped key to unwrap. Wrapped keys use the
 * cipher blob format of `../cipher.ts` (AES-256-GCM, associated data "wrapped-key:<id>"), whoever
 * runs the cipher.
 */
export const MASTER_KEY_PROVIDERS = ['file', 'env', 'pkcs11', 'shares'] as const;
export type MasterKeyProviderKind = (typeof MASTER_KEY_PROVIDERS)[number];

export function isMasterKeyProviderKind(value: string): value is MasterKeyProviderKind {
  return (MASTER_KEY_PROVIDERS as readonly string[]).includes(value);
}

export interface MasterKeyProvider {
  readonly kind: MasterKeyProviderKind;
  /**
   * The public id of the master key, recorded beside every key it wraps (`wrapped_keys.master_key_id`)
   * and written into the blob; known without the key itself (a sealed node knows it too).
   */
  readonly id: string;
  /** Seals `key` under the master key, bound to `associatedData`; the result names `id`. */
  wrap(key: Buffer, associatedData: string): Promise<string>;
  /** Opens a blob made by `wrap` with the same associated data. */
  unwrap(wrapped: string, associatedData: string): Promise<Buffer>;
  /** Releases what the provider holds (an HSM session, key bytes). */
  close(): Promise<void>;
}

/**
 * The master key cannot be used right now (the HSM cannot be reached, its session was lost, the
 * PIN was refused): the request may succeed later unchanged, so the API answers 503
 * errors.service_unavailable. `reason` is safe to log (a PKCS#11 return code, never a PIN).
 */
export class MasterKeyUnavailableError extends Error {
  constructor(
    readonly provider: MasterKeyProviderKind,
    readonly reason: string,
  ) {
    super(`master key provider ${provider} unavailable: ${reason}`);
    this.name = 'MasterKeyUnavailableError';
  }
}

/** The node holds no master key until custodians submit enough shares: 503 errors.vault_sealed. */
export class VaultSealedError extends Error {
  constructor() {
    super('the vault is sealed: submit key shares with coffer unseal');
    this.name = 'VaultSealedError';
  }
}
