import { containsCardLike } from '../domain/scrubbing/card-like.js';
import { PAYMENT_METHOD_TYPES } from '../domain/payment-method.js';
import { CARD_TYPES } from '../vault/card-rules.js';
import type { RuleCondition, RuleTarget, Workflow, WorkflowRetryMode } from '../domain/workflow.js';

/**
 * The workflow editor's form as data (docs/routing.md, "The workflow editor"): what the fields
 * hold, read from a stored workflow or from a posted form, and turned into the API's
 * `workflow{…}` body, so the portal saves exactly what the API would (same parser, same checks).
 * Values stay text until the API's parser reads them: a wrong one is reported by the API's message.
 */

/** Gateways a target can split between in the editor (the API takes up to 10; JSON beyond). */
export const TARGET_SLOTS = 4;
/** Backups, in order (the API's maximum). */
export const BACKUP_SLOTS = 5;
/** Up to this many rules in the editor (the API's maximum). */
export const MAX_EDITOR_RULES = 50;

export interface ShareDraft {
  gateway: string;
  weight: string;
}

export interface RuleDraft {
  name: string;
  /** Where the rule goes in the list (1 = first); blank or its own place keeps it there. */
  order: string;
  remove: boolean;
  brands: string[];
  currencies: string;
  amountMin: string;
  amountMax: string;
  binPrefixes: string;
  binFrom: string;
  binTo: string;
  paymentMethodTypes: string[];
  metadataKey: string;
  metadataValue: string;
  /** TARGET_SLOTS shares; a blank gateway is an unused slot. */
  target: ShareDraft[];
}

export interface WorkflowDraft {
  key: string;
  name: string;
  isDefault: boolean;
  retryMode: WorkflowRetryMode | string;
  successRateRouting: boolean;
  defaultTarget: ShareDraft[];
  /** BACKUP_SLOTS gateways in order; blank slots are unused. */
  backups: string[];
  rules: RuleDraft[];
}

function slots(shares: ShareDraft[]): ShareDraft[] {
  const out = shares.slice(0, TARGET_SLOTS);
  while (out.length < TARGET_SLOTS) out.push({ gateway: '', weight: '' });
  return out;
}

function sharesOf(target: RuleTarget): ShareDraft[] {
  return 'split' in target ? target.split.map((share) => ({ gateway: share.gateway_token, weight: String(share.weight) })) : [{ gateway: target.gateway_token, weight: '' }];
}

export function emptyRule(): RuleDraft {
  return { name: '', order: '', remove: false, brands: [], currencies: '', amountMin: '', amountMax: '', binPrefixes: '', binFrom: '', binTo: '', paymentMethodTypes: [], metadataKey: '', metadataValue: '', target: slots([]) };
}

function list(values: string[] | undefined): string {
  return (values ?? []).join(', ');
}

export function ruleDraftOf(rule: Workflow['rules'][number]): RuleDraft {
  const c = rule.condition;
  return {
    ...emptyRule(),
    name: rule.name,
    brands: [...(c.card_brands ?? [])],
    currencies: list(c.currencies),
    amountMin: c.amount_min === undefined ? '' : String(c.amount_min),
    amountMax: c.amount_max === undefined ? '' : String(c.amount_max),
    binPrefixes: list(c.bin_prefixes),
    binFrom: c.bin_range?.from ?? '',
    binTo: c.bin_range?.to ?? '',
    paymentMethodTypes: [...(c.payment_method_types ?? [])],
    metadataKey: c.metadata?.key ?? '',
    metadataValue: c.metadata?.value ?? '',
    target: slots(sharesOf(rule.target)),
  };
}

/** The editor's fields for a stored workflow, or a new one (null). */
export function draftOf(workflow: Workflow | null): WorkflowDraft {
  if (workflow === null) {
    return { key: '', name: '', isDefault: false, retryMode: 'outage_only', successRateRouting: false, defaultTarget: slots([]), backups: Array.from({ length: BACKUP_SLOTS }, () => ''), rules: [] };
  }
  const backups = workflow.backupGatewayTokens.slice(0, BACKUP_SLOTS);
  while (backups.length < BACKUP_SLOTS) backups.push('');
  return {
    key: workflow.key,
    name: workflow.name,
    isDefault: workflow.isDefault,
    retryMode: workflow.retryMode,
    successRateRouting: workflow.successRateRouting,
    defaultTarget: slots(sharesOf(workflow.defaultTarget)),
    backups,
    rules: workflow.rules.map(ruleDraftOf),
  };
}

/**
 * A BIN field as the form may show it again: up to 8 digits. Anything longer could be a card
 * number typed by mistake; it is never written back into a page (the API refuses it anyway).
 */
