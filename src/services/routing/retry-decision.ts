import type { AttemptResult } from '../transactions/gateway-transaction.service.js';
import type { RetryPolicy } from './attempt-chain.js';
import { SOFT_DECLINE_CODES } from './soft-declines.js';

/** Whether a retry chain moves on after an attempt, and why (recorded on the next attempt). */
export type RetryDecision = { moveOn: false } | { moveOn: true; reason: string };

const STAY: RetryDecision = { moveOn: false };

/**
 * Classifies one attempt (docs/routing-retry.md). Moves on only when the payment cannot have been taken:
 * - a fault the gateway kit proved to be before acceptance (nothing sent: refused connection,
 *   DNS, TLS, egress; or HTTP 503), in both modes;
 * - in `standard` mode, a decline whose standard error code is soft (SOFT_DECLINE_CODES, replaced
 *   by the custom codes when `overrideDefaultErrorCodes`);
 * - in both modes, a decline matching a custom error code or containing a custom message.
 * Never on a success, a pending answer, a refusal by Coffer itself, an unknown result (408: the
 * money may have moved) or any other fault (garbage, 500: the gateway may have acted).
 */
export function decideRetry(attempt: AttemptResult, policy: RetryPolicy): RetryDecision {
  const outcome = attempt.outcome;
  if (outcome === null || outcome.kind === 'unknown') return STAY;
  if (outcome.kind === 'fault') return outcome.notTaken ? { moveOn: true, reason: `gateway fault before acceptance: ${outcome.message} (${outcome.detail})` } : STAY;
  const response = outcome.response;
  if (response.success || response.pending) return STAY;
  const code = response.errorCode;
  if (code !== null && policy.customErrorCodes.includes(code)) return { moveOn: true, reason: `custom error code: ${code}` };
  const message = response.message.toLowerCase();
  const matched = policy.customMessages.find((text) => text !== '' && message.includes(text.toLowerCase()));
  if (matched !== undefined) return { moveOn: true, reason: `custom error message: ${matched}` };
  if (policy.mode === 'standard' && !policy.overrideDefaultErrorCodes && code !== null && SOFT_DECLINE_CODES.has(code)) return { moveOn: true, reason: `soft decline: ${code}` };
  return STAY;
}
