/**
 * The closed list of API error keys and their HTTP status. Every error the API returns is an
 * `AppError` with one of these keys; `http/errors.ts` renders it in the request's format.
 */
export const ERROR_STATUS = {
  'errors.access_denied': 401,
  'errors.account_inactive': 402,
  'errors.gateway_not_found': 404,
  'errors.payment_method_not_found': 404,
  'errors.transaction_not_found': 404,
  'errors.receiver_not_found': 404,
  'errors.certificate_not_found': 404,
  'errors.environment_not_found': 404,
  'errors.access_secret_not_found': 404,
  'errors.user_not_found': 404,
  'errors.forbidden': 403,
  'errors.event_not_found': 404,
  'errors.workflow_not_found': 404,
  'errors.import_not_found': 404,
  'errors.export_not_found': 404,
  'errors.route_not_found': 404,
  'errors.origin_not_allowed': 403,
  'errors.invalid_signature': 403,
  'errors.nonce_already_used': 403,
  'errors.not_acceptable': 406,
  'errors.idempotency_key_in_use': 409,
  'errors.idempotency_key_not_replayable': 409,
  'errors.payload_too_large': 413,
  'errors.unsupported_media_type': 415,
  'errors.blank': 422,
  'errors.invalid': 422,
  'errors.expired': 422,
  'errors.payment_method_type_required': 422,
  'errors.too_long': 422,
  'errors.inclusion': 422,
  'errors.malformed_request': 422,
  'errors.invalid_gateway_type': 422,
  'errors.invalid_amount': 422,
  'errors.invalid_currency_code': 422,
  'errors.payment_method_or_payment_method_token_required': 422,
  'errors.reference_transaction_not_succeeded': 422,
  'errors.reference_transaction_type_invalid': 422,
  'errors.reference_transaction_already_settled': 422,
  'errors.transaction_not_pending': 422,
  'errors.gateway_does_not_support_ability': 422,
  'errors.idempotency_key_reused': 422,
  'errors.gateway_gateway_type_cannot_be_changed': 422,
  'errors.gateway_redacted': 422,
  'errors.retry_gateway_not_found': 422,
  'errors.retry_gateway_invalid': 422,
  'errors.invalid_receiver_type': 403,
  'errors.receiver_redacted': 422,
  'errors.url_not_allowed': 422,
  'errors.egress_refused': 422,
  'errors.certificate_key_mismatch': 422,
  'errors.certificate_redacted': 422,
  'errors.workflow_required': 422,
  'errors.rate_limited': 429,
  'errors.request_header_fields_too_large': 431,
  'errors.request_timeout': 408,
  'errors.internal': 500,
  'errors.service_unavailable': 503,
  'errors.circuit_breaker_open': 503,
  'errors.gateway_busy': 503,
  // A `shares` node before its custodians unsealed it (docs/key-custody.md).
  'errors.vault_sealed': 503,
  // Wallet tokens (docs/wallets.md, "Errors"): one key per reason a token is refused.
  'errors.wallet_token_malformed': 422,
  'errors.wallet_token_bad_signature': 422,
  'errors.wallet_token_untrusted_chain': 422,
  'errors.wallet_token_expired': 422,
  'errors.wallet_token_unknown_key': 422,
  'errors.wallet_token_decryption_failed': 422,
  'errors.wallet_token_wrong_recipient': 422,
  'errors.wallet_token_replayed': 422,
  'errors.wallet_not_configured': 422,
  'errors.gateway_does_not_support_payment_method': 422,
  // Live migration (docs/portability.md, "Live migration").
  'errors.upstream_not_found': 404,
  'errors.upstream_unavailable': 502,
  'errors.intake_refused': 403,
  'errors.taken': 422,
  // Exports (docs/portability.md, "Exporting").
  'errors.export_expired': 410,
  'errors.export_gone': 410,
  'errors.export_not_approved': 409,
  'errors.export_not_pending': 409,
  'errors.export_closed': 409,
} as const;

export type ErrorKey = keyof typeof ERROR_STATUS;

/** One entry of an error envelope. */
export interface ErrorEntry {
  key: ErrorKey;
  message: string;
  /** The request field at fault, for field errors. */
  attribute?: string;
  /** Extra attributes some errors carry (`gateway_name` on 503, `ability` on 422). */
  extra?: Record<string, string>;
}

