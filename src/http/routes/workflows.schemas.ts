import { z } from 'zod';
import { WORKFLOW_RETRY_MODES, type RuleCondition, type RuleTarget, type WorkflowDefinition, type WorkflowRule } from '../../domain/workflow.js';
import { flag, integer, parseInput, text } from '../validation.js';
import { listOf } from './receivers.schemas.js';
import { transactionSchema } from './transactions.schemas.js';

/*
 * The `workflow{…}` body of POST and PUT /v1/workflows in JSON or XML. XML lists are a wrapper of
 * repeated items (`<rules><rule>…</rule></rules>`, `<card_brands><card_brand>visa</card_brand></card_brands>`).
 * Structure is checked here; what needs the whole workflow or the store (unreachable rules,
 * unknown gateways) is checked by the workflow service.
 */

const MAX_RULES = 50;
const MAX_SHARES = 10;
const MAX_BACKUPS = 5;

const textList = (item: string, max: number) => listOf(item).pipe(z.array(z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().min(1).max(max))).max(50).optional());

const shareSchema = z.object({ gateway_token: text(100), weight: integer() });

const targetSchema = z
  .object({ gateway_token: text(100), split: listOf('share').pipe(z.array(shareSchema).max(MAX_SHARES).optional()) })
  .optional();

const conditionSchema = z
  .object({
    card_brands: textList('card_brand', 40),
    currencies: textList('currency', 3),
    amount_min: integer(),
    amount_max: integer(),
    bin_prefixes: textList('bin_prefix', 8),
    bin_range: z.object({ from: text(8), to: text(8) }).optional(),
    payment_method_types: textList('payment_method_type', 40),
    metadata: z.object({ key: text(50), value: text(500) }).optional(),
  })
  .optional();

const ruleSchema = z.object({ name: text(100), condition: conditionSchema, target: targetSchema });

export const workflowSchema = z.object({
  key: text(64),
  name: text(200),
  default: flag(),
  retry_mode: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.enum(WORKFLOW_RETRY_MODES).optional()),
  success_rate_routing: flag(),
  rules: listOf('rule').pipe(z.array(ruleSchema).max(MAX_RULES).optional()),
  default_target: targetSchema,
  backup_gateway_tokens: listOf('gateway_token').pipe(z.array(z.string().min(1).max(100)).max(MAX_BACKUPS).optional()),
});

/** What a body may set; absent fields are undefined (create fills defaults, update keeps the stored). */
export interface WorkflowInput {
  key?: string | undefined;
  isDefault?: boolean | undefined;
  fields: Partial<WorkflowDefinition>;
  /** A target given but naming neither a gateway nor a split, by attribute path. */
  shapeErrors: string[];
}

type ParsedTarget = z.output<typeof targetSchema>;

function targetOf(parsed: ParsedTarget, path: string, shapeErrors: string[]): RuleTarget | undefined {
  if (parsed === undefined) return undefined;
  if (parsed.split !== undefined && parsed.gateway_token !== undefined) shapeErrors.push(path);
  if (parsed.split !== undefined) return { split: parsed.split.map((share) => ({ gateway_token: share.gateway_token ?? '', weight: share.weight ?? 0 })) };
  if (parsed.gateway_token !== undefined) return { gateway_token: parsed.gateway_token };
  shapeErrors.push(path);
  return undefined;
}

function conditionOf(parsed: z.output<typeof conditionSchema>): RuleCondition {
  const condition: RuleCondition = {};
  if (parsed === undefined) return condition;
  if (parsed.card_brands !== undefined) condition.card_brands = parsed.card_brands.map((brand) => brand.toLowerCase());
  if (parsed.currencies !== undefined) condition.currencies = parsed.currencies.map((code) => code.toUpperCase());
  if (parsed.amount_min !== undefined) condition.amount_min = parsed.amount_min;
  if (parsed.amount_max !== undefined) condition.amount_max = parsed.amount_max;
  if (parsed.bin_prefixes !== undefined) condition.bin_prefixes = parsed.bin_prefixes;
  if (parsed.bin_range !== undefined) condition.bin_range = { from: parsed.bin_range.from ?? '', to: parsed.bin_range.to ?? '' };
  if (parsed.payment_method_types !== undefined) condition.payment_method_types = parsed.payment_method_types;
  if (parsed.metadata !== undefined) condition.metadata = { key: parsed.metadata.key ?? '', ...(parsed.metadata.value === undefined ? {} : { value: parsed.metadata.value }) };
  return condition;
}

/** `workflow{…}` of POST and PUT workflows. */
export function workflowInput(body: Record<string, unknown>): WorkflowInput {
  const parsed = parseInput(workflowSchema, body);
  const shapeErrors: string[] = [];
  const fields: Partial<WorkflowDefinition> = {};
  if (parsed.name !== undefined) fields.name = parsed.name;
  if (parsed.retry_mode !== undefined) fields.retryMode = parsed.retry_mode;
  if (parsed.success_rate_routing !== undefined) fields.successRateRouting = parsed.success_rate_routing;
  if (parsed.backup_gateway_tokens !== undefined) fields.backupGatewayTokens = parsed.backup_gateway_tokens;
  const defaultTarget = targetOf(parsed.default_target, 'default_target', shapeErrors);
  if (defaultTarget !== undefined) fields.defaultTarget = defaultTarget;
  if (parsed.rules !== undefined) {
    fields.rules = parsed.rules.map((rule, index): WorkflowRule => {
      const path = `rules[${index}].target`;
      const target = targetOf(rule.target, path, shapeErrors);
      if (rule.target === undefined) shapeErrors.push(path);
      return { name: rule.name ?? `rule ${index + 1}`, condition: conditionOf(rule.condition), target: target ?? { gateway_token: '' } };
    });
  }
  return { key: parsed.key, isDefault: parsed.default, fields, shapeErrors };
}

/** The body of explain and of a routed purchase: a transaction plus the workflow to route by. */
export const routedTransactionSchema = transactionSchema.extend({ workflow_key: text(64) });
