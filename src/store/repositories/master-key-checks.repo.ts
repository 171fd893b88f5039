import type { Kysely, Selectable } from 'kysely';
import type { Database, MasterKeyChecksTable } from '../schema.js';
import type { MasterKeyCheck, MasterKeyChecksRepository } from '../interfaces/master-key-checks.js';

function checkOf(row: Selectable<MasterKeyChecksTable>): MasterKeyCheck {
  return {
    masterKeyId: row.master_key_id,
    provider: 'shares',
    checkValue: row.check_value,
    shareDigests: JSON.parse(row.share_digests) as string[],
    threshold: row.threshold,
    shares: row.shares,
    createdAt: row.created_at,
  };
}

/** `master_key_checks`, for the shares provider. */
export class MasterKeyChecksRepo implements MasterKeyChecksRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async newest(): Promise<MasterKeyCheck | undefined> {
    const row = await this.db.selectFrom('master_key_checks').selectAll().orderBy('created_at', 'desc').orderBy('master_key_id').limit(1).executeTakeFirst();
    return row === undefined ? undefined : checkOf(row);
  }

  async find(masterKeyId: string): Promise<MasterKeyCheck | undefined> {
    const row = await this.db.selectFrom('master_key_checks').selectAll().where('master_key_id', '=', masterKeyId).executeTakeFirst();
    return row === undefined ? undefined : checkOf(row);
  }

  async insert(check: MasterKeyCheck): Promise<boolean> {
    const result = await this.db
      .insertInto('master_key_checks')
      .values({
        master_key_id: check.masterKeyId,
        provider: check.provider,
        check_value: check.checkValue,
        share_digests: JSON.stringify(check.shareDigests),
        threshold: check.threshold,
        shares: check.shares,
        created_at: check.createdAt,
      })
      .onConflict((oc) => oc.column('master_key_id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
