/**
 * What a routing workflow is (docs/routing.md). A rule, its condition and its target are documents
 * the API reads and writes and the store keeps as they are: their fields keep the wire's names
 * (`card_brands`, `gateway_token`), so they round-trip unchanged. The workflow around them is a
 * domain record like the others; its timestamps are ISO-8601 UTC strings, the wire format, which
 * sort as text.
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
  /** Evaluated in order; the first whose condition holds decides. */
  rules: WorkflowRule[];
  /** Where a transaction no rule matches goes. */
  defaultTarget: RuleTarget;
  /** Gateways tried after the chosen target, in order. */
  backupGatewayTokens: string[];
  retryMode: WorkflowRetryMode;
  /** Within a split, prefer the gateways that succeed more often. */
  successRateRouting: boolean;
}

/** A workflow of an environment. */
export interface Workflow extends WorkflowDefinition {
  key: string;
  /** The environment's default workflow (at most one is). */
  isDefault: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A workflow as the service creates it. */
export interface NewWorkflow extends Workflow {
  environmentKey: string;
}

/** The fields a change of a workflow sets; the others stay as they are. */
export type WorkflowPatch = Partial<WorkflowDefinition> & { isDefault?: boolean; updatedAt: string };