export function binField(value: string): string {
  const trimmed = value.trim();
  return /^\d{0,8}$/.test(trimmed) ? trimmed : '';
}

/** BIN prefixes as the form may show them again: each one checked as `binField`. */
function binList(value: string): string {
  const parts = value.split(',').map((part) => part.trim()).filter((part) => part !== '');
  return parts.every((part) => binField(part) === part) ? parts.join(', ') : '';
}

/** A posted text as the form may show it again: emptied when it could hold a card number typed by mistake. */
function safeText(value: string): string {
  const trimmed = value.trim();
  return containsCardLike(trimmed) || /\d{13,}/.test(trimmed) ? '' : trimmed;
}

function checkedValues(form: Record<string, string>, prefix: string): string[] {
  return Object.keys(form).filter((name) => name.startsWith(prefix) && form[name] !== '').map((name) => name.slice(prefix.length));
}

function sharesFromForm(form: Record<string, string>, prefix: string): ShareDraft[] {
  return slots(Array.from({ length: TARGET_SLOTS }, (_, i) => ({ gateway: (form[`${prefix}gw_${i}`] ?? '').trim(), weight: (form[`${prefix}weight_${i}`] ?? '').trim() })));
}

/** The editor's fields as posted, as typed (the API's parser judges them; `shownDraft` before showing them again). */
export function draftFromForm(form: Record<string, string>): WorkflowDraft {
  const count = Math.min(MAX_EDITOR_RULES, Math.max(0, Number.parseInt(form.rule_count ?? '0', 10) || 0));
  const rules: RuleDraft[] = [];
  for (let i = 0; i < count; i += 1) {
    const p = `rule_${i}_`;
    const field = (name: string) => (form[`${p}${name}`] ?? '').trim();
    rules.push({
      name: field('name'),
      order: field('order'),
      remove: field('remove') !== '',
      brands: checkedValues(form, `${p}brand_`),
      currencies: field('currencies'),
      amountMin: field('amount_min'),
      amountMax: field('amount_max'),
      binPrefixes: field('bin_prefixes'),
      binFrom: field('bin_from'),
      binTo: field('bin_to'),
      paymentMethodTypes: checkedValues(form, `${p}pmtype_`),
      metadataKey: field('metadata_key'),
      metadataValue: field('metadata_value'),
      target: sharesFromForm(form, p),
    });
  }
  return {
    key: (form.key ?? '').trim(),
    name: (form.name ?? '').trim(),
    isDefault: form.default === 'on',
    retryMode: form.retry_mode ?? 'outage_only',
    successRateRouting: form.success_rate_routing === 'on',
    defaultTarget: sharesFromForm(form, 'default_'),
    backups: Array.from({ length: BACKUP_SLOTS }, (_, i) => (form[`backup_${i}`] ?? '').trim()),
    rules,
  };
}

/**
 * The draft as a page may show it again (after a 422, or "Add another rule"): a BIN field longer than
 * eight digits and any text that could be a card number typed by mistake are emptied, never echoed.
 */
export function shownDraft(draft: WorkflowDraft): WorkflowDraft {
  const shares = (list: ShareDraft[]) => list.map((share) => ({ gateway: safeText(share.gateway), weight: safeText(share.weight) }));
  return {
    ...draft,
    key: safeText(draft.key),
    name: safeText(draft.name),
    defaultTarget: shares(draft.defaultTarget),
    backups: draft.backups.map(safeText),
    rules: draft.rules.map((rule) => ({
      ...rule,
      name: safeText(rule.name),
      order: safeText(rule.order),
      brands: rule.brands.filter((brand) => (CARD_TYPES as readonly string[]).includes(brand)),
      paymentMethodTypes: rule.paymentMethodTypes.filter((type) => (PAYMENT_METHOD_TYPES as readonly string[]).includes(type)),
      currencies: safeText(rule.currencies),
      amountMin: safeText(rule.amountMin),
      amountMax: safeText(rule.amountMax),
      binPrefixes: binList(rule.binPrefixes),
      binFrom: binField(rule.binFrom),
      binTo: binField(rule.binTo),
      metadataKey: safeText(rule.metadataKey),
      metadataValue: safeText(rule.metadataValue),
      target: shares(rule.target),
    })),
  };
}

/** A rule block left as the editor offers it, empty: not a rule. */
export function isBlankRule(rule: RuleDraft): boolean {
  const texts = [rule.name, rule.currencies, rule.amountMin, rule.amountMax, rule.binPrefixes, rule.binFrom, rule.binTo, rule.metadataKey, rule.metadataValue];
  const lists = [rule.brands, rule.paymentMethodTypes];
  return texts.every((text) => text === '') && lists.every((list) => list.length === 0) && rule.target.every((share) => share.gateway === '' && share.weight === '');
}

