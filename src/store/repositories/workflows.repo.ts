import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database, WorkflowsTable } from '../schema.js';
import { changeIf, journaled } from '../change-journal.js';

export type WorkflowRow = Selectable<WorkflowsTable>;
export type WorkflowPatch = Omit<Updateable<WorkflowsTable>, 'seq' | 'environment_key' | 'key' | 'created_at'>;

const OBJECT_TYPE = 'workflow';

/**
 * Single-query primitives over `workflows` (docs/routing.md); every read is scoped to one environment and
 * every write lands with its event (`AddWorkflow`, `UpdateWorkflow`, `RemoveWorkflow`). Making a
 * workflow the default clears the flag of the others in the same database transaction.
 */
export class WorkflowsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  find(environmentKey: string, key: string): Promise<WorkflowRow | undefined> {
    return this.db.selectFrom('workflows').selectAll().where('environment_key', '=', environmentKey).where('key', '=', key).executeTakeFirst();
  }

  findDefault(environmentKey: string): Promise<WorkflowRow | undefined> {
    return this.db.selectFrom('workflows').selectAll().where('environment_key', '=', environmentKey).where('is_default', '=', 1).orderBy('seq').executeTakeFirst();
  }

  /** Every workflow of the environment in creation order (an environment has a handful). */
  list(environmentKey: string, limit: number): Promise<WorkflowRow[]> {
    return this.db.selectFrom('workflows').selectAll().where('environment_key', '=', environmentKey).orderBy('seq').limit(limit).execute();
  }

  /** Inserts the workflow; false when the key is taken in this environment (nothing written). */
  async insert(row: Insertable<WorkflowsTable>): Promise<boolean> {
    return journaled(this.db, async (db) => {
      // The unique (environment_key, key) decides, also between two concurrent creates.
      const inserted = await db.insertInto('workflows').values(row).onConflict((conflict) => conflict.columns(['environment_key', 'key']).doNothing()).executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return { result: false, changes: [] };
      if (row.is_default === 1) await clearDefault(db, row.environment_key, row.key);
      return { result: true, changes: [{ environmentKey: row.environment_key, eventType: 'AddWorkflow', objectType: OBJECT_TYPE, objectKey: row.key, at: row.created_at }] };
    });
  }

  /** Updates the workflow; false when there is none. */
  async update(environmentKey: string, key: string, patch: WorkflowPatch): Promise<boolean> {
    return journaled(this.db, async (db) => {
      if (patch.is_default === 1) await clearDefault(db, environmentKey, key);
      const result = await db.updateTable('workflows').set(patch).where('environment_key', '=', environmentKey).where('key', '=', key).executeTakeFirst();
      const changed = Number(result.numUpdatedRows) > 0;
      return { result: changed, changes: changeIf(changed, { environmentKey, eventType: 'UpdateWorkflow', objectType: OBJECT_TYPE, objectKey: key, at: patch.updated_at ?? null }) };
    });
  }

  /** Deletes the workflow; false when there is none. */
  async remove(environmentKey: string, key: string, at: string): Promise<boolean> {
    return journaled(this.db, async (db) => {
      const result = await db.deleteFrom('workflows').where('environment_key', '=', environmentKey).where('key', '=', key).executeTakeFirst();
      const changed = Number(result.numDeletedRows) > 0;
      return { result: changed, changes: changeIf(changed, { environmentKey, eventType: 'RemoveWorkflow', objectType: OBJECT_TYPE, objectKey: key, at }) };
    });
  }
}

/** Takes the default flag from every workflow of the environment but `keep`. */
async function clearDefault(db: Kysely<Database>, environmentKey: string, keep: string): Promise<void> {
  await db.updateTable('workflows').set({ is_default: 0 }).where('environment_key', '=', environmentKey).where('is_default', '=', 1).where('key', '!=', keep).execute();
}