/** An API error: one or more entries that share one HTTP status. */
export class AppError extends Error {
  readonly status: number;
  readonly entries: ErrorEntry[];
  /** Response headers the error needs (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  /**
   * @param status overrides the key's usual status where the contract differs by context
   *   (an unknown payment method token is 404 in a path but 422 in a request body).
   */
  constructor(entries: ErrorEntry | ErrorEntry[], headers: Record<string, string> = {}, status?: number) {
    const list = Array.isArray(entries) ? entries : [entries];
    const first = list[0];
    if (first === undefined) throw new Error('AppError needs at least one entry');
    super(first.message);
    this.name = 'AppError';
    this.entries = list;
    this.status = status ?? ERROR_STATUS[first.key];
    this.headers = headers;
  }
}

/** The 401 message of a proven secret whose role does not allow the action (API.md §2). */
export function accessDeniedByRole(role: string): string {
  return `This access secret's role (${role}) does not allow this action.`;
}

/** Message texts that clients compare byte for byte. */
export const MESSAGES = {
  accessDenied:
    'Unable to authenticate using the given environment_key and access_token.  Please check your credentials.',
  // Same status and key as accessDenied (API.md §2), for a caller who proved its secret.
  accessDeniedByScope: 'This access secret is limited to some environments; this action needs one that covers the whole organization.',
  gatewayNotFound: 'Unable to find the specified gateway.',
  paymentMethodNotFound: 'Unable to find the specified payment method.',
  paymentMethodTokenUnknown: 'There is no payment method corresponding to the specified payment method token.',
  paymentMethodRequired: "You must specify a valid 'payment_method' or valid 'payment_method_token' parameter.",
  referenceNotFound: 'Unable to find the specified reference transaction.',
  referenceNotSucceeded: 'The reference transaction did not succeed. Only successful reference transactions are permitted.',
  transactionNotFound: (token: string): string => `Unable to find the transaction ${token}.`,
  paymentMethodTypeRequired: 'You must specify a credit_card, bank_account or third_party_token payment method.',
  environmentNotFound: 'Unable to find the specified environment.',
  accessSecretNotFound: 'Unable to find the specified access secret.',
  eventNotFound: 'Unable to find the specified event.',
  invalidGatewayType: 'The gateway_type parameter is invalid.',
  gatewayTypeCannotBeChanged: 'The gateway_type of a gateway cannot be changed.',
  gatewayRedacted: "Unable to use a gateway because it's been redacted.",
  originNotAllowed: 'This origin is not allowed to tokenize payment methods for the environment.',
  invalidSignature: 'The signature of this tokenization request is missing or invalid.',
  staleTimestamp: 'The timestamp of this tokenization request is too old or in the future.',
  malformedTimestamp: 'The timestamp of this tokenization request must be Unix time in seconds, written as 10 digits.',
  nonceAlreadyUsed: 'The nonce of this tokenization request has already been used.',
  organizationInactive: 'Your organization has been deactivated. Please contact your Coffer operator.',
  testGatewayNeedsTestCard:
    "The test gateway accepts only test payment methods ( https://docs.spreedly.com/test-data). Use a production gateway for real payment methods.",
  productionGatewayNeedsRealCard: 'Production gateways do not accept test payment methods. Use the test gateway for test cards.',
  notActivated: (environmentKey: string): string =>
    `Your environment (${environmentKey}) has not been activated for real transactions with real payment methods. ` +
    "If you're using a Test Gateway you can *ONLY* use Test payment methods - ( https://docs.spreedly.com/test-data). " +
    'All other credit card numbers are considered real credit cards; real credit cards are not allowed when using a Test Gateway.',
} as const;

/** "first_name" → "First name": how Rails humanizes an attribute in a message. */
export function humanize(attribute: string): string {
  const words = attribute.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export const fieldError = {
  blank: (attribute: string): ErrorEntry => ({ key: 'errors.blank', attribute, message: `${humanize(attribute)} can't be blank` }),
  invalid: (attribute: string): ErrorEntry => ({ key: 'errors.invalid', attribute, message: `${humanize(attribute)} is invalid` }),
  tooLong: (attribute: string, max: number): ErrorEntry => ({
    key: 'errors.too_long',
    attribute,
    message: `${humanize(attribute)} is too long (maximum is ${max} characters)`,
  }),
  expired: (attribute: string): ErrorEntry => ({ key: 'errors.expired', attribute, message: `${humanize(attribute)} is expired` }),
  inclusion: (attribute: string): ErrorEntry => ({
    key: 'errors.inclusion',
    attribute,
    message: `${humanize(attribute)} is not included in the list`,
  }),
};
