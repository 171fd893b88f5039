/**
 * The GraphQL documents Coffer sends to Braintree (schema: github.com/braintree/graphql-api,
 * schema.graphql). Each asks only for the fields the mapping reads; Braintree answers with exactly
 * what was asked, so a field added here must be read in braintree-mapping.ts and vice versa.
 */

/** The authorization result of a status event: the processor's code and its AVS/CVV answers. */
const PROCESSOR_RESPONSE = 'processorResponse { legacyCode message avsPostalCodeResponse avsStreetAddressResponse cvvResponse authorizationId }';

/**
 * A transaction with the events that carry why it ended where it did. `statusHistory` comes newest
 * first; `processorResponse` on Transaction itself is deprecated in favour of these events.
 */
const TRANSACTION_FIELDS = [
  'id legacyId status amount { value currencyCode }',
  'statusHistory { status',
  `... on AuthorizedEvent { ${PROCESSOR_RESPONSE} }`,
  `... on ProcessorDeclinedEvent { declineType ${PROCESSOR_RESPONSE} }`,
  `... on GatewayRejectedEvent { gatewayRejectionReason ${PROCESSOR_RESPONSE} }`,
  `... on FailedEvent { ${PROCESSOR_RESPONSE} }`,
  '}',
].join(' ');

const VERIFICATION_FIELDS = `id legacyId status gatewayRejectionReason processorResponse { legacyCode message avsPostalCodeResponse avsStreetAddressResponse cvvResponse }`;

export const TOKENIZE_CREDIT_CARD = 'mutation TokenizeCreditCard($input: TokenizeCreditCardInput!) { tokenizeCreditCard(input: $input) { paymentMethod { id usage } } }';

export const TOKENIZE_NETWORK_TOKEN = 'mutation TokenizeNetworkToken($input: TokenizeNetworkTokenInput!) { tokenizeNetworkToken(input: $input) { paymentMethod { id usage } } }';

export const CHARGE_PAYMENT_METHOD = `mutation ChargePaymentMethod($input: ChargePaymentMethodInput!) { chargePaymentMethod(input: $input) { transaction { ${TRANSACTION_FIELDS} } } }`;

export const AUTHORIZE_PAYMENT_METHOD = `mutation AuthorizePaymentMethod($input: AuthorizePaymentMethodInput!) { authorizePaymentMethod(input: $input) { transaction { ${TRANSACTION_FIELDS} } } }`;

export const CAPTURE_TRANSACTION = `mutation CaptureTransaction($input: CaptureTransactionInput!) { captureTransaction(input: $input) { transaction { ${TRANSACTION_FIELDS} } } }`;

export const REFUND_TRANSACTION = 'mutation RefundTransaction($input: RefundTransactionInput!) { refundTransaction(input: $input) { refund { id legacyId status amount { value currencyCode } } } }';

export const REVERSE_TRANSACTION =
  'mutation ReverseTransaction($input: ReverseTransactionInput!) { reverseTransaction(input: $input) { reversal { __typename ... on Transaction { id legacyId status } ... on Refund { id legacyId status } } } }';

export const VERIFY_PAYMENT_METHOD = `mutation VerifyPaymentMethod($input: VerifyPaymentMethodInput!) { verifyPaymentMethod(input: $input) { verification { ${VERIFICATION_FIELDS} } } }`;

export const VAULT_PAYMENT_METHOD = `mutation VaultPaymentMethod($input: VaultPaymentMethodInput!) { vaultPaymentMethod(input: $input) { paymentMethod { id legacyId usage } verification { ${VERIFICATION_FIELDS} } } }`;

export const DELETE_PAYMENT_METHOD_FROM_VAULT = 'mutation DeletePaymentMethodFromVault($input: DeletePaymentMethodFromVaultInput!) { deletePaymentMethodFromVault(input: $input) { clientMutationId } }';
