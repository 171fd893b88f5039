import { z } from 'zod';
import { blankResponse, cryptogramFor, decimalAmount, defineGateway, twoDigitEci, WALLET_KINDS, walletOf, type WalletPaymentMethod, GatewayFaultError, GatewayInputError, readAnswer, type GatewayCall, type GatewayRequest, type GatewayResponse } from './kit/index.js';
import { braintreeCall, merchantAccountId, referenceId, scrubBraintree } from './braintree/braintree-api.js';
import { errorsResponse, readTransaction, readVerification, SUCCESS_STATUSES, transactionResponse, verificationResponse } from './braintree/braintree-mapping.js';
import * as Q from './braintree/braintree-queries.js';

/**
 * Currencies Braintree takes without fractions where ISO 4217 has them (ActiveMerchant's
 * currencies_without_fractions for Braintree): amounts must be whole units there.
 */
const EXPONENT_OVERRIDES = { LAK: 0 } as const;

const SANDBOX = 'https://payments.sandbox.braintree-api.com';
const PRODUCTION = 'https://payments.braintree-api.com';

const paymentMethodSchema = z.object({ id: z.string().min(1) });

/** Braintree's amount format: a decimal string in the currency's unit ("10.00", "1000", "1.234"). */
function amountOf(request: GatewayRequest): string {
  if (request.amount === null || request.currencyCode === null) throw new GatewayInputError('An amount and a currency are required.', 'invalid_amount');
  return decimalAmount(request.amount, request.currencyCode, EXPONENT_OVERRIDES);
}

/** The billing address of a card in Braintree's AddressInput (US states and ZIP in the same fields). */
function billingAddress(address: Record<string, string | null>): Record<string, string> | undefined {
  const fields: Record<string, string | null | undefined> = {
    streetAddress: address.address1,
    extendedAddress: address.address2,
    locality: address.city,
    region: address.state,
    postalCode: address.zip,
    countryCode: address.country?.toUpperCase(),
  };
  const present = Object.entries(fields).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '');
  return present.length === 0 ? undefined : Object.fromEntries(present);
}

/**
 * The Braintree payment method id to charge: a vaulted card (`third_party_token` from `store`) as
 * is, a card first tokenized into a single-use payment method. A refused tokenization is the answer.
 */
async function paymentMethodId(call: GatewayCall): Promise<{ id: string } | { declined: GatewayResponse }> {
  const method = call.request.paymentMethod;
  if (method?.type === 'third_party_token') return { id: method.token };
  const wallet = walletOf(method);
  if (wallet !== null) return walletPaymentMethodId(call, wallet);
  if (method?.type !== 'credit_card') throw new GatewayInputError('Braintree takes credit cards and Braintree payment method ids only.', 'unsupported_feature');
  const name = [method.firstName, method.lastName].filter((part) => part !== null && part !== '').join(' ');
  const reply = await braintreeCall(call, Q.TOKENIZE_CREDIT_CARD, 'tokenizeCreditCard', {
    creditCard: {
      number: method.number.reveal(),
      expirationMonth: method.month === null ? undefined : String(method.month).padStart(2, '0'),
      expirationYear: method.year === null ? undefined : String(method.year),
      cvv: method.verificationValue?.reveal(),
      cardholderName: name === '' ? undefined : name,
      billingAddress: billingAddress(method.address),
    },
  });
  if (reply.payload === null) return { declined: errorsResponse(reply.errors) };
  return { id: readAnswer('Braintree', paymentMethodSchema, reply.payload.paymentMethod).id };
}

/** Braintree's `NetworkTokenOrigin` of the wallets. */
const TOKEN_ORIGIN = { apple_pay: 'APPLE_PAY', google_pay: 'GOOGLE_PAY' } as const;

/**
 * A decrypted wallet token (docs/wallets.md) made a single-use Braintree payment method: a DPAN
 * with its cryptogram through `tokenizeNetworkToken` (schema.graphql, NetworkTokenInput: number,
 * expiry, cryptogram, eCommerceIndicator, originDetails.origin APPLE_PAY / GOOGLE_PAY). Braintree
 * requires the cryptogram there, so a merchant-initiated charge on a stored DPAN (no cryptogram)
 * and a Google Pay PAN_ONLY card go through `tokenizeCreditCard` as card numbers.
 */
