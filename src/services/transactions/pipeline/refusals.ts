import { MESSAGES } from '../../../domain/errors.js';
import type { Refusal } from './pipeline-types.js';

/** Why a payment method in each unusable storage state is refused, before any call. */
export const STATE_REFUSALS: Record<string, Refusal> = {
  redacted: { messageKey: 'messages.payment_method_redacted', message: 'The payment method has been redacted.' },
  used: { messageKey: 'messages.payment_method_used', message: 'The payment method was single-use and has been used.' },
  closed: { messageKey: 'messages.payment_method_closed', message: 'The account of this payment method has been closed.' },
};

export const REDACTED_METHOD = STATE_REFUSALS.redacted as Refusal;

export const REDACTED_GATEWAY: Refusal = { messageKey: 'messages.cannot_use_redacted_gateway', message: MESSAGES.gatewayRedacted };
