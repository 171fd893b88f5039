import { randomInt } from 'node:crypto';
import { CLOSED_ACCOUNT_CARD, GATEWAY_ERROR_CARD, STORE_FAILS_CARD, TEST_CARD_OUTCOMES, THREE_DS_CARDS, TIMEOUT_CARD } from '../domain/test-cards.js';
import { continueFlow, startOffsite, startThreeDs } from './test/secure-flows.js';
import { blankResponse, defineGateway, GatewayFaultError, GatewayResultUnknownError, type GatewayCall, type GatewayOperation, type GatewayResponse, type InquiryAnswer } from './kit/index.js';

/** Amounts that trigger Coffer's failure paths on the test gateway (API.md §6). */
export const TEST_AMOUNTS = { referenceFails: 44, timeout: 4080, gatewayError: 5070 } as const;

const VERB: Record<GatewayOperation, string> = {
  purchase: 'purchase',
  authorize: 'authorize',
  capture: 'capture',
  void: 'void',
  credit: 'credit',
  verify: 'verify',
  store: 'store',
  general_credit: 'general credit',
  complete: 'complete',
};

const ALL_CARD_TYPES = ['visa', 'master', 'american_express', 'discover', 'diners_club', 'jcb', 'maestro', 'unionpay'];

function succeeded(operation: GatewayOperation): GatewayResponse {
  return { ...blankResponse(true, `Successful ${VERB[operation]}`), gatewayTransactionId: String(randomInt(1, 100_000)) };
}

function declined(operation: GatewayOperation, message = `Unable to process the ${VERB[operation]} transaction.`): GatewayResponse {
  return { ...blankResponse(false, message), errorCode: 'card_declined' };
}

/** Writes what happened to the transcript on the way out (the test gateway has no wire to record). */
function answered(call: GatewayCall, decide: () => GatewayResponse): Promise<GatewayResponse> {
  const { request, http } = call;
  http.note(`[test gateway] ${request.operation} of ${request.amount ?? '-'} ${request.currencyCode ?? ''}`.trimEnd());
  const response = decide();
  http.note(`[test gateway] ${request.operation} → ${response.success ? 'success' : 'failure'}: ${response.message}`);
  return Promise.resolve(response);
}

/** The card number a test outcome is decided by: a card's, or a wallet token's DPAN (or PAN_ONLY card number). */
function cardNumber(call: GatewayCall): string | null {
  const method = call.request.paymentMethod;
  return method?.type === 'credit_card' || method?.type === 'apple_pay' || method?.type === 'google_pay' ? method.number.reveal() : null;
}

/**
 * A wallet method as a gateway would take it (docs/wallets.md): a network token needs its
 * cryptogram on a cardholder-initiated charge; a merchant-initiated one (stored credentials) goes
 * without. What was sent is noted in the transcript, the cryptogram only as present or absent.
 */
function walletRefusal(call: GatewayCall): GatewayResponse | null {
  const method = call.request.paymentMethod;
  if (method?.type !== 'apple_pay' && method?.type !== 'google_pay') return null;
  const cryptogram = method.cryptogram === null ? 'none' : 'present';
  call.http.note(`[test gateway] ${method.type} ${method.networkToken ? 'network token' : 'card (PAN_ONLY)'}, eci ${method.eci ?? 'none'}, cryptogram ${cryptogram}`);
  const merchantInitiated = call.request.storedCredential?.initiator === 'merchant';
  if (method.networkToken && method.cryptogram === null && !merchantInitiated) {
    return { ...declined(call.request.operation, 'The network token has no cryptogram: it was used already.'), errorCode: 'processing_error' };
  }
  return null;
}

/**
 * Reconciliation, simulated (docs/events.md): a call that timed out because of amount 4080 had reached
 * the gateway and went through; one that timed out because of the card 4000000000000408 never
 * arrived. Any other transaction is unknown to the test gateway.
 */
function inquireSimulated(call: GatewayCall): Promise<InquiryAnswer> {
  const { request, http } = call;
  http.note(`[test gateway] inquiry about ${request.transactionToken}`);
  if (request.amount === TEST_AMOUNTS.timeout) return Promise.resolve({ kind: 'found', response: succeeded(request.operation) });
  return Promise.resolve({ kind: 'not_found' });
}

/** Timeouts and gateway errors on demand (API.md §6), for every operation. */
function simulatedFailure(call: GatewayCall): void {
  const number = cardNumber(call);
  if (number === TIMEOUT_CARD || call.request.amount === TEST_AMOUNTS.timeout) throw new GatewayResultUnknownError('The test gateway timed out.', 'simulated timeout');
  if (number === GATEWAY_ERROR_CARD || call.request.amount === TEST_AMOUNTS.gatewayError) throw new GatewayFaultError('The test gateway returned an error.', 'simulated gateway error');
}

/**
 * The network transaction id the test gateway returns on a successful card operation:
 * deterministic, `test_nti_` and the transaction's token, so a test can predict it.
 */
