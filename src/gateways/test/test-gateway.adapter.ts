import { randomInt } from 'node:crypto';
import { CLOSED_ACCOUNT_CARD, GATEWAY_ERROR_CARD, STORE_FAILS_CARD, TEST_CARD_OUTCOMES, THREE_DS_CARDS, TIMEOUT_CARD } from '../../vault/test-cards.js';
import {
  blankResponse,
  GatewayFaultError,
  GatewayResultUnknownError,
  type GatewayAdapter,
  type GatewayOperation,
  type GatewayRequest,
  type GatewayResponse,
  type TranscriptEntry,
} from '../adapter.js';

/** Amounts that trigger Coffer's failure paths on the test gateway (API.md §6). */
export const TEST_AMOUNTS = { referenceFails: 44, timeout: 4080, gatewayError: 5070, threeDsPending: 3003 } as const;

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

function succeeded(operation: GatewayOperation): GatewayResponse {
  return { ...blankResponse(true, `Successful ${VERB[operation]}`), gatewayTransactionId: String(randomInt(1, 100_000)) };
}

function declined(operation: GatewayOperation, message = `Unable to process the ${VERB[operation]} transaction.`): GatewayResponse {
  return { ...blankResponse(false, message), errorCode: 'card_declined' };
}

/**
 * The built-in `test` gateway: answers in process, no network, following the test data of
 * wire-reference §5 and Coffer's additions in API.md §6 (closed account, timeout, gateway error).
 */
export class TestGatewayAdapter implements GatewayAdapter {
  async execute(request: GatewayRequest, transcript: TranscriptEntry[]): Promise<GatewayResponse> {
    transcript.push({ text: `[test gateway] ${request.operation} of ${request.amount ?? '-'} ${request.currencyCode ?? ''}`.trimEnd() });
    const response = this.decide(request);
    transcript.push({ text: `[test gateway] ${request.operation} → ${response.success ? 'success' : 'failure'}: ${response.message}` });
    return response;
  }

  private decide(request: GatewayRequest): GatewayResponse {
    const { operation, amount } = request;
    const method = request.paymentMethod;
    const number = method?.type === 'credit_card' ? method.number.reveal() : null;
    if (number === TIMEOUT_CARD || amount === TEST_AMOUNTS.timeout) {
      throw new GatewayResultUnknownError('The test gateway timed out.', 'simulated timeout');
    }
    if (number === GATEWAY_ERROR_CARD || amount === TEST_AMOUNTS.gatewayError) {
      throw new GatewayFaultError('The test gateway returned an error.', 'simulated gateway error');
    }
    switch (operation) {
      case 'capture':
      case 'credit':
        return amount === TEST_AMOUNTS.referenceFails ? declined(operation) : succeeded(operation);
      case 'void':
        return succeeded(operation);
      case 'complete':
        // The cardholder finished the 3-D Secure challenge: the pending transaction succeeds.
        return { ...succeeded(operation), gatewayTransactionId: request.reference?.gatewayTransactionId ?? null };
      case 'store':
        if (number === STORE_FAILS_CARD) return declined(operation, 'Unable to store card');
        // Spreedly's test vault echoes the PAN in the token; Coffer never puts a PAN in a response.
        return { ...succeeded(operation), thirdPartyToken: `test_vault:${randomInt(1, 2 ** 47).toString(36)}` };
      default:
        break;
    }
    if (number === CLOSED_ACCOUNT_CARD) return { ...declined(operation, 'Account closed'), errorCode: 'account_closed', accountClosed: true };
    if (number !== null && TEST_CARD_OUTCOMES.get(number) === 'decline') return declined(operation);
    if (number !== null && THREE_DS_CARDS.has(number) && request.attempt3dsecure && amount === TEST_AMOUNTS.threeDsPending) {
      return { ...succeeded(operation), success: false, pending: true, message: 'Pending' };
    }
    return succeeded(operation);
  }
}
