import type { RequestMeta } from '../../domain/request.js';
import { z } from 'zod';
import type { TransactionInput } from '../../services/transactions/transaction-input.js';
import { flag, freeForm as boundedFreeForm, parseInput, text } from '../validation.js';
import { parseCreate } from './payment-methods.schemas.js';
import { retrySchema } from './retry.schemas.js';

const freeForm = z.unknown().optional();

export const transactionSchema = z.object({
  amount: z.unknown().optional(),
  currency_code: text(3),
  payment_method_token: text(100),
  credit_card: freeForm,
  bank_account: freeForm,
  apple_pay: freeForm,
  google_pay: freeForm,
  retain_on_success: flag(),
  order_id: text(255),
  description: text(1000),
  ip: text(64),
  email: text(255),
  merchant_name_descriptor: text(255),
  merchant_location_descriptor: text(255),
  gateway_specific_fields: boundedFreeForm().optional(),
  shipping_address: freeForm,
  attempt_3dsecure: flag(),
  three_ds_version: text(16),
  browser_info: text(8000),
  redirect_url: text(2000),
  callback_url: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(2048).refine(isHttpUrl, 'must be an http or https URL').optional()),
  callback_format: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['xml', 'json']).optional()),
  stored_credential_initiator: text(20).pipe(z.enum(['merchant', 'cardholder']).optional()),
  stored_credential_reason_type: text(20).pipe(z.enum(['recurring', 'unscheduled', 'installment']).optional()),
  /** Backup gateways (purchase, authorize and verify only; see retry.schemas.ts). */
  retry: retrySchema.optional(),
});

/** An absolute http(s) URL without credentials (the egress guard checks its host when it is used). */
function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

const SHIPPING_FIELDS = ['name', 'address1', 'address2', 'city', 'state', 'zip', 'country', 'phone_number'] as const;

function objectOrUndefined(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Amounts arrive as numbers (JSON) or text (XML); anything but an integer is flagged, not guessed. */
function amountOf(value: unknown): { amount?: number; amountInvalid?: boolean } {
  if (value === undefined || value === null || value === '') return {};
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  return Number.isInteger(number) ? { amount: number } : { amountInvalid: true };
}

/** The `transaction` body of gateway and reference transactions (wire-reference §2.3). */
export function parseTransaction(fields: Record<string, unknown>, request?: RequestMeta): TransactionInput {
  const parsed = parseInput(transactionSchema, fields);
  const shipping = objectOrUndefined(parsed.shipping_address);
  const inline = parsed.credit_card !== undefined || parsed.bank_account !== undefined || parsed.apple_pay !== undefined || parsed.google_pay !== undefined;
  return {
    request,
    ...amountOf(parsed.amount),
    currencyCode: parsed.currency_code,
    paymentMethodToken: parsed.payment_method_token,
    inlinePaymentMethod: inline
      ? parseCreate({
          ...(parsed.credit_card === undefined ? {} : { credit_card: parsed.credit_card }),
          ...(parsed.bank_account === undefined ? {} : { bank_account: parsed.bank_account }),
          ...(parsed.apple_pay === undefined ? {} : { apple_pay: parsed.apple_pay }),
          ...(parsed.google_pay === undefined ? {} : { google_pay: parsed.google_pay }),
          ...(parsed.email === undefined ? {} : { email: parsed.email }),
        })
      : undefined,
    retainOnSuccess: parsed.retain_on_success === true,
    orderId: parsed.order_id,
    description: parsed.description,
    ip: parsed.ip,
    email: parsed.email,
    merchantNameDescriptor: parsed.merchant_name_descriptor,
    merchantLocationDescriptor: parsed.merchant_location_descriptor,
    gatewaySpecificFields: objectOrUndefined(parsed.gateway_specific_fields),
    shippingAddress:
      shipping === undefined
        ? undefined
        : Object.fromEntries(SHIPPING_FIELDS.map((field) => [field, typeof shipping[field] === 'string' || typeof shipping[field] === 'number' ? String(shipping[field]) : null])),
    attempt3dsecure: parsed.attempt_3dsecure === true,
    threeDsVersion: parsed.three_ds_version,
    browserInfo: parsed.browser_info,
    redirectUrl: parsed.redirect_url,
    callbackUrl: parsed.callback_url,
    callbackFormat: parsed.callback_format,
    storedCredentialInitiator: parsed.stored_credential_initiator,
    storedCredentialReasonType: parsed.stored_credential_reason_type,
  };
}
