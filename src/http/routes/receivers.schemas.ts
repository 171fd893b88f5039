import { z } from 'zod';
import type { DeliveryInput } from '../../services/receivers/receiver-delivery.service.js';
import type { ExportInput } from '../../services/receivers/receiver-export.service.js';
import type { ReceiverInput } from '../../services/receiver.service.js';
import { MAX_TEMPLATE_CHARS } from '../../receivers/template-limits.js';
import { flag, parseInput, text } from '../validation.js';

/**
 * A list as either format sends it: a JSON array, or XML's wrapper of repeated items
 * (`<credentials><credential>…</credential></credentials>`, one item or many).
 */
export function listOf(itemName: string) {
  return z.preprocess((value) => {
    if (value === undefined || value === null || value === '') return undefined;
    if (Array.isArray(value)) return value;
    if (typeof value === 'object' && itemName in value) {
      const items = (value as Record<string, unknown>)[itemName];
      return Array.isArray(items) ? items : [items];
    }
    return value;
  }, z.array(z.unknown()).optional());
}

const credentialSchema = z.object({
  name: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().min(1).max(100)),
  value: text(10_000).transform((v) => v ?? ''),
  safe: flag().transform((v) => v === true),
});

export const receiverSchema = z.object({
  receiver_type: text(100),
  hostnames: text(2000),
  credentials: listOf('credential').pipe(z.array(credentialSchema).max(50).optional()),
  protocol: z
    .object({ user: text(200), password: text(1000), private_key: text(20_000), host_key: text(2000) })
    .optional(),
  sub_merchant_key: text(100),
  certificate_token: text(100),
});

/** `receiver{…}` of POST and PUT receivers. */
export function receiverInput(fields: Record<string, unknown>): { receiverType: string | undefined; input: ReceiverInput } {
  const parsed = parseInput(receiverSchema, fields);
  return {
    receiverType: parsed.receiver_type,
    input: {
      hostnames: parsed.hostnames,
      credentials: parsed.credentials,
      protocol:
        parsed.protocol === undefined
          ? undefined
          : { user: parsed.protocol.user, password: parsed.protocol.password, privateKey: parsed.protocol.private_key, hostKey: parsed.protocol.host_key },
      subMerchantKey: parsed.sub_merchant_key,
      certificateToken: parsed.certificate_token,
    },
  };
}

/** A template body's longest (docs/security.md, "Limits on input and templates"); a longer one is 422 errors.too_long. */
const TEMPLATE_MAX = MAX_TEMPLATE_CHARS;

export const deliverySchema = z.object({
  payment_method_token: text(100),
  url: text(2000),
  body: text(TEMPLATE_MAX),
  headers: text(16_000),
  request_method: text(10),
  continue_caching: flag(),
  encode_response: flag(),
});

/** `delivery{…}` of POST receivers/<t>/deliver. */
export function deliveryInput(fields: Record<string, unknown>): DeliveryInput {
  const parsed = parseInput(deliverySchema, fields);
  return {
    paymentMethodToken: parsed.payment_method_token,
    url: parsed.url,
    body: parsed.body,
    headers: parsed.headers,
    requestMethod: parsed.request_method,
    continueCaching: parsed.continue_caching,
    encodeResponse: parsed.encode_response,
  };
}

export const exportSchema = z.object({
  payment_method_tokens: listOf('payment_method_token').pipe(z.array(z.string().min(1).max(100)).optional()),
  url: text(2000),
  body: text(TEMPLATE_MAX),
  callback_url: text(2000),
});

/** `export{…}` of POST receivers/<t>/export. */
export function exportInput(fields: Record<string, unknown>): ExportInput {
  const parsed = parseInput(exportSchema, fields);
  return { paymentMethodTokens: parsed.payment_method_tokens, url: parsed.url, body: parsed.body, callbackUrl: parsed.callback_url };
}
