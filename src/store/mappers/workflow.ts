import type { Insertable, Selectable, Updateable } from 'kysely';
import type { NewWorkflow, RuleTarget, Workflow, WorkflowPatch, WorkflowRetryMode, WorkflowRule } from '../../domain/workflow.js';
import type { WorkflowsTable } from '../schema.js';

/** A `workflows` row as the domain names it: the JSON columns parsed, the 0/1 flags booleans. */
export function workflowOf(row: Selectable<WorkflowsTable>): Workflow {
  return {
    key: row.key,
    name: row.name,
    rules: JSON.parse(row.rules) as WorkflowRule[],
    defaultTarget: JSON.parse(row.default_target) as RuleTarget,
    backupGatewayTokens: JSON.parse(row.backup_gateway_tokens) as string[],
    retryMode: row.retry_mode as WorkflowRetryMode,
    successRateRouting: row.success_rate_routing === 1,
    isDefault: row.is_default === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function workflowRow(workflow: NewWorkflow): Insertable<WorkflowsTable> {
  return {
    environment_key: workflow.environmentKey,
    key: workflow.key,
    name: workflow.name,
    rules: JSON.stringify(workflow.rules),
    default_target: JSON.stringify(workflow.defaultTarget),
    backup_gateway_tokens: JSON.stringify(workflow.backupGatewayTokens),
    retry_mode: workflow.retryMode,
    success_rate_routing: workflow.successRateRouting ? 1 : 0,
    is_default: workflow.isDefault ? 1 : 0,
    created_at: workflow.createdAt,
    updated_at: workflow.updatedAt,
  };
}

/** The columns a patch sets (only those it names). */
export function workflowPatchRow(patch: WorkflowPatch): Updateable<WorkflowsTable> {
  const row: Updateable<WorkflowsTable> = {};
  if (patch.name !== undefined) row.name = patch.name;
  if (patch.rules !== undefined) row.rules = JSON.stringify(patch.rules);
  if (patch.defaultTarget !== undefined) row.default_target = JSON.stringify(patch.defaultTarget);
  if (patch.backupGatewayTokens !== undefined) row.backup_gateway_tokens = JSON.stringify(patch.backupGatewayTokens);
  if (patch.retryMode !== undefined) row.retry_mode = patch.retryMode;
  if (patch.successRateRouting !== undefined) row.success_rate_routing = patch.successRateRouting ? 1 : 0;
  if (patch.isDefault !== undefined) row.is_default = patch.isDefault ? 1 : 0;
  row.updated_at = patch.updatedAt;
  return row;
}
