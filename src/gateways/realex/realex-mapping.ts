import { avsResult, blankResponse, cvvResult, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';
import type { RealexAnswer } from './realex-api.js';

/**
 * Global Payments' answers in Coffer's terms. Sources: Global Payments' "Response codes" (00
 * success; 1xx declines: 101 declined, 102 referral B, 103 referral A / lost or stolen, 107 fraud;
 * 2xx bank errors; 3xx Global Payments errors; 5xx request errors; 666 account deactivated), its
 * AVS and CVN result pages, and ActiveMerchant's Realex adapter.
 */

const RESULT_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '101': 'card_declined',
  '102': 'call_issuer',
  '103': 'pickup_card',
  '107': 'card_declined',
  '666': 'config_error',
};

function standardCode(result: string): StandardErrorCode {
  const byRange: StandardErrorCode = /^1\d\d$/.test(result) ? 'card_declined' : /^6\d\d$/.test(result) ? 'config_error' : 'processing_error';
  return mapErrorCode(RESULT_CODES, [result], byRange);
}

/**
 * Global Payments answers the postcode and the street number separately (M match, N no match,
 * I not checked, U unavailable, P partial); Coffer reports the network letter both stand for.
 */
function avsLetter(postcode: string | undefined, address: string | undefined): string | null {
  const p = postcode ?? '';
  const a = address ?? '';
  if (p === 'M' && a === 'M') return 'M';
  if (p === 'M' && a === 'N') return 'Z';
  if (p === 'N' && a === 'M') return 'A';
  if (p === 'N' && a === 'N') return 'N';
  if (p === 'M') return 'P';
  if (a === 'M') return 'B';
  if (p === 'U' || a === 'U') return 'U';
  if (p === 'I' || a === 'I') return 'I';
  return null;
}

/** CVN result: M, N, U as the networks' letters; I (not checked) and P (not processed) as P. */
function cvvLetter(cvn: string | undefined): string | null {
  if (cvn === 'M' || cvn === 'N' || cvn === 'U') return cvn;
  if (cvn === 'I' || cvn === 'P') return 'P';
  return null;
}

function present(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

/** `orderid;pasref;authcode`: what a later settle, rebate or void names. */
export function transactionId(orderId: string, pasref: string | null, authcode: string | null): string | null {
  return pasref === null ? null : `${orderId};${pasref};${authcode ?? ''}`;
}

/** A verified answer as a GatewayResponse; `orderId` is the one the request carried. */
export function realexResponse(answer: RealexAnswer, orderId: string, approvedMessage: string): GatewayResponse {
  const approved = answer.result === '00';
  const pasref = present(answer.pasref);
  const message = present(answer.message) ?? (approved ? approvedMessage : `Result ${answer.result}`);
  const base: GatewayResponse = {
    ...blankResponse(approved, approved ? approvedMessage : message),
    gatewayTransactionId: transactionId(orderId, pasref, present(answer.authcode)),
    ...avsResult(avsLetter(answer.avspostcoderesponse, answer.avsaddressresponse)),
    ...cvvResult(cvvLetter(answer.cvnresult)),
    specificResponseFields: {
      realex: {
        result: answer.result,
        message: present(answer.message),
        order_id: orderId,
        pasref,
        authcode: present(answer.authcode),
        avs_postcode_response: present(answer.avspostcoderesponse),
        avs_address_response: present(answer.avsaddressresponse),
        cvn_result: present(answer.cvnresult),
      },
    },
  };
  if (approved) return base;
  return { ...base, errorCode: standardCode(answer.result), errorDetail: `${answer.result}: ${message}` };
}
