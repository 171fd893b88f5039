import type { Environment } from '../domain/environment.js';
import type { PaymentMethod } from '../domain/payment-method.js';
import type { SafeHtml } from './html.js';

/**
 * SLOT: the card page's "access log" section (who read or used this payment method, where such a
 * log exists). Empty for now; the card page renders whatever this returns between its actions and
 * "All fields". Fill it here, with its own heading, without touching the card page.
 */
export function accessLogSection(_environment: Environment, _method: PaymentMethod): SafeHtml | string {
  return '';
}
