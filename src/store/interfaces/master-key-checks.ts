/** A master key split into custodian shares: what a node checks submitted shares against (docs/key-custody.md). */
export interface MasterKeyCheck {
  masterKeyId: string;
  provider: 'shares';
  /** Hex HMAC-SHA-256 under the master key of a fixed label. */
  checkValue: string;
  /** SHA-256 (hex) of each share. */
  shareDigests: string[];
  threshold: number;
  shares: number;
  createdAt: string;
}

/** Single-query primitives over `master_key_checks`. */
export interface MasterKeyChecksRepository {
  /** The newest split key (the one nodes unseal with), or undefined before `coffer init --key-shares`. */
  newest(): Promise<MasterKeyCheck | undefined>;
  find(masterKeyId: string): Promise<MasterKeyCheck | undefined>;
  /** Records a split key; false when its id was recorded already. */
  insert(check: MasterKeyCheck): Promise<boolean>;
}
