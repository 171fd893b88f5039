/** How a run moved wrapped keys: onto the configured master key, or onto another provider. */
export type MasterKeyRotationKind = 'rotate' | 'move';

/** One run of a master key rotation or move (docs/key-custody.md, "Rotation record"). */
export interface MasterKeyRotation {
  id: string;
  kind: MasterKeyRotationKind;
  toProvider: string;
  toMasterKeyId: string;
  /** The master keys that wrapped the keys this run set out to move. */
  fromMasterKeyIds: string[];
  rewrapped: number;
  /** Keys still wrapped by another master key when the run ended. */
  remaining: number;
  outcome: 'completed' | 'interrupted';
  /** Why an interrupted run stopped (the provider's message; never key material). */
  problem: string | null;
  startedAt: string;
  finishedAt: string;
}

/** Single-query primitives over `master_key_rotations`. */
export interface MasterKeyRotationsRepository {
  insert(rotation: MasterKeyRotation): Promise<void>;
  /** The newest runs first. */
  latest(limit: number): Promise<MasterKeyRotation[]>;
}