export function testNetworkTransactionId(transactionToken: string): string {
  return `test_nti_${transactionToken}`;
}

/** Notes the stored-credential data the gateway was sent (the transcript is how a test sees it). */
function noteStoredCredential(call: GatewayCall): void {
  const stored = call.request.storedCredential;
  if (stored === null || stored === undefined) return;
  call.http.note(`[test gateway] stored credential: ${stored.initiator} ${stored.reasonType}, network transaction id ${stored.networkTransactionId ?? 'none'}`);
}

/** Purchase, authorize, verify and general credit: the card decides (wire-reference §5, API.md §6). */
function cardOperation(call: GatewayCall): Promise<GatewayResponse> {
  return answered(call, () => {
    simulatedFailure(call);
    noteStoredCredential(call);
    const { operation, attempt3dsecure } = call.request;
    const secureStep = operation === 'purchase' || operation === 'authorize';
    if (call.request.paymentMethod?.type === 'sprel' && secureStep) {
      if ((call.request.redirectUrl ?? null) === null) return declined(operation, 'Offsite payments need a redirect_url.');
      return startOffsite(call.request, String(randomInt(1, 100_000)));
    }
    const walletRefused = walletRefusal(call);
    if (walletRefused !== null) return walletRefused;
    const number = cardNumber(call);
    if (number === CLOSED_ACCOUNT_CARD) return { ...declined(operation, 'Account closed'), errorCode: 'account_closed', accountClosed: true };
    if (number !== null && TEST_CARD_OUTCOMES.get(number) === 'decline') return declined(operation);
    if (number !== null && THREE_DS_CARDS.has(number) && attempt3dsecure && secureStep) {
      const started = startThreeDs(call.request, String(randomInt(1, 100_000)));
      if (started !== null) return { ...started, networkTransactionId: started.success ? testNetworkTransactionId(call.request.transactionToken) : null };
    }
    return { ...succeeded(operation), networkTransactionId: testNetworkTransactionId(call.request.transactionToken) };
  });
}

/** Capture and credit: an amount of 44 fails (wire-reference §5). */
function referenceOperation(call: GatewayCall): Promise<GatewayResponse> {
  return answered(call, () => {
    simulatedFailure(call);
    return call.request.amount === TEST_AMOUNTS.referenceFails ? declined(call.request.operation) : succeeded(call.request.operation);
  });
}

/**
 * The built-in `test` gateway: answers in process, no network, following the test data of
 * wire-reference §5 and Coffer's additions in API.md §6 (closed account, timeout, gateway error).
 * It advertises what it implements: 3-D Secure 2 (test/secure-flows.ts) and stored credentials; not
 * `remove` or `adjust`; offsite (sprel) works but is not advertised until `sprel` methods can be
 * created through the API; only the payment method kinds `POST /v1/payment_methods` accepts.
 */
export const testGateway = defineGateway({
  gatewayType: 'test',
  name: 'Spreedly Test',
  test: true,
  authModes: [{ authModeType: 'default', name: 'Default', credentials: [] }],
  paymentMethods: ['credit_card', 'third_party_token', 'bank_account', 'apple_pay', 'google_pay'],
  gatewaySpecificFields: [],
  supportedCountries: [],
  supportedCardtypes: ALL_CARD_TYPES,
  regions: [],
  homepage: '',
  displayApiUrl: '',
  companyName: 'Coffer',
  capturesAreFinal: false,
  endpoint: null,
  features: [
    'supports_3dsecure_purchase',
    'supports_3dsecure_authorize',
    'supports_3dsecure_2_purchase',
    'supports_3dsecure_2_authorize',
    'supports_purchase_via_preauthorization',
    'supports_populate_mit_fields',
  ],
  inquire: inquireSimulated,
  operations: {
    purchase: cardOperation,
    authorize: cardOperation,
    verify: cardOperation,
    general_credit: cardOperation,
    capture: referenceOperation,
    credit: referenceOperation,
    void: (call) =>
      answered(call, () => {
        simulatedFailure(call);
        return succeeded('void');
      }),
    store: (call) =>
      answered(call, () => {
        simulatedFailure(call);
        if (cardNumber(call) === STORE_FAILS_CARD) return declined('store', 'Unable to store card');
        // Spreedly's test vault echoes the PAN in the token; Coffer never puts a PAN in a response.
        return { ...succeeded('store'), thirdPartyToken: `test_vault:${randomInt(1, 2 ** 47).toString(36)}` };
      }),
    // The cardholder finished the 3-D Secure challenge: the pending transaction succeeds.
    complete: (call) =>
      answered(call, () => {
        simulatedFailure(call);
        const completed = () => ({ ...succeeded('complete'), networkTransactionId: testNetworkTransactionId(call.request.transactionToken) });
        return continueFlow(call.request, completed) ?? { ...completed(), gatewayTransactionId: call.request.reference?.gatewayTransactionId ?? null };
      }),
  },
});
