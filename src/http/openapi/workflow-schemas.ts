import { z } from 'zod';

/** Response schemas of routing workflows (workflows, explain, a transaction's `routed_by`). */

const nullableText = z.string().nullable();
const tokens = z.array(z.string());
const target = z.object({ gateway_token: z.string().optional(), split: z.array(z.object({ gateway_token: z.string(), weight: z.number().int() })).optional() });

export const routedBySchema = z
  .object({
    workflow_key: z.string(),
    rule: nullableText.describe('The matching rule; null when the default target applied'),
    rule_index: z.number().int().nullable(),
    method: z.enum(['single', 'weighted', 'success_rate', 'exploration']),
    gateway_token: z.string().describe('The gateway of the first attempt'),
    gateway_tokens: tokens.describe('The chain: first attempt, then backups'),
    reason: z.string(),
  })
  .describe('Transactions routed by a workflow only');

export const workflowResponseSchema = z.object({
  key: z.string(),
  name: z.string(),
  default: z.boolean(),
  retry_mode: z.enum(['none', 'outage_only', 'standard']),
  success_rate_routing: z.boolean(),
  rules: z.array(z.object({ name: z.string(), condition: z.record(z.string(), z.unknown()), target })),
  default_target: target,
  backup_gateway_tokens: tokens,
  created_at: z.string(),
  updated_at: z.string(),
});

export const explanationSchema = z.object({
  workflow_key: z.string(),
  facts: z.record(z.string(), z.unknown()),
  rules: z.array(z.object({ index: z.number().int(), name: z.string(), evaluated: z.boolean(), matched: z.boolean(), checks: z.array(z.record(z.string(), z.unknown())) })),
  rule: nullableText,
  rule_index: z.number().int().nullable(),
  target,
  deterministic: z.boolean(),
  method: z.enum(['single', 'weighted', 'success_rate', 'exploration']),
  shares: z.array(z.object({ gateway_token: z.string(), weight: z.number().int(), probability: z.number() })),
  gateway_token: z.string(),
  gateway_tokens: tokens,
  retry_mode: z.string(),
  reason: z.string(),
});
