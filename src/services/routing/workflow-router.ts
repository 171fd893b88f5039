import type { RuleCondition, RuleTarget, SplitShare, Workflow } from '../../domain/workflow.js';
import { drawWeighted, shareProbabilities, type RandomInt } from './split-draw.js';
import { smoothedRate, type SuccessRates } from './success-rates.js';

/**
 * Which gateway a transaction takes under a workflow, and why. Pure apart from the draw
 * of a split: the purchase and the explain dry run both call `routeByWorkflow`, so what explain
 * says is what happens (for a split: the same probabilities; the draw itself is one sample).
 */

/** What the rules look at, taken from the transaction and its payment method. */
export interface TransactionFacts {
  cardBrand: string | null;
  /** Up to the first eight digits of the card number; null for other payment methods. */
  bin: string | null;
  currency: string | null;
  amount: number | null;
  paymentMethodType: string | null;
  metadata: Record<string, string>;
}

export interface CriterionCheck {
  criterion: string;
  expected: string;
  actual: string | null;
  passed: boolean;
}

export interface RuleEvaluation {
  index: number;
  name: string;
  /** False for rules after the matching one (not looked at). */
  evaluated: boolean;
  matched: boolean;
  checks: CriterionCheck[];
}

export interface ShareChoice {
  gateway_token: string;
  weight: number;
  /** The chance this share had in this decision. */
  probability: number;
  /** Success-rate routing only: the recent outcomes of the gateway for the card brand. */
  recent_successes?: number;
  recent_total?: number;
}

export interface RoutingDecision {
  workflowKey: string;
  /** The matching rule's name; null when the workflow's default target applied. */
  ruleMatched: string | null;
  ruleIndex: number | null;
  evaluations: RuleEvaluation[];
  target: RuleTarget;
  /** The gateway of the first attempt. */
  gatewayToken: string;
  /** `single`: the target names one gateway; `weighted`: drawn by weight; `success_rate`: the best recent rate won; `exploration`: drawn by weight to keep every share measured. */
  method: 'single' | 'weighted' | 'success_rate' | 'exploration';
  /** For a split: every share and its chance in this decision. */
  shares: ShareChoice[];
  /** The chain: the chosen gateway, then the workflow's backups (the chosen one not repeated). */
  gatewayTokens: string[];
  reason: string;
}

/** Success-rate routing draws by weight this often (per mille), so no share is starved of traffic. */
export const EXPLORATION_PER_MILLE = 100;

export interface RouterOptions {
  random: RandomInt;
  successRates: SuccessRates | null;
}

function check(criterion: string, expected: string, actual: string | null, passed: boolean): CriterionCheck {
  return { criterion, expected, actual, passed };
}

/** Every criterion the condition names, checked against the facts. */
export function checkCondition(condition: RuleCondition, facts: TransactionFacts): CriterionCheck[] {
  const checks: CriterionCheck[] = [];
  if (condition.card_brands !== undefined) {
    checks.push(check('card_brand', condition.card_brands.join(', '), facts.cardBrand, facts.cardBrand !== null && condition.card_brands.includes(facts.cardBrand)));
  }
  if (condition.currencies !== undefined) {
    const currency = facts.currency?.toUpperCase() ?? null;
    checks.push(check('currency', condition.currencies.join(', '), currency, currency !== null && condition.currencies.includes(currency)));
  }
  const amount = facts.amount === null ? null : String(facts.amount);
  if (condition.amount_min !== undefined) checks.push(check('amount_min', `>= ${condition.amount_min}`, amount, facts.amount !== null && facts.amount >= condition.amount_min));
  if (condition.amount_max !== undefined) checks.push(check('amount_max', `<= ${condition.amount_max}`, amount, facts.amount !== null && facts.amount <= condition.amount_max));
  if (condition.bin_prefixes !== undefined) {
    const bin = facts.bin;
    checks.push(check('bin_prefix', condition.bin_prefixes.join(', '), bin, bin !== null && condition.bin_prefixes.some((prefix) => bin.startsWith(prefix))));
  }
  if (condition.bin_range !== undefined) {
    const { from, to } = condition.bin_range;
    // Compared on as many leading digits as the bounds have: equal-length digit strings order as numbers.
    const leading = facts.bin !== null && facts.bin.length >= from.length ? facts.bin.slice(0, from.length) : null;
    checks.push(check('bin_range', `${from}..${to}`, leading ?? facts.bin, leading !== null && leading >= from && leading <= to));
  }
  if (condition.payment_method_types !== undefined) {
    const type = facts.paymentMethodType;
    checks.push(check('payment_method_type', condition.payment_method_types.join(', '), type, type !== null && condition.payment_method_types.includes(type)));
  }
  if (condition.metadata !== undefined) {
    const { key, value } = condition.metadata;
    const actual = facts.metadata[key] ?? null;
    checks.push(check(`metadata.${key}`, value ?? '(present)', actual, actual !== null && (value === undefined || actual === value)));
  }
  return checks;
}

