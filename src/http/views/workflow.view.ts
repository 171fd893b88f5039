import type { RoutedBy, Explanation } from '../../services/routing/routed-transactions.js';
import type { RuleCondition, RuleTarget, Workflow } from '../../domain/workflow.js';
import type { CriterionCheck, RuleEvaluation, ShareChoice } from '../../services/routing/workflow-router.js';
import { WireList, type Wire, type WireObject } from '../format/wire.js';
import { storedDate } from './time.js';

/** Views of routing workflows (docs/routing.md): a workflow, an explain answer and a transaction's `routed_by`. */

function targetView(target: RuleTarget): WireObject {
  if ('split' in target) return { split: new WireList('share', target.split.map((share) => ({ gateway_token: share.gateway_token, weight: share.weight }))) };
  return { gateway_token: target.gateway_token };
}

function conditionView(condition: RuleCondition): WireObject {
  const view: WireObject = {};
  if (condition.card_brands !== undefined) view.card_brands = new WireList('card_brand', condition.card_brands);
  if (condition.currencies !== undefined) view.currencies = new WireList('currency', condition.currencies);
  if (condition.amount_min !== undefined) view.amount_min = condition.amount_min;
  if (condition.amount_max !== undefined) view.amount_max = condition.amount_max;
  if (condition.bin_prefixes !== undefined) view.bin_prefixes = new WireList('bin_prefix', condition.bin_prefixes);
  if (condition.bin_range !== undefined) view.bin_range = { from: condition.bin_range.from, to: condition.bin_range.to };
  if (condition.payment_method_types !== undefined) view.payment_method_types = new WireList('payment_method_type', condition.payment_method_types);
  if (condition.metadata !== undefined) view.metadata = { key: condition.metadata.key, value: condition.metadata.value ?? null };
  return view;
}

export function workflowView(workflow: Workflow): WireObject {
  return {
    key: workflow.key,
    name: workflow.name,
    default: workflow.isDefault,
    retry_mode: workflow.retryMode,
    success_rate_routing: workflow.successRateRouting,
    rules: new WireList(
      'rule',
      workflow.rules.map((rule) => ({ name: rule.name, condition: conditionView(rule.condition), target: targetView(rule.target) })),
    ),
    default_target: targetView(workflow.defaultTarget),
    backup_gateway_tokens: new WireList('gateway_token', workflow.backupGatewayTokens),
    created_at: storedDate(workflow.createdAt),
    updated_at: storedDate(workflow.updatedAt),
  };
}

export function routedByView(routedBy: RoutedBy): WireObject {
  return {
    workflow_key: routedBy.workflow_key,
    rule: routedBy.rule,
    rule_index: routedBy.rule_index,
    method: routedBy.method,
    gateway_token: routedBy.gateway_token,
    gateway_tokens: new WireList('gateway_token', routedBy.gateway_tokens),
    reason: routedBy.reason,
  };
}

function checkView(check: CriterionCheck): WireObject {
  return { criterion: check.criterion, expected: check.expected, actual: check.actual, passed: check.passed };
}

function evaluationView(evaluation: RuleEvaluation): WireObject {
  return { index: evaluation.index, name: evaluation.name, evaluated: evaluation.evaluated, matched: evaluation.matched, checks: new WireList('check', evaluation.checks.map(checkView)) };
}

function shareView(share: ShareChoice): WireObject {
  const view: WireObject = { gateway_token: share.gateway_token, weight: share.weight, probability: Math.round(share.probability * 1000) / 1000 };
  if (share.recent_total !== undefined) {
    view.recent_successes = share.recent_successes ?? 0;
    view.recent_total = share.recent_total;
  }
  return view;
}

/** The explain answer: the facts the rules saw, each rule's checks, and the decision. */
export function explanationView(explanation: Explanation): WireObject {
  const { decision, facts } = explanation;
  const factsView: Record<string, Wire> = {
    card_brand: facts.cardBrand,
    bin: facts.bin,
    currency: facts.currency,
    amount: facts.amount,
    payment_method_type: facts.paymentMethodType,
  };
  return {
    workflow_key: explanation.workflow.key,
    facts: factsView,
    rules: new WireList('rule', decision.evaluations.map(evaluationView)),
    rule: decision.ruleMatched,
    rule_index: decision.ruleIndex,
    target: targetView(decision.target),
    // A single-gateway target always takes that gateway; a split is a draw (`shares` gives the chances).
    deterministic: decision.method === 'single',
    method: decision.method,
    shares: new WireList('share', decision.shares.map(shareView)),
    gateway_token: decision.gatewayToken,
    gateway_tokens: new WireList('gateway_token', decision.gatewayTokens),
    retry_mode: explanation.workflow.retryMode,
    reason: decision.reason,
  };
}
