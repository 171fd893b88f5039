import type { NewWorkflow, Workflow, WorkflowPatch } from '../../domain/workflow.js';

/**
 * Single-query primitives over `workflows` (docs/routing.md); every read is scoped to one
 * environment. Making a workflow the default also clears the flag of the others: the workflow
 * service runs the write in its unit of work, so both land together. The writes record no event:
 * the service records `AddWorkflow`, `UpdateWorkflow` and `RemoveWorkflow` in that same unit of
 * work (docs/events.md).
 */
export interface WorkflowsRepository {
  find(environmentKey: string, key: string): Promise<Workflow | undefined>;
  findDefault(environmentKey: string): Promise<Workflow | undefined>;
  /** Every workflow of the environment in creation order (an environment has a handful). */
  list(environmentKey: string, limit: number): Promise<Workflow[]>;
  /** Inserts the workflow; false when the key is taken in this environment (nothing written). */
  insert(workflow: NewWorkflow): Promise<boolean>;
  /** Updates the workflow; false when there is none. */
  update(environmentKey: string, key: string, patch: WorkflowPatch): Promise<boolean>;
  /** Deletes the workflow; false when there is none. */
  remove(environmentKey: string, key: string): Promise<boolean>;
}
