import { z } from 'zod';
import { backfillSchema } from '../routes/upstream.routes.js';
import type { Operation } from './operations.js';

/** GET environments/<key>/upstream (upstream.view.ts): settings without the secret, and progress. */
export const upstreamStatusSchema = z.object({
  url: z.string(),
  environment_key: z.string(),
  public_url: z.string(),
  receiver_token: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  pulled_on_demand: z.number().int(),
  backfilled: z.number().int(),
  failed: z.number().int(),
  remaining: z.number().int().nullable(),
  backfill: z.object({
    state: z.enum(['idle', 'running', 'done', 'interrupted']),
    seen: z.number().int(),
    backfilled: z.number().int(),
    already_here: z.number().int(),
    failed: z.number().int(),
    since_token: z.string().nullable(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    throttled_until: z.string().nullable(),
  }),
  failures: z.array(z.object({ payment_method_token: z.string(), reason: z.string(), at: z.string() })),
});

/** The body the upstream's template renders for the intake (intake-credential.ts). */
export const intakeRequestSchema = z.object({
  payment_method_token: z.string().optional(),
  number: z.string().optional(),
  month: z.string().optional(),
  year: z.string().optional(),
  routing_number: z.string().optional(),
  account_number: z.string().optional(),
});

/** The intake's answer: the token and whether the card was imported or already here. */
export const intakeResultSchema = z.object({ payment_method_token: z.string(), outcome: z.enum(['imported', 'skipped']) });

const status = { root: 'upstream', schema: upstreamStatusSchema };

/** Live migration's routes (docs/portability.md, "Live migration"). */
export const UPSTREAM_OPERATIONS: Operation[] = [
  { method: 'get', path: '/v1/environments/:key/upstream', summary: "The environment's upstream and the migration's progress", tag: 'Administration', access: 'admin', success: { status: 200, description: 'Settings (never the secret), pulled on demand, backfilled, remaining, failures', body: status }, errors: [404] },
  { method: 'delete', path: '/v1/environments/:key/upstream', summary: "Forget the environment's upstream (pull-through stops)", tag: 'Administration', access: 'admin', success: { status: 204, description: 'Cleared' }, errors: [404] },
  { method: 'post', path: '/v1/environments/:key/upstream/backfill', summary: "Copy every retained payment method of the upstream (resumable; honours 429 and Retry-After)", tag: 'Administration', access: 'admin', request: { root: 'backfill', schema: backfillSchema }, success: { status: 202, description: 'Started (200 when one was running already); progress at GET …/upstream', body: status }, errors: [404, 422] },
  { method: 'post', path: '/v1/upstream/intake', summary: 'Where the upstream delivers a card this Coffer asked for (one-time credential in X-Coffer-Intake-Credential)', tag: 'Administration', access: 'none', request: { root: 'intake', schema: intakeRequestSchema }, success: { status: 200, description: 'The token and whether it was imported or already here (never a card value)', body: { root: 'intake', schema: intakeResultSchema } }, errors: [403, 422] },
];
