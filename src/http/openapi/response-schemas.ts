import { z } from 'zod';
import { routedBySchema } from './workflow-schemas.js';
import { TRANSACTION_STATES } from '../../domain/transaction.js';

/*
 * The bodies the API answers, as zod schemas the OpenAPI document is generated from. They
 * describe the views in src/http/views (field names, types, nullability); the views stay the
 * code that writes them. Fields are listed in wire order (wire-reference §3), which the XML
 * form keeps and the Ruby gem depends on.
 */

const nullableText = z.string().nullable();
const timestamp = z.string().describe('ISO 8601 UTC, e.g. 2026-01-01T00:00:00Z');
const freeForm = z.unknown().describe('Free-form: a hash of values, or text, as it was sent');

export const errorEntrySchema = z.object({
  key: z.string().describe('Stable error key, e.g. errors.payment_method_not_found'),
  message: z.string(),
  attribute: z.string().optional().describe('The request field at fault, for field errors'),
});

export const errorsSchema = z
  .object({ errors: z.array(errorEntrySchema) })
  .describe('XML: <errors><error key="…" attribute="…">message</error></errors>');

export const paymentMethodSchema = z
  .object({
    token: z.string(),
    created_at: timestamp,
    updated_at: timestamp,
    email: nullableText,
    data: freeForm.nullable(),
    storage_state: z.enum(['cached', 'retained', 'redacted', 'used', 'closed']),
    test: z.boolean(),
    metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullable(),
    callback_url: nullableText,
    last_four_digits: nullableText.optional(),
    first_six_digits: nullableText.optional(),
    card_type: nullableText.optional(),
    first_name: nullableText.optional(),
    last_name: nullableText.optional(),
    month: z.number().int().nullable().optional(),
    year: z.number().int().nullable().optional(),
    full_name: nullableText.optional(),
    eligible_for_card_updater: z.boolean().nullable().optional(),
    issuer_identification_number: nullableText.optional(),
    bank_name: nullableText.optional(),
    account_type: nullableText.optional(),
    account_holder_type: nullableText.optional(),
    routing_number_display_digits: nullableText.optional(),
    account_number_display_digits: nullableText.optional(),
    gateway_type: nullableText.optional(),
    third_party_token: nullableText.optional(),
    payment_method_type: z.enum(['credit_card', 'bank_account', 'third_party_token', 'sprel', 'apple_pay', 'google_pay']),
    errors: z.array(errorEntrySchema),
    fingerprint: nullableText.optional(),
    verification_value: z.string().optional().describe('XXX while a CVV is held, empty otherwise'),
    number: z.string().optional().describe('Masked: XXXX-XXXX-XXXX-1111'),
    routing_number: nullableText.optional(),
    account_number: nullableText.optional(),
  })
  .describe('A payment method (wire-reference §3.2); card, bank account or third-party fields by payment_method_type (apple_pay and google_pay show the card fields of their DPAN; docs/wallets.md). Also shows the address fields (address1 … shipping_phone_number).');

/** A payment method given inline that failed validation: not vaulted, shown with its errors (no token). */
export const invalidPaymentMethodSchema = z
  .object({
    token: z.null(),
    storage_state: z.null(),
    payment_method_type: z.string(),
    errors: z.array(errorEntrySchema),
  })
  .describe('An inline payment method that failed validation: nothing was vaulted');

