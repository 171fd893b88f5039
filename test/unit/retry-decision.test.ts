import { describe, expect, it } from 'vitest';
import { blankResponse, STANDARD_ERROR_CODES, type GatewayResponse, type StandardErrorCode } from '../../src/gateways/kit/index.js';
import type { RetryPolicy } from '../../src/services/routing/attempt-chain.js';
import { decideRetry } from '../../src/services/routing/retry-decision.js';
import { SOFT_DECLINE_CODES } from '../../src/services/routing/soft-declines.js';
import type { AttemptResult } from '../../src/services/transactions/gateway-transaction.service.js';
import type { CallOutcome } from '../../src/services/transactions/gateway-caller.js';

/** An attempt whose call came to `outcome` (the record itself does not matter to the decision). */
function attempt(outcome: CallOutcome | null): AttemptResult {
  return { result: { transaction: {} as AttemptResult['result']['transaction'], status: 422 }, outcome, card: null };
}

function declined(errorCode: StandardErrorCode | null, message = 'Declined'): AttemptResult {
  const response: GatewayResponse = { ...blankResponse(false, message), errorCode };
  return attempt({ kind: 'answered', response, latencyMs: 3 });
}

const policy = (overrides: Partial<RetryPolicy> = {}): RetryPolicy => ({ mode: 'standard', customErrorCodes: [], customMessages: [], overrideDefaultErrorCodes: false, ...overrides });

describe('decideRetry: when a retry chain moves on', () => {
  it('moves on after a fault that proves the payment was not taken, in both modes', () => {
    const fault = attempt({ kind: 'fault', message: 'Unable to connect to the gateway.', detail: 'ECONNREFUSED', latencyMs: 1, notTaken: true });
    for (const mode of ['standard', 'outage_only'] as const) expect(decideRetry(fault, policy({ mode }))).toEqual({ moveOn: true, reason: 'gateway fault before acceptance: Unable to connect to the gateway. (ECONNREFUSED)' });
  });

  it('never moves on after an unknown result, a fault that may have been taken, a success, a pending answer or a refusal', () => {
    const everything = policy({ customErrorCodes: [...STANDARD_ERROR_CODES], customMessages: ['a', 'e'] });
    expect(decideRetry(attempt({ kind: 'unknown', message: 'The gateway did not answer in time.', detail: 'TimeoutError', latencyMs: 2000 }), everything)).toEqual({ moveOn: false });
    expect(decideRetry(attempt({ kind: 'fault', message: 'Stripe returned an error.', detail: 'HTTP 500', latencyMs: 5, notTaken: false }), everything)).toEqual({ moveOn: false });
    expect(decideRetry(attempt({ kind: 'answered', response: blankResponse(true, 'Transaction approved'), latencyMs: 5 }), everything)).toEqual({ moveOn: false });
    expect(decideRetry(attempt({ kind: 'answered', response: { ...blankResponse(false, 'Pending'), pending: true }, latencyMs: 5 }), everything)).toEqual({ moveOn: false });
    expect(decideRetry(attempt(null), everything)).toEqual({ moveOn: false });
  });

  it('standard: every soft code moves on, every other standard code stays; outage_only: no decline moves on', () => {
    for (const code of STANDARD_ERROR_CODES) {
      expect(decideRetry(declined(code), policy()).moveOn, code).toBe(SOFT_DECLINE_CODES.has(code));
      expect(decideRetry(declined(code), policy({ mode: 'outage_only' })).moveOn, code).toBe(false);
    }
    expect(decideRetry(declined(null), policy()).moveOn).toBe(false);
  });

  it('custom codes and messages (case-insensitive substring) move on in either mode; override drops the default list', () => {
    expect(decideRetry(declined('insufficient_funds'), policy({ mode: 'outage_only', customErrorCodes: ['insufficient_funds'] }))).toEqual({ moveOn: true, reason: 'custom error code: insufficient_funds' });
    expect(decideRetry(declined('incorrect_cvc', 'CVC Declined'), policy({ mode: 'outage_only', customMessages: ['cvc decl'] }))).toEqual({ moveOn: true, reason: 'custom error message: cvc decl' });
    expect(decideRetry(declined('incorrect_cvc', 'CVC Declined'), policy({ customMessages: [''] })).moveOn).toBe(false);
    expect(decideRetry(declined('processing_error'), policy({ overrideDefaultErrorCodes: true })).moveOn).toBe(false);
    expect(decideRetry(declined('processing_error'), policy({ overrideDefaultErrorCodes: true, customErrorCodes: ['processing_error'] })).moveOn).toBe(true);
  });
});