/** The rules in order until the first whose every check passes. */
export function evaluateRules(workflow: Pick<Workflow, 'rules'>, facts: TransactionFacts): { evaluations: RuleEvaluation[]; matched: number | null } {
  const evaluations: RuleEvaluation[] = [];
  let matched: number | null = null;
  workflow.rules.forEach((rule, index) => {
    if (matched !== null) {
      evaluations.push({ index, name: rule.name, evaluated: false, matched: false, checks: [] });
      return;
    }
    const checks = checkCondition(rule.condition, facts);
    const passed = checks.every((item) => item.passed);
    evaluations.push({ index, name: rule.name, evaluated: true, matched: passed, checks });
    if (passed) matched = index;
  });
  return { evaluations, matched };
}

function chooseShare(shares: SplitShare[], facts: TransactionFacts, successRateRouting: boolean, options: RouterOptions): { chosen: SplitShare; method: RoutingDecision['method']; choices: ShareChoice[] } {
  const weighted = shareProbabilities(shares);
  const plain = shares.map((share, index) => ({ gateway_token: share.gateway_token, weight: share.weight, probability: weighted[index] as number }));
  if (!successRateRouting || options.successRates === null || shares.length < 2) {
    return { chosen: drawWeighted(shares, options.random), method: 'weighted', choices: plain };
  }
  const rates = shares.map((share) => (options.successRates as SuccessRates).rate(share.gateway_token, facts.cardBrand));
  const scores = rates.map(smoothedRate);
  const best = Math.max(...scores);
  const leaders = shares.filter((_, index) => scores[index] === best);
  // P(share) = exploration × its weighted chance + (1 − exploration) × its weighted chance among the leaders.
  const explore = EXPLORATION_PER_MILLE / 1000;
  const leaderWeights = leaders.reduce((sum, share) => sum + share.weight, 0);
  const choices = shares.map((share, index) => ({
    ...(plain[index] as ShareChoice),
    probability: explore * (weighted[index] as number) + (scores[index] === best ? (1 - explore) * (share.weight / leaderWeights) : 0),
    recent_successes: (rates[index] as { successes: number }).successes,
    recent_total: (rates[index] as { total: number }).total,
  }));
  if (options.random(1000) < EXPLORATION_PER_MILLE) return { chosen: drawWeighted(shares, options.random), method: 'exploration', choices };
  return { chosen: drawWeighted(leaders, options.random), method: 'success_rate', choices };
}

function describe(decision: Omit<RoutingDecision, 'reason'>, facts: TransactionFacts): string {
  const matched =
    decision.ruleMatched === null
      ? 'no rule matched, so the default target applied'
      : `rule ${decision.ruleIndex === null ? '' : decision.ruleIndex + 1} "${decision.ruleMatched}" matched (${(decision.evaluations[decision.ruleIndex ?? 0]?.checks ?? []).map((item) => `${item.criterion} ${item.actual ?? 'none'}`).join(', ') || 'no condition'})`;
  const split = decision.shares.map((share) => share.weight).join('/');
  const choice =
    decision.method === 'single'
      ? `gateway ${decision.gatewayToken}`
      : decision.method === 'success_rate'
        ? `split ${split}, ${decision.gatewayToken} has the best recent success rate for ${facts.cardBrand ?? 'this payment method'}`
        : decision.method === 'exploration'
          ? `split ${split}, drew ${decision.gatewayToken} by weight (exploration)`
          : `split ${split}, drew ${decision.gatewayToken}`;
  const backups = decision.gatewayTokens.length > 1 ? `; then ${decision.gatewayTokens.slice(1).join(', ')}` : '';
  return `${matched} → ${choice}${backups}`;
}

/** The routing decision of `workflow` for a transaction with these facts. */
export function routeByWorkflow(workflow: Workflow, facts: TransactionFacts, options: RouterOptions): RoutingDecision {
  const { evaluations, matched } = evaluateRules(workflow, facts);
  const rule = matched === null ? null : (workflow.rules[matched] ?? null);
  const target = rule?.target ?? workflow.defaultTarget;
  const picked =
    'split' in target
      ? chooseShare(target.split, facts, workflow.successRateRouting, options)
      : { chosen: { gateway_token: target.gateway_token, weight: 1 }, method: 'single' as const, choices: [] };
  const gatewayToken = picked.chosen.gateway_token;
  const gatewayTokens = [gatewayToken, ...workflow.backupGatewayTokens.filter((token) => token !== gatewayToken)];
  const decision = {
    workflowKey: workflow.key,
    ruleMatched: rule?.name ?? null,
    ruleIndex: matched,
    evaluations,
    target,
    gatewayToken,
    method: picked.method,
    shares: picked.choices,
    gatewayTokens,
  };
  return { ...decision, reason: describe(decision, facts) };
}