/** The rules to keep, in the order asked: removed and blank ones dropped, then sorted by `order` (blank keeps its place). */
export function orderedRules(rules: readonly RuleDraft[]): RuleDraft[] {
  const kept = rules.map((rule, index) => ({ rule, index })).filter(({ rule }) => !rule.remove && !isBlankRule(rule));
  const position = ({ rule, index }: { rule: RuleDraft; index: number }) => {
    const asked = Number.parseInt(rule.order, 10);
    if (!Number.isFinite(asked) || asked < 1) return index;
    // Moved up to place n: just before the rule that held it; moved down: just after it.
    const place = asked - 1;
    return place < index ? place - 0.5 : place > index ? place + 0.5 : index;
  };
  return kept.sort((a, b) => position(a) - position(b) || a.index - b.index).map(({ rule }) => ({ ...rule, order: '' }));
}

function splitList(value: string): string[] | undefined {
  const parts = value.split(',').map((part) => part.trim()).filter((part) => part !== '');
  return parts.length === 0 ? undefined : parts;
}

/** A target as the API's body: one gateway, or a split when several (or a weight) are given. */
function targetBody(shares: readonly ShareDraft[]): Record<string, unknown> | undefined {
  const used = shares.filter((share) => share.gateway !== '' || share.weight !== '');
  if (used.length === 0) return undefined;
  const only = used[0] as ShareDraft;
  if (used.length === 1 && only.weight === '') return { gateway_token: only.gateway };
  return { split: used.map((share) => ({ gateway_token: share.gateway, weight: share.weight })) };
}

function conditionBody(rule: RuleDraft): Record<string, unknown> {
  const condition: Record<string, unknown> = {};
  if (rule.brands.length > 0) condition.card_brands = rule.brands;
  const currencies = splitList(rule.currencies);
  if (currencies !== undefined) condition.currencies = currencies;
  if (rule.amountMin !== '') condition.amount_min = rule.amountMin;
  if (rule.amountMax !== '') condition.amount_max = rule.amountMax;
  const prefixes = splitList(rule.binPrefixes);
  if (prefixes !== undefined) condition.bin_prefixes = prefixes;
  if (rule.binFrom !== '' || rule.binTo !== '') condition.bin_range = { from: rule.binFrom, to: rule.binTo };
  if (rule.paymentMethodTypes.length > 0) condition.payment_method_types = rule.paymentMethodTypes;
  if (rule.metadataKey !== '' || rule.metadataValue !== '') condition.metadata = { key: rule.metadataKey, ...(rule.metadataValue === '' ? {} : { value: rule.metadataValue }) };
  return condition;
}

/** The API's `workflow{…}` body for the draft (without `key` when editing: it cannot change). */
export function bodyOfDraft(draft: WorkflowDraft, editing: boolean): Record<string, unknown> {
  return {
    ...(editing ? {} : { key: draft.key }),
    name: draft.name,
    default: draft.isDefault,
    retry_mode: draft.retryMode,
    success_rate_routing: draft.successRateRouting,
    rules: orderedRules(draft.rules).map((rule, index) => ({ name: rule.name === '' ? `rule ${index + 1}` : rule.name, condition: conditionBody(rule), target: targetBody(rule.target) })),
    default_target: targetBody(draft.defaultTarget),
    backup_gateway_tokens: draft.backups.filter((token) => token !== ''),
  };
}

/** A condition as one line of text, for lists and the explain result ("card brand visa or master; currency EUR"). */
export function conditionText(condition: RuleCondition): string {
  const parts: string[] = [];
  if (condition.card_brands !== undefined) parts.push(`card brand ${condition.card_brands.join(' or ')}`);
  if (condition.currencies !== undefined) parts.push(`currency ${condition.currencies.join(' or ')}`);
  if (condition.amount_min !== undefined) parts.push(`amount ≥ ${condition.amount_min}`);
  if (condition.amount_max !== undefined) parts.push(`amount ≤ ${condition.amount_max}`);
  if (condition.bin_prefixes !== undefined) parts.push(`BIN starts with ${condition.bin_prefixes.join(' or ')}`);
  if (condition.bin_range !== undefined) parts.push(`BIN ${condition.bin_range.from}–${condition.bin_range.to}`);
  if (condition.payment_method_types !== undefined) parts.push(`payment method ${condition.payment_method_types.join(' or ')}`);
  if (condition.metadata !== undefined) parts.push(condition.metadata.value === undefined ? `metadata has ${condition.metadata.key}` : `metadata ${condition.metadata.key} = ${condition.metadata.value}`);
  return parts.length === 0 ? 'every transaction' : parts.join('; ');
}
