/**
 * What a routing workflow is (docs/routing.md). The shapes are those of the wire and of the stored JSON
 * (snake_case), so a workflow round-trips through the API and the store unchanged.
 */

/** A condition on the transaction; every criterion given must hold (an empty condition matches all). */
export interface RuleCondition {
  /** `card_type` values as Coffer reports them (`visa`, `master`, …); any of them. */
  card_brands?: string[];
  /** ISO 4217 codes, upper case; any of them. */
  currencies?: string[];
  /** Inclusive bounds in minor units. */
  amount_min?: number;
  amount_max?: number;
  /** Leading digits of the card number (1 to 8 digits); any of them. */
  bin_prefixes?: string[];
  /** Inclusive range of leading digits, both bounds of the same length (6 to 8 digits). */
  bin_range?: { from: string; to: string };
  /** `credit_card`, `bank_account`, `third_party_token`, `sprel`; any of them. */
  payment_method_types?: string[];
  /** The payment method's metadata has `key` (with `value`, when given, compared as text). */
  metadata?: { key: string; value?: string };
}

export interface SplitShare {
  gateway_token: string;
  /** A positive integer; shares are drawn in proportion to their weights. */
  weight: number;
}

/** Where a matching transaction goes: one gateway, or a weighted split. */
export type RuleTarget = { gateway_token: string } | { split: SplitShare[] };

export interface WorkflowRule {
  name: string;
  condition: RuleCondition;
  target: RuleTarget;
}

/** `none`: one attempt; otherwise the `AttemptChain` retry mode over the backups. */
export const WORKFLOW_RETRY_MODES = ['none', 'outage_only', 'standard'] as const;
export type WorkflowRetryMode = (typeof WORKFLOW_RETRY_MODES)[number];

/** A workflow as clients write it (create, or the fields an update names). */
export interface WorkflowDefinition {
  name: string;
  rules: WorkflowRule[];
  default_target: RuleTarget;
  backup_gateway_tokens: string[];
  retry_mode: WorkflowRetryMode;
  success_rate_routing: boolean;
}

/** A stored workflow. */
export interface Workflow extends WorkflowDefinition {
  key: string;
  is_default: boolean;
  created_at: string;
  updated_at: string;
}

/** The gateway tokens a target names, in order. */
export function targetGateways(target: RuleTarget): string[] {
  return 'split' in target ? target.split.map((share) => share.gateway_token) : [target.gateway_token];
}

/** Every gateway token a workflow names (rules, default, backups), once each. */
export function workflowGateways(definition: Pick<WorkflowDefinition, 'rules' | 'default_target' | 'backup_gateway_tokens'>): string[] {
  const all = [...definition.rules.flatMap((rule) => targetGateways(rule.target)), ...targetGateways(definition.default_target), ...definition.backup_gateway_tokens];
  return [...new Set(all)];
}

/** True when a condition names no criterion: it matches every transaction. */
export function isCatchAll(condition: RuleCondition): boolean {
  return Object.values(condition).every((value) => value === undefined);
}
