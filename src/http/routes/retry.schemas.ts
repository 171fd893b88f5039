import { z } from 'zod';
import type { RetryPolicy } from '../../services/routing/attempt-chain.js';
import { flag, parseInput } from '../validation.js';

/** Spreedly's Recover takes "up to two retry gateways" besides the primary (docs/routing-retry.md). */
export const MAX_BACKUP_GATEWAYS = 2;
const MAX_CUSTOM_ENTRIES = 50;

/**
 * A list as JSON sends it (an array) or as XML does: `<gateway_tokens><gateway_token>a</gateway_token>
 * <gateway_token>b</gateway_token></gateway_tokens>` decodes to `{ gateway_token: ['a', 'b'] }`, and
 * to `{ gateway_token: 'a' }` with one child. A single text is a list of one.
 */
function listOf(value: unknown): unknown {
  if (value === undefined || value === null || value === '') return undefined;
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return [value];
  if (typeof value === 'object') {
    const children = Object.values(value as Record<string, unknown>);
    if (children.length === 1) return listOf(children[0]);
  }
  return value;
}

const entries = (maxLength: number) => z.preprocess(listOf, z.array(z.string().min(1).max(maxLength)).max(MAX_CUSTOM_ENTRIES).optional());

/** The `retry` object of purchase, authorize and verify (Spreedly's Recover). */
export const retrySchema = z.object({
  gateway_tokens: z.preprocess(
    listOf,
    z
      .array(z.string().min(1).max(100))
      .min(1)
      .superRefine((tokens, context) => {
        if (tokens.length > MAX_BACKUP_GATEWAYS) context.addIssue({ code: 'custom', message: `cannot name more than ${MAX_BACKUP_GATEWAYS} gateways` });
        if (new Set(tokens).size !== tokens.length) context.addIssue({ code: 'custom', message: 'cannot name a gateway more than once' });
      }),
  ),
  mode: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.enum(['standard', 'outage_only']).optional()),
  custom_errors: z
    .object({
      error_codes: entries(100),
      messages: entries(255),
      override_default_error_codes: flag(),
    })
    .optional(),
});

/** A request's own retry chain: the backups after the path's gateway, and the policy. */
export interface RequestedRetry {
  backupGatewayTokens: string[];
  policy: RetryPolicy;
}

/** The `retry` of a transaction body, or null without one. Mode defaults to `standard`, Spreedly's recommended one. */
export function parseRetry(fields: Record<string, unknown>): RequestedRetry | null {
  if (fields.retry === undefined || fields.retry === null || fields.retry === '') return null;
  const { retry } = parseInput(z.object({ retry: retrySchema }), { retry: fields.retry });
  return {
    backupGatewayTokens: retry.gateway_tokens,
    policy: {
      mode: retry.mode ?? 'standard',
      customErrorCodes: retry.custom_errors?.error_codes ?? [],
      customMessages: retry.custom_errors?.messages ?? [],
      overrideDefaultErrorCodes: retry.custom_errors?.override_default_error_codes === true,
    },
  };
}
