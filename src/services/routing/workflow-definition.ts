import type { RuleCondition, RuleTarget, WorkflowDefinition } from '../../domain/workflow.js';

/** What a routing workflow names: the gateways of its targets, and catch-all conditions (domain/workflow.ts). */

/** The gateway tokens a target names, in order. */
export function targetGateways(target: RuleTarget): string[] {
  return 'split' in target ? target.split.map((share) => share.gateway_token) : [target.gateway_token];
}

/** Every gateway token a workflow names (rules, default, backups), once each. */
export function workflowGateways(definition: Pick<WorkflowDefinition, 'rules' | 'defaultTarget' | 'backupGatewayTokens'>): string[] {
  const all = [...definition.rules.flatMap((rule) => targetGateways(rule.target)), ...targetGateways(definition.defaultTarget), ...definition.backupGatewayTokens];
  return [...new Set(all)];
}

/** True when a condition names no criterion: it matches every transaction. */
export function isCatchAll(condition: RuleCondition): boolean {
  return Object.values(condition).every((value) => value === undefined);
}
