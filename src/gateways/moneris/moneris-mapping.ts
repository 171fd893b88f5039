import { z } from 'zod';
import {
  avsResult,
  blankResponse,
  cvvResult,
  faultOnServerError,
  GatewayFaultError,
  GatewayResultUnknownError,
  mapErrorCode,
  parseXmlAnswer,
  readAnswer,
  type GatewayResponse,
  type OutboundResponse,
  type StandardErrorCode,
} from '../kit/index.js';

/**
 * Moneris's receipts in Coffer's terms. Sources: Moneris's developer portal (API reference
 * "Definitions of Response Fields", "Response Codes" with its ranges: 0–49 approved, 50–999
 * declined, null not completed; the AVS and CVD result code tables), and ActiveMerchant's
 * Moneris adapter (success = ResponseCode present, Complete true and 0–49; the CVD letter is the
 * last character of CvdResultCode; authorization = TransID;ReceiptId).
 */

/** ISO/Moneris ResponseCode of a declined transaction → standard code; other codes 50–999 are `card_declined`. */
const RESPONSE_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '051': 'expired_card', // Expired card
  '057': 'pickup_card', // Lost or stolen card
  '075': 'incorrect_number', // Invalid PAN length
  '076': 'insufficient_funds', // Low funds
  '088': 'call_issuer', // Place call
  '097': 'incorrect_number', // Mod 10 check failure
  '101': 'call_issuer', // Place call
  '108': 'pickup_card', // Capture card
  '113': 'processing_error', // Timeout
  '150': 'config_error', // Merchant not on file
  '200': 'incorrect_number', // Invalid account
  '208': 'invalid_expiry_date', // Invalid expiration date
  '212': 'processing_error', // Destination not available
  '427': 'config_error', // AMEX - Invalid merchant
  '430': 'expired_card', // AMEX - Expired card
  '431': 'call_issuer', // AMEX - Call Amex
  '435': 'processing_error', // AMEX - System down
  '439': 'processing_error', // AMEX - Service error
  '475': 'invalid_expiry_date', // CREDIT CARD - Invalid expiration date
  '477': 'call_issuer', // CREDIT CARD - Refer Call
  '478': 'pickup_card', // CREDIT CARD - Decline, Pick up card, Call
  '479': 'pickup_card', // CREDIT CARD - Decline, Pick up card
  '480': 'pickup_card', // CREDIT CARD - Decline, Pick up card
  '482': 'expired_card', // CREDIT CARD - Expired Card
  '483': 'call_issuer', // CREDIT CARD - Refer
  '484': 'expired_card', // CREDIT CARD - Expired card - refer
  '486': 'incorrect_cvc', // CREDIT CARD - CVV Cryptographic error
  '487': 'incorrect_cvc', // CREDIT CARD - Invalid CVV
  '489': 'incorrect_cvc', // CREDIT CARD - Invalid CVV
  '490': 'incorrect_cvc', // CREDIT CARD - Invalid CVV
  '800': 'processing_error', // Bad format
  '801': 'processing_error', // Bad data
  '810': 'processing_error', // System timeout
  '811': 'processing_error', // System error
  '901': 'expired_card', // Capture - Expired Card
  '909': 'pickup_card', // Capture - Capture
  '960': 'config_error', // Initialization failure - merchant number mismatch
};

/** Moneris writes absent values as the text "null". */
const text = z.preprocess((value) => (value === 'null' || value === '' ? undefined : typeof value === 'number' ? String(value) : value), z.string().optional());

const receiptSchema = z.object({
  ReceiptId: text,
  ReferenceNum: text,
  ResponseCode: text,
  ISO: text,
  AuthCode: text,
  TransType: text,
  Complete: text,
  Message: text,
  TransAmount: text,
  CardType: text,
  TransID: text,
  TimedOut: text,
  AvsResultCode: text,
  CvdResultCode: text,
  DataKey: text,
  ResSuccess: text,
  IssuerId: text,
});

export type MonerisReceipt = z.infer<typeof receiptSchema>;

/** The `<response><receipt>` of an answer; a 5xx, another non-2xx, non-XML or a document without a receipt is a fault. */
export function readReceipt(response: OutboundResponse): MonerisReceipt {
  faultOnServerError('Moneris', response);
  if (response.status < 200 || response.status > 299) throw new GatewayFaultError('Moneris returned an unexpected response.', `HTTP ${response.status}`);
  const document = parseXmlAnswer('Moneris', response);
  const answer = readAnswer('Moneris', z.object({ response: z.object({ receipt: z.record(z.string(), z.unknown()) }) }), document);
  return readAnswer('Moneris', receiptSchema, answer.response.receipt);
}

/** A receipt whose credentials Moneris refused: its Message names them. */
const CONFIG_MESSAGES = /api token|store id|not authori[sz]ed|invalid store|unable to verify/i;

/** Approved as ActiveMerchant and Moneris define it: a ResponseCode of 0–49 on a completed transaction. */
function approved(receipt: MonerisReceipt): boolean {
  const code = receipt.ResponseCode === undefined ? Number.NaN : Number(receipt.ResponseCode);
  return receipt.Complete === 'true' && Number.isInteger(code) && code >= 0 && code <= 49;
}

/** Moneris's message without its padding and asterisks ("APPROVED           *                    =" → "APPROVED"). */
function cleanMessage(message: string | undefined): string {
  const cleaned = (message ?? '').replace(/[*=]+/g, ' ').replace(/\s+/g, ' ').trim();
  return cleaned === '' ? 'Unspecified error' : cleaned;
}

/**
 * A receipt as a GatewayResponse. An incomplete transaction Moneris reports as timed out is an
 * unknown outcome; another one without a ResponseCode (null) was not processed: a failure with
 * `config_error` when the message is about the store id or API token, else `processing_error`.
 */
export function monerisResponse(receipt: MonerisReceipt, approvedMessage: string): GatewayResponse {
  if (receipt.TimedOut === 'true') throw new GatewayResultUnknownError('Moneris timed out on the transaction.', 'TimedOut: true');
  const success = approved(receipt);
  const cvd = receipt.CvdResultCode?.slice(-1);
  const base: GatewayResponse = {
    ...blankResponse(success, success ? approvedMessage : cleanMessage(receipt.Message)),
    gatewayTransactionId: receipt.TransID !== undefined && receipt.ReceiptId !== undefined ? `${receipt.TransID};${receipt.ReceiptId}` : null,
    ...avsResult(receipt.AvsResultCode),
    ...cvvResult(cvd),
    specificResponseFields: {
      moneris: {
        response_code: receipt.ResponseCode ?? null,
        iso: receipt.ISO ?? null,
        auth_code: receipt.AuthCode ?? null,
        reference_num: receipt.ReferenceNum ?? null,
        message: receipt.Message ?? null,
        ...(receipt.IssuerId === undefined ? {} : { issuer_id: receipt.IssuerId }),
      },
    },
  };
  if (success) return base;
  const code = Number(receipt.ResponseCode);
  let errorCode: StandardErrorCode;
  if (receipt.ResponseCode === undefined || !Number.isInteger(code)) errorCode = CONFIG_MESSAGES.test(receipt.Message ?? '') ? 'config_error' : 'processing_error';
  else errorCode = mapErrorCode(RESPONSE_CODES, [receipt.ResponseCode.padStart(3, '0')], code >= 50 ? 'card_declined' : 'processing_error');
  return { ...base, errorCode, errorDetail: `${receipt.ResponseCode ?? 'null'}: ${cleanMessage(receipt.Message)}` };
}