/** The gateway's answer inside a transaction (`response`). */
export const gatewayResponseSchema = z.object({
  success: z.boolean(),
  message: z.string(),
  avs_code: nullableText,
  avs_message: nullableText,
  cvv_code: nullableText,
  cvv_message: nullableText,
  pending: z.boolean(),
  result_unknown: z.boolean(),
  error_code: nullableText,
  error_detail: nullableText,
  cancelled: z.boolean(),
  fraud_review: z.boolean().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

const receiverCredentialSchema = z.object({ name: z.string(), value: z.string().optional(), safe: z.boolean().optional() });

export const receiverSchema = z
  .object({
    receiver_type: z.string(),
    token: z.string(),
    hostnames: z.string().describe('Comma-separated scheme://host[:port]'),
    state: z.enum(['retained', 'redacted']),
    created_at: timestamp,
    updated_at: timestamp,
    company_name: nullableText,
    sub_merchant_key: nullableText,
    credentials: z.array(receiverCredentialSchema).describe('Safe credentials echo their value; others only their name'),
  })
  .describe('A receiver (wire-reference §3.4)');

export const gatewaySchema = z
  .object({
    token: z.string(),
    gateway_type: z.string(),
    name: z.string(),
    description: nullableText,
    merchant_profile_key: nullableText,
    sub_merchant_key: nullableText,
    characteristics: z.record(z.string(), z.boolean()).describe('supports_* flags, each a boolean'),
    credentials: z.array(z.object({ name: z.string(), value: z.string().nullable().optional() })).describe('Only safe credentials carry a value'),
    gateway_settings: z.record(z.string(), z.unknown()),
    gateway_specific_fields: z.array(z.string()),
    payment_methods: z.array(z.string()),
    state: z.enum(['retained', 'redacted', 'cached']),
    redacted: z.boolean(),
    sandbox: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .describe('A gateway (wire-reference §3.3)');

export const transactionSchema = z
  .object({
    on_test_gateway: z.boolean().optional(),
    token: z.string(),
    created_at: timestamp,
    updated_at: timestamp,
    succeeded: z.boolean(),
    // A redact of a gateway or receiver shows `redacted` (lean-transaction.ts).
    state: z.enum([...TRANSACTION_STATES, 'redacted']),
    transaction_type: z.string().describe('Purchase, Authorization, Capture, Credit, Void, Verification, Store, GeneralCredit, AddPaymentMethod, …'),
    retained: z.boolean().optional().describe('AddPaymentMethod only'),
    order_id: nullableText.optional(),
    ip: nullableText.optional(),
    description: nullableText.optional(),
    email: nullableText.optional(),
    merchant_name_descriptor: nullableText.optional(),
    merchant_location_descriptor: nullableText.optional(),
    gateway_specific_fields: z.record(z.string(), z.unknown()).nullable().optional(),
    gateway_specific_response_fields: z.record(z.string(), z.unknown()).nullable().optional(),
    gateway_transaction_id: nullableText.optional(),
    gateway_latency_ms: z.number().int().nullable().optional(),
    amount: z.number().int().nullable().optional().describe('Minor units'),
    currency_code: nullableText.optional(),
    retain_on_success: z.boolean().optional(),
    payment_method_added: z.boolean().optional(),
    stored_credential_initiator: z.enum(['merchant', 'cardholder']).nullable().optional(),
    stored_credential_reason_type: z.enum(['recurring', 'unscheduled', 'installment']).nullable().optional(),
    network_transaction_id: nullableText.optional().describe('The card network id the gateway returned (kept from a CIT for later MITs)'),
    message_key: nullableText.optional().describe('JSON only; XML carries it as <message key="…">'),
    message: nullableText,
    gateway_token: nullableText.optional(),
    gateway_type: nullableText.optional(),
    routed_by: routedBySchema.optional(),
    reference_token: nullableText.optional(),
    third_party_token: nullableText.optional(),
    url: z.string().optional(),
    deliver_time_ms: z.number().int().nullable().optional(),
    shipping_address: z.record(z.string(), nullableText).optional(),
    response: z.union([gatewayResponseSchema, z.object({ status: z.number().int(), headers: z.string(), body: z.string() })]).nullable().optional(),
    attempts: z
      .array(
        z.object({
          token: z.string(),
          state: z.string(),
          succeeded: z.boolean(),
          gateway_token: nullableText,
          gateway_type: nullableText,
          message_key: nullableText.optional(),
          message: nullableText,
          error_code: nullableText,
          failover_reason: nullableText.describe('Why the chain moved on to this attempt; null on the first'),
          skipped_gateways: z.array(z.object({ gateway_token: z.string(), reason: z.string() })),
          created_at: timestamp,
        }),
      )
      .optional()
      .describe('Every attempt of the retry chain this transaction belongs to, oldest first (only on chain members; docs/routing-retry.md)'),
    api_urls: z.array(z.unknown()).optional().describe('[{"failover_transaction":[url]}] on an attempt a retry chain moved on from'),
    attempt_3dsecure: z.boolean().optional().describe('This block only on 3-D Secure / offsite transactions'),
    three_ds_version: nullableText.optional(),
    three_ds_context: nullableText.optional(),
    required_action: z.enum(['device_fingerprint', 'challenge', 'none']).nullable().optional(),
    challenge_url: nullableText.optional(),
    challenge_form: nullableText.optional(),
    device_fingerprint_form: nullableText.optional(),
    redirect_url: nullableText.optional(),
    callback_url: nullableText.optional(),
    callback_format: nullableText.optional(),
    checkout_url: nullableText.optional(),
    payment_method: z.union([paymentMethodSchema, invalidPaymentMethodSchema]).optional(),
    basis_payment_method: paymentMethodSchema.optional(),
    receiver: receiverSchema.optional(),
    gateway: gatewaySchema.optional(),
  })
  .describe('A transaction (wire-reference §3.1). Scalars come first, nested objects after: the Ruby gem reads the first element of each name.');

export const gatewayOptionSchema = z.object({
  gateway_type: z.string(),
  name: z.string(),
  auth_modes: z.array(z.unknown()),
  characteristics: z.record(z.string(), z.boolean()),
  payment_methods: z.array(z.string()),
  gateway_specific_fields: z.array(z.string()),
  supported_countries: z.string(),
  supported_cardtypes: z.string().optional(),
  regions: z.string(),
  homepage: nullableText.optional(),
  company_name: nullableText.optional(),
});

export const receiverOptionSchema = z.object({
  name: z.string(),
  receiver_type: z.string(),
  hostnames: nullableText,
  company_name: nullableText,
  protocol: z.enum(['http', 'sftp']),
  supports_deliver: z.boolean(),
  supports_export: z.boolean(),
  test: z.boolean().describe('Accepts only test payment methods, in any environment'),
});

export const certificateSchema = z.object({
  token: z.string(),
  level: z.string().optional(),
  algorithm: nullableText,
  cn: nullableText,
  o: nullableText,
  ou: nullableText,
  c: nullableText,
  st: nullableText,
  l: nullableText,
  email_address: nullableText,
  public_key: z.string(),
  public_key_hash: z.string(),
  google_pay_public_key: z.string().nullable().describe('P-256 keys: base64 of the uncompressed point, as the Google Pay console asks for it (docs/wallets.md); null otherwise'),
  csr: nullableText,
  pem: nullableText,
  created_at: timestamp,
  updated_at: timestamp,
});

export const environmentSchema = z.object({
  key: z.string(),
  name: nullableText,
  production: z.boolean().optional(),
  allowed_origins: z.array(z.string()).describe('Origins the card form may be embedded in and tokenize from; empty: any').optional(),
  enhanced_iframe_security: z.boolean().describe('The card form must be signed (nonce, timestamp, certificate token)').optional(),
  google_pay_merchant_id: z.string().nullable().describe("Google Pay's merchant id: tokens must be signed for merchant:<id> (docs/wallets.md)").optional(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const auditEventSchema = z.object({
  token: z.string(),
  actor_type: z.enum(['user', 'access_secret', 'operator']),
  actor: z.string(),
  action: z.string(),
  object_type: z.string(),
  object_id: z.string().nullable(),
  environment_key: z.string().nullable(),
  address: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
  created_at: timestamp,
  cursor: z.string().describe('Pass as `before` for the next page'),
});

export const cardAccessSchema = z.object({
  operation: z.string().describe('purchase, authorize, verify, store, general_credit, capture, void, credit, complete, deliver or export'),
  object_type: z.string(),
  object_id: z.string().nullable().describe('The transaction the card data was opened for'),
  actor_type: z.enum(['access_secret', 'user', 'system']),
  actor: z.string().describe("The access secret's key, the portal user's email, or coffer"),
  request_id: z.string().nullable(),
  created_at: timestamp,
  cursor: z.string().describe('Pass as `before` for the next page'),
});

export const accessSecretSchema = z.object({
  key: z.string(),
  name: nullableText,
  role: z.string(),
  environment_keys: z.array(z.string()).nullable().describe('null: every environment of the organization'),
  secret: z.string().optional().describe('Only in the response that created it'),
  created_at: timestamp,
  updated_at: timestamp,
});

export const healthSchema = z.object({ status: z.string(), store: z.string().optional(), redis: z.string().optional() });

/** One change of an API object (Spreedly's event fields; docs/events.md). */
export const eventSchema = z.object({
  id: z.string(),
  request_id: z.string().nullable().describe("The X-Request-Id of the request that made the change; null for the sweep and the CLI"),
  event_type: z.string(),
  object_type: z.string(),
  object_key: z.string(),
  created_at: timestamp,
});

/** The environment's callback subscription (request and answer). */
export const callbackSubscriptionSchema = z.object({
  url: z.string().nullable().describe('http(s) URL the subscribed events are POSTed to; empty or null: none'),
  format: z.enum(['xml', 'json']).optional().describe('xml (default) or json'),
  event_types: z.array(z.string()).optional().describe('Event types to send; empty: every type. XML and forms: a space- or comma-separated list'),
});

/** One callback's delivery log (never the body). */
export const deliveryLogSchema = z.object({
  token: z.string(),
  kind: z.enum(['event', 'transaction']),
  url: z.string(),
  format: z.enum(['xml', 'json']),
  state: z.enum(['queued', 'delivered', 'abandoned']),
  attempts_count: z.number().int(),
  next_attempt_at: timestamp.nullable(),
  give_up_at: timestamp,
  attempts: z.array(z.object({ attempt: z.number().int(), status: z.number().int().nullable(), latency_ms: z.number().int(), error: z.string().nullable(), created_at: timestamp })),
  created_at: timestamp,
  updated_at: timestamp,
});

/** An import job (docs/portability.md): progress counts, refused rows and new tokens; never a value of the file. */
export const paymentMethodImportSchema = z.object({
  token: z.string(),
  state: z.enum(['running', 'succeeded', 'failed']),
  format: z.enum(['jsonl', 'csv']).nullable(),
  encrypted: z.boolean(),
  rows: z.number().int().describe('Rows read so far, numbered from 1'),
  imported: z.number().int(),
  skipped: z.number().int().describe('The same token already held the same payment method'),
  rejected: z.number().int(),
  rejections: z.array(z.object({ row: z.number().int(), reason: z.string(), field: nullableText })).describe('The first 10,000 refused rows'),
  remapped: z.array(z.object({ row: z.number().int(), old_token: nullableText, new_token: z.string() })).describe('Rows whose token did not fit, and the token they got'),
  truncated: z.boolean().describe('The lists were cut at 10,000 entries (the counts are whole)'),
  error: nullableText.describe('Why the file as a whole was refused'),
  created_at: timestamp,
  updated_at: timestamp,
});

/** An environment's OpenPGP import key, public half. */
export const importKeySchema = z.object({ environment_key: z.string(), fingerprint: z.string(), public_key: z.string().describe('Armored OpenPGP public key') });

/** Who took a step of an export: an access secret (its key) or a portal user (their email). */
const exportActor = z.object({ type: z.enum(['access_secret', 'user']), id: z.string() }).nullable();

/** An export under dual control (docs/portability.md, "Exporting"); never a card value. */
export const paymentMethodExportSchema = z.object({
  token: z.string(),
  state: z.enum(['pending', 'approved', 'downloading', 'downloaded', 'failed', 'cancelled', 'rejected', 'expired']),
  storage_state: z.array(z.enum(['retained', 'cached'])).describe('The storage states exported (empty: retained and cached)'),
  created_from: nullableText,
  created_to: nullableText,
  metadata: z.record(z.string(), z.string()).describe('Metadata every exported method matches'),
  recipient_fingerprint: z.string().describe("The recipient key's fingerprint: check it with the recipient before approving"),
  recipient_user_ids: z.array(z.string()),
  recipient_public_key: z.string().describe('Armored OpenPGP public key the file is encrypted to'),
  requested_by: exportActor,
  approved_by: exportActor,
  downloaded_by: exportActor,
  closed_by: exportActor.describe('Who cancelled (the requester) or rejected (another admin) it while pending'),
  payment_methods: z.number().int().nullable().describe('How many payment methods the file held (once downloaded)'),
  error: nullableText,
  expires_at: timestamp.describe('The approval deadline while pending; the download deadline once approved'),
  created_at: timestamp,
  approved_at: timestamp.nullable(),
  downloaded_at: timestamp.nullable(),
  closed_at: timestamp.nullable().describe('When it was cancelled or rejected'),
  updated_at: timestamp,
});
