import type { WorkflowsRepository } from '../interfaces/workflows.js';
import type { Kysely } from 'kysely';
import type { NewWorkflow, Workflow, WorkflowPatch } from '../../domain/workflow.js';
import type { Database } from '../schema.js';
import { workflowOf, workflowPatchRow, workflowRow } from '../mappers/workflow.js';

/**
 * Single-query primitives over `workflows` (docs/routing.md); every read is scoped to one
 * environment. Making a workflow the default also clears the flag of the others: the workflow
 * service runs the write in its unit of work, so both land together. The writes record no event:
 * the service records `AddWorkflow`, `UpdateWorkflow` and `RemoveWorkflow` in that same unit of
 * work (docs/events.md).
 */
export class WorkflowsRepo implements WorkflowsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async find(environmentKey: string, key: string): Promise<Workflow | undefined> {
    const row = await this.db.selectFrom('workflows').selectAll().where('environment_key', '=', environmentKey).where('key', '=', key).executeTakeFirst();
    return row === undefined ? undefined : workflowOf(row);
  }

  async findDefault(environmentKey: string): Promise<Workflow | undefined> {
    const row = await this.db.selectFrom('workflows').selectAll().where('environment_key', '=', environmentKey).where('is_default', '=', 1).orderBy('seq').executeTakeFirst();
    return row === undefined ? undefined : workflowOf(row);
  }

  /** Every workflow of the environment in creation order (an environment has a handful). */
  async list(environmentKey: string, limit: number): Promise<Workflow[]> {
    const rows = await this.db.selectFrom('workflows').selectAll().where('environment_key', '=', environmentKey).orderBy('seq').limit(limit).execute();
    return rows.map(workflowOf);
  }

  /** Inserts the workflow; false when the key is taken in this environment (nothing written). */
  async insert(workflow: NewWorkflow): Promise<boolean> {
    // The unique (environment_key, key) decides, also between two concurrent creates.
    const inserted = await this.db
      .insertInto('workflows')
      .values(workflowRow(workflow))
      .onConflict((conflict) => conflict.columns(['environment_key', 'key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
    if (workflow.isDefault) await this.clearDefault(workflow.environmentKey, workflow.key);
    return true;
  }

  /** Updates the workflow; false when there is none. */
  async update(environmentKey: string, key: string, patch: WorkflowPatch): Promise<boolean> {
    if (patch.isDefault === true) await this.clearDefault(environmentKey, key);
    const result = await this.db.updateTable('workflows').set(workflowPatchRow(patch)).where('environment_key', '=', environmentKey).where('key', '=', key).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Deletes the workflow; false when there is none. */
  async remove(environmentKey: string, key: string): Promise<boolean> {
    const result = await this.db.deleteFrom('workflows').where('environment_key', '=', environmentKey).where('key', '=', key).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Takes the default flag from every workflow of the environment but `keep`. */
  private async clearDefault(environmentKey: string, keep: string): Promise<void> {
    await this.db.updateTable('workflows').set({ is_default: 0 }).where('environment_key', '=', environmentKey).where('is_default', '=', 1).where('key', '!=', keep).execute();
  }
}
