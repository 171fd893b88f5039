import type { ErrorEntry } from '../../domain/errors.js';
import { PAYMENT_METHOD_TYPES } from '../../domain/payment-method.js';
import { CARD_TYPES } from '../../vault/card-rules.js';
import type { RuleCondition, RuleTarget, WorkflowDefinition } from '../../domain/workflow.js';
import { isCatchAll } from './workflow-definition.js';

/**
 * The checks of a whole workflow that need no store: a rule that can never match, a split that
 * cannot be drawn from, bounds the wrong way round. Each error names the place (`rules[1].target`)
 * so a client can find it; every error is reported at once.
 */

export const WORKFLOW_KEY = /^[a-z0-9][a-z0-9_-]{0,63}$/;

function invalid(attribute: string, message: string): ErrorEntry {
  return { key: 'errors.invalid', attribute, message };
}

function targetErrors(target: RuleTarget, path: string): ErrorEntry[] {
  if (!('split' in target)) return target.gateway_token === '' ? [invalid(path, `${path} must name a gateway_token or a split`)] : [];
  const errors: ErrorEntry[] = [];
  if (target.split.length === 0) errors.push(invalid(`${path}.split`, `${path}.split must list at least one gateway`));
  const firstIndex = new Map<string, number>();
  target.split.forEach((share, index) => {
    if (share.gateway_token === '') errors.push(invalid(`${path}.split[${index}].gateway_token`, `${path}.split[${index}] must name a gateway_token`));
    if (!Number.isInteger(share.weight) || share.weight < 1 || share.weight > 1_000_000) {
      errors.push(invalid(`${path}.split[${index}].weight`, `${path}.split[${index}].weight must be a positive integer (at most 1000000)`));
    }
    const first = firstIndex.get(share.gateway_token);
    if (first !== undefined) errors.push(invalid(`${path}.split`, `${path}.split[${index}] names the same gateway as ${path}.split[${first}]`));
    else firstIndex.set(share.gateway_token, index);
  });
  return errors;
}

/** Unknown entries are named by their index, never by their text (docs/security.md: errors echo no submitted value). */
function listErrors(values: string[] | undefined, allowed: readonly string[] | RegExp, attribute: string, what: string): ErrorEntry[] {
  if (values === undefined) return [];
  if (values.length === 0) return [invalid(attribute, `${attribute} must list at least one ${what} (or be left out)`)];
  const wrong = values.flatMap((value, index) => ((allowed instanceof RegExp ? allowed.test(value) : allowed.includes(value)) ? [] : [index]));
  if (wrong.length === 0) return [];
  const known = allowed instanceof RegExp ? '' : ` (known: ${allowed.join(', ')})`;
  return [invalid(attribute, `${attribute} has an unknown ${what} at index ${wrong.join(', ')}${known}`)];
}

function conditionErrors(condition: RuleCondition, path: string): ErrorEntry[] {
  const errors = [
    ...listErrors(condition.card_brands, CARD_TYPES, `${path}.card_brands`, 'card brand'),
    ...listErrors(condition.currencies, /^[A-Z]{3}$/, `${path}.currencies`, 'currency code'),
    ...listErrors(condition.bin_prefixes, /^\d{1,8}$/, `${path}.bin_prefixes`, 'BIN prefix (1 to 8 digits)'),
    ...listErrors(condition.payment_method_types, PAYMENT_METHOD_TYPES, `${path}.payment_method_types`, 'payment method type'),
  ];
  const { amount_min: min, amount_max: max } = condition;
  if (min !== undefined && min < 0) errors.push(invalid(`${path}.amount_min`, `${path}.amount_min must not be negative`));
  if (min !== undefined && max !== undefined && min > max) errors.push(invalid(`${path}.amount_max`, `${path}.amount_max must not be below amount_min`));
  const range = condition.bin_range;
  if (range !== undefined && !(/^\d{6,8}$/.test(range.from) && range.to.length === range.from.length && /^\d+$/.test(range.to) && range.from <= range.to)) {
    errors.push(invalid(`${path}.bin_range`, `${path}.bin_range needs from and to of the same length (6 to 8 digits), from not above to`));
  }
  if (condition.metadata !== undefined && condition.metadata.key === '') errors.push(invalid(`${path}.metadata.key`, `${path}.metadata.key can't be blank`));
  return errors;
}

/** Everything wrong with a complete workflow definition (none: it can be stored). */
export function workflowErrors(definition: WorkflowDefinition): ErrorEntry[] {
  const errors: ErrorEntry[] = [];
  const firstWithName = new Map<string, number>();
  let catchAll: string | null = null;
  definition.rules.forEach((rule, index) => {
    const path = `rules[${index}]`;
    if (catchAll !== null) errors.push(invalid(path, `${path} can never match: ${catchAll} before it has no condition and matches every transaction`));
    const earlier = firstWithName.get(rule.name);
    if (earlier !== undefined) errors.push(invalid(`${path}.name`, `${path}.name is already the name of rules[${earlier}]`));
    else firstWithName.set(rule.name, index);
    errors.push(...conditionErrors(rule.condition, `${path}.condition`), ...targetErrors(rule.target, `${path}.target`));
    if (isCatchAll(rule.condition) && catchAll === null) catchAll = path;
  });
  errors.push(...targetErrors(definition.defaultTarget, 'default_target'));
  const backups = definition.backupGatewayTokens;
  if (new Set(backups).size !== backups.length) errors.push(invalid('backup_gateway_tokens', 'backup_gateway_tokens names a gateway more than once'));
  return errors;
}

/** A gateway token of a workflow and the first place that names it (`rules[0].target.split[1].gateway_token`). */
export interface GatewayPlace {
  place: string;
  token: string;
}

function targetPlaces(target: RuleTarget, path: string): GatewayPlace[] {
  if (!('split' in target)) return [{ place: `${path}.gateway_token`, token: target.gateway_token }];
  return target.split.map((share, index) => ({ place: `${path}.split[${index}].gateway_token`, token: share.gateway_token }));
}

/**
 * Every gateway a workflow names, once, at the first place naming it: errors about a gateway say
 * where it is named, not which token it is (docs/security.md: errors echo no submitted value).
 */
export function gatewayPlaces(definition: Pick<WorkflowDefinition, 'rules' | 'defaultTarget' | 'backupGatewayTokens'>): GatewayPlace[] {
  const places = [
    ...definition.rules.flatMap((rule, index) => targetPlaces(rule.target, `rules[${index}].target`)),
    ...targetPlaces(definition.defaultTarget, 'default_target'),
    ...definition.backupGatewayTokens.map((token, index) => ({ place: `backup_gateway_tokens[${index}]`, token })),
  ];
  const seen = new Set<string>();
  return places.filter(({ token }) => {
    if (seen.has(token)) return false;
    seen.add(token);
    return true;
  });
}
