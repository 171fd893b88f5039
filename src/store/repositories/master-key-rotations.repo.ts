import type { Kysely, Selectable } from 'kysely';
import type { Database, MasterKeyRotationsTable } from '../schema.js';
import type { MasterKeyRotation, MasterKeyRotationKind, MasterKeyRotationsRepository } from '../interfaces/master-key-rotations.js';

function rotationOf(row: Selectable<MasterKeyRotationsTable>): MasterKeyRotation {
  return {
    id: row.id,
    kind: row.kind as MasterKeyRotationKind,
    toProvider: row.to_provider,
    toMasterKeyId: row.to_master_key_id,
    fromMasterKeyIds: JSON.parse(row.from_master_key_ids) as string[],
    rewrapped: row.rewrapped,
    remaining: row.remaining,
    outcome: row.outcome === 'completed' ? 'completed' : 'interrupted',
    problem: row.problem,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/** `master_key_rotations`: the installation's record of master key rotations and moves. */
export class MasterKeyRotationsRepo implements MasterKeyRotationsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(rotation: MasterKeyRotation): Promise<void> {
    await this.db
      .insertInto('master_key_rotations')
      .values({
        id: rotation.id,
        kind: rotation.kind,
        to_provider: rotation.toProvider,
        to_master_key_id: rotation.toMasterKeyId,
        from_master_key_ids: JSON.stringify(rotation.fromMasterKeyIds),
        rewrapped: rotation.rewrapped,
        remaining: rotation.remaining,
        outcome: rotation.outcome,
        problem: rotation.problem,
        started_at: rotation.startedAt,
        finished_at: rotation.finishedAt,
      })
      .execute();
  }

  async latest(limit: number): Promise<MasterKeyRotation[]> {
    const rows = await this.db.selectFrom('master_key_rotations').selectAll().orderBy('finished_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(rotationOf);
  }
}