async function walletPaymentMethodId(call: GatewayCall, wallet: WalletPaymentMethod): Promise<{ id: string } | { declined: GatewayResponse }> {
  const month = wallet.month === null ? undefined : String(wallet.month).padStart(2, '0');
  const year = wallet.year === null ? undefined : String(wallet.year);
  const name = [wallet.firstName, wallet.lastName].filter((part) => part !== null && part !== '').join(' ');
  const cryptogram = wallet.networkToken ? cryptogramFor(call.request, wallet) : null;
  const reply =
    cryptogram === null
      ? await braintreeCall(call, Q.TOKENIZE_CREDIT_CARD, 'tokenizeCreditCard', {
          creditCard: { number: wallet.number.reveal(), expirationMonth: month, expirationYear: year, cardholderName: name === '' ? undefined : name },
        })
      : await braintreeCall(call, Q.TOKENIZE_NETWORK_TOKEN, 'tokenizeNetworkToken', {
          networkToken: {
            number: wallet.number.reveal(),
            expirationMonth: month,
            expirationYear: year,
            cryptogram,
            eCommerceIndicator: twoDigitEci(wallet.eci) ?? undefined,
            originDetails: { origin: TOKEN_ORIGIN[wallet.type] },
          },
        });
  if (reply.payload === null) return { declined: errorsResponse(reply.errors) };
  return { id: readAnswer('Braintree', paymentMethodSchema, reply.payload.paymentMethod).id };
}

/** Purchase (chargePaymentMethod) or authorize (authorizePaymentMethod). */
async function transact(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const purchase = request.operation === 'purchase';
  const amount = amountOf(request);
  const method = await paymentMethodId(call);
  if ('declined' in method) return method.declined;
  const transaction = {
    amount,
    merchantAccountId: merchantAccountId(request),
    orderId: request.orderId ?? undefined,
    customerDetails: request.email === null ? undefined : { email: request.email },
  };
  const reply = purchase
    ? await braintreeCall(call, Q.CHARGE_PAYMENT_METHOD, 'chargePaymentMethod', { paymentMethodId: method.id, transaction })
    : await braintreeCall(call, Q.AUTHORIZE_PAYMENT_METHOD, 'authorizePaymentMethod', { paymentMethodId: method.id, transaction });
  if (reply.payload === null) return errorsResponse(reply.errors);
  return transactionResponse(readTransaction(reply.payload.transaction), purchase ? SUCCESS_STATUSES.purchase : SUCCESS_STATUSES.authorize, purchase ? 'Transaction approved' : 'Transaction authorized');
}

/**
 * A card vaulted at Braintree (vaultPaymentMethod verifies it first, with the call's merchant
 * account). Answers the vaulted payment method and the verification.
 */
async function vault(call: GatewayCall): Promise<{ response: GatewayResponse; vaultedId: string | null }> {
  const method = await paymentMethodId(call);
  if ('declined' in method) return { response: method.declined, vaultedId: null };
  const account = merchantAccountId(call.request);
  const reply = await braintreeCall(call, Q.VAULT_PAYMENT_METHOD, 'vaultPaymentMethod', {
    paymentMethodId: method.id,
    verification: account === undefined ? undefined : { merchantAccountId: account },
  });
  if (reply.payload === null) return { response: errorsResponse(reply.errors), vaultedId: null };
  const vaulted = reply.payload.paymentMethod === null || reply.payload.paymentMethod === undefined ? null : readAnswer('Braintree', paymentMethodSchema, reply.payload.paymentMethod).id;
  const verification = reply.payload.verification === null || reply.payload.verification === undefined ? null : readVerification(reply.payload.verification);
  if (verification !== null && verification.status !== 'VERIFIED') return { response: verificationResponse(verification, 'Card verified'), vaultedId: vaulted };
  if (vaulted === null) throw new GatewayFaultError('Braintree returned an unexpected response.', 'vaultPaymentMethod.paymentMethod missing');
  const response = verification === null ? { ...blankResponse(true, 'Card stored'), gatewayTransactionId: vaulted } : verificationResponse(verification, 'Card stored');
  return { response: { ...response, thirdPartyToken: vaulted }, vaultedId: vaulted };
}

/**
 * Verify. A vaulted card: verifyPaymentMethod. A card: tokenized and vaulted (the GraphQL API
 * verifies multi-use payment methods only; vaulting runs the verification), then deleted from the
 * vault again so a verify stores nothing; a failed delete is noted, the verification stands.
 */
async function verify(call: GatewayCall): Promise<GatewayResponse> {
  const method = call.request.paymentMethod;
  if (method?.type === 'third_party_token') {
    const reply = await braintreeCall(call, Q.VERIFY_PAYMENT_METHOD, 'verifyPaymentMethod', { paymentMethodId: method.token, merchantAccountId: merchantAccountId(call.request) });
    if (reply.payload === null) return errorsResponse(reply.errors);
    return verificationResponse(readVerification(reply.payload.verification), 'Card verified');
  }
  const { response, vaultedId } = await vault(call);
  if (vaultedId !== null) {
    try {
      const removed = await braintreeCall(call, Q.DELETE_PAYMENT_METHOD_FROM_VAULT, 'deletePaymentMethodFromVault', { paymentMethodId: vaultedId });
      if (removed.payload === null) call.http.note('[!!] the card vaulted for verification could not be deleted again');
    } catch (error) {
      call.http.note(`[!!] the card vaulted for verification could not be deleted again (${error instanceof Error ? error.name : 'error'})`);
    }
  }
  return { ...response, thirdPartyToken: null, message: response.success ? 'Card verified' : response.message };
}

/**
 * Braintree through its GraphQL API (`POST /graphql`, `Braintree-Version: 2019-01-01`, Basic
 * auth with the public and private key). Cards are tokenized into a single-use payment method,
 * then charged (purchase) or authorized; capture (full or partial, once), credit (refund, full or
 * partial), void (reverseTransaction), verify and store (vaultPaymentMethod; the vaulted id is the
 * `third_party_token` later purchases use). Braintree has no idempotency key: Coffer's transaction
 * token is sent as `clientMutationId` for reconciliation, and Coffer never retries a call.
 */
export const braintreeGateway = defineGateway({
  gatewayType: 'braintree',
  name: 'Braintree',
  test: false,
  authModes: [
    {
      authModeType: 'blue',
      name: 'API keys',
      credentials: [
        { name: 'merchant_id', label: 'Merchant ID', safe: true },
        { name: 'public_key', label: 'Public Key', safe: true },
        { name: 'private_key', label: 'Private Key', safe: false },
      ],
    },
    {
      // The same keys plus the optional fields Spreedly's blue mode takes: a merchant account
      // (one currency each) and `mode` itself. A gateway created with the first mode's fields is complete.
      authModeType: 'blue_merchant_account',
      name: 'API keys with merchant account',
      credentials: [
        { name: 'merchant_id', label: 'Merchant ID', safe: true },
        { name: 'public_key', label: 'Public Key', safe: true },
        { name: 'private_key', label: 'Private Key', safe: false },
        { name: 'merchant_account_id', label: 'Merchant Account ID', safe: true },
        { name: 'mode', label: 'Mode (blue)', safe: true },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token', ...WALLET_KINDS],
  gatewaySpecificFields: ['merchant_account_id'],
  supportedCountries: ['US', 'CA', 'AD', 'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'GI', 'DE', 'GR', 'GG', 'HU', 'IS', 'IM', 'IE', 'IT', 'JE', 'LV', 'LI', 'LT', 'LU', 'MT', 'MC', 'NL', 'NO', 'PL', 'PT', 'RO', 'SM', 'SK', 'SI', 'ES', 'SE', 'CH', 'TR', 'GB', 'SG', 'HK', 'MY', 'AU', 'NZ'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'jcb', 'diners_club', 'maestro'],
  regions: ['asia_pacific', 'europe', 'north_america'],
  homepage: 'https://www.braintreepayments.com/',
  displayApiUrl: 'https://payments.braintree-api.com/graphql',
  companyName: 'Braintree',
  // captureTransaction submits the authorization for settlement; a lower amount releases the rest.
  capturesAreFinal: true,
  endpoint: (request) => (request.testMode ? SANDBOX : PRODUCTION),
  scrub: scrubBraintree,
  features: ['supports_purchase_via_preauthorization'],
  operations: {
    purchase: transact,
    authorize: transact,
    capture: async (call) => {
      const reply = await braintreeCall(call, Q.CAPTURE_TRANSACTION, 'captureTransaction', { transactionId: referenceId(call.request), transaction: { amount: amountOf(call.request) } });
      if (reply.payload === null) return errorsResponse(reply.errors);
      return transactionResponse(readTransaction(reply.payload.transaction), SUCCESS_STATUSES.capture, 'Transaction captured');
    },
    credit: async (call) => {
      const { request } = call;
      const reply = await braintreeCall(call, Q.REFUND_TRANSACTION, 'refundTransaction', {
        transactionId: referenceId(request),
        refund: { amount: amountOf(request), orderId: request.orderId ?? undefined },
      });
      if (reply.payload === null) return errorsResponse(reply.errors);
      return transactionResponse(readTransaction({ ...(reply.payload.refund as object), statusHistory: null }), SUCCESS_STATUSES.refund, 'Transaction refunded');
    },
    // A reversal voids an unsettled transaction; a settled one is refunded in full instead.
    void: async (call) => {
      const reply = await braintreeCall(call, Q.REVERSE_TRANSACTION, 'reverseTransaction', { transactionId: referenceId(call.request) });
      if (reply.payload === null) return errorsResponse(reply.errors);
      const reversal = readAnswer('Braintree', z.object({ __typename: z.enum(['Transaction', 'Refund']) }), reply.payload.reversal);
      const refunded = reversal.__typename === 'Refund';
      const response = transactionResponse(readTransaction(reply.payload.reversal), refunded ? SUCCESS_STATUSES.refund : SUCCESS_STATUSES.void, refunded ? 'Transaction reversed by a full refund' : 'Transaction voided');
      return { ...response, specificResponseFields: { braintree: { ...(response.specificResponseFields.braintree as object), reversal: reversal.__typename } } };
    },
    verify,
    store: async (call) => (await vault(call)).response,
  },
});
