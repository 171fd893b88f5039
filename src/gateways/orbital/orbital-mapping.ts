import { avsResult, blankResponse, cvvResult, GatewayFaultError, GatewayResultUnknownError, mapErrorCode, type GatewayResponse } from '../kit/index.js';
import type { OrbitalAnswer } from './orbital-api.js';
import { APPROVED_RESP_CODES, AVS_LETTERS, CVV_LETTERS, DECLINE_CODES, PROC_STATUS_CODES } from './orbital-codes.js';

/**
 * Orbital's answers in Coffer's terms. `ProcStatus` 0 means Orbital processed the request; then
 * an authorization approves by `RespCode` (ActiveMerchant's list), a refund by `ApprovalStatus` 1,
 * a capture unless a RespCode says otherwise, a reversal by ProcStatus alone. Anything else under
 * `QuickResp` or `ErrorResponse` is a request Orbital refused.
 */

/** How the answer to each request type decides success. */
export type OrbitalRule = 'authorization' | 'refund' | 'capture' | 'reversal';

const EXPECTED_KIND: Readonly<Record<OrbitalRule, string>> = {
  authorization: 'NewOrderResp',
  refund: 'NewOrderResp',
  capture: 'MarkForCaptureResp',
  reversal: 'ReversalResp',
};

/** A field as trimmed text (Orbital pads codes with spaces); empty is absent. */
function field(fields: Record<string, unknown>, name: string): string | undefined {
  const value = fields[name];
  const text = typeof value === 'string' ? value : typeof (value as { '#text'?: unknown } | undefined)?.['#text'] === 'string' ? (value as { '#text': string })['#text'] : undefined;
  const trimmed = text?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** Coffer's id of an Orbital transaction: what capture, void and refund must send back (TxRefNum and OrderID). */
export function orbitalTransactionId(txRefNum: string, orderId: string): string {
  return `${txRefNum};${orderId}`;
}

/** The TxRefNum and OrderID of Coffer's id of an Orbital transaction. */
export function splitTransactionId(id: string): { txRefNum: string; orderId: string } | null {
  const separator = id.indexOf(';');
  if (separator <= 0 || separator === id.length - 1) return null;
  return { txRefNum: id.slice(0, separator), orderId: id.slice(separator + 1) };
}

/** A request Orbital refused (QuickResp, ErrorResponse, or ProcStatus other than 0). */
function refusedResponse(fields: Record<string, unknown>, procStatus: string | undefined): GatewayResponse {
  const message = field(fields, 'StatusMsg') ?? field(fields, 'RespMsg') ?? 'Orbital refused the request';
  return {
    ...blankResponse(false, message),
    errorCode: mapErrorCode(PROC_STATUS_CODES, [procStatus], 'processing_error'),
    errorDetail: `ProcStatus ${procStatus ?? '(none)'}: ${message}`,
    specificResponseFields: { orbital: { proc_status: procStatus ?? null, status_msg: message } },
  };
}

/**
 * The answer to one request as a GatewayResponse. `orderIdSent` is the OrderID of the request
 * (used when the answer does not echo it). An approval without a TxRefNum leaves nothing to refer
 * to: an unknown outcome, not a success.
 */
export function orbitalResponse(answer: OrbitalAnswer, rule: OrbitalRule, approvedMessage: string, orderIdSent: string): GatewayResponse {
  const { fields } = answer;
  const procStatus = field(fields, 'ProcStatus');
  if (answer.kind === 'QuickResp' || answer.kind === 'ErrorResponse' || (procStatus !== undefined && procStatus !== '0')) return refusedResponse(fields, procStatus);
  if (answer.kind !== EXPECTED_KIND[rule]) throw new GatewayFaultError('Orbital returned an unexpected response.', `Response/${answer.kind}: not ${EXPECTED_KIND[rule]}`);
  if (procStatus === undefined) throw new GatewayFaultError('Orbital returned an unexpected response.', `${answer.kind}/ProcStatus: missing`);

  const respCode = field(fields, 'RespCode');
  const hostRespCode = field(fields, 'HostRespCode');
  const approvalStatus = field(fields, 'ApprovalStatus');
  const success =
    rule === 'authorization'
      ? respCode !== undefined && APPROVED_RESP_CODES.has(respCode)
      : rule === 'refund'
        ? approvalStatus === '1'
        : rule === 'capture'
          ? respCode === undefined || APPROVED_RESP_CODES.has(respCode)
          : true;
  const txRefNum = field(fields, 'TxRefNum');
  const orderId = field(fields, 'OrderID') ?? orderIdSent;
  if (success && txRefNum === undefined) throw new GatewayResultUnknownError('Orbital approved the request but returned no TxRefNum.', `${answer.kind}/TxRefNum: missing`);

  const statusMsg = field(fields, 'StatusMsg');
  const respMsg = field(fields, 'RespMsg');
  const avs = field(fields, 'AVSRespCode');
  const cvv = field(fields, 'CVV2RespCode');
  const base: GatewayResponse = {
    ...blankResponse(success, success ? approvedMessage : (respMsg ?? statusMsg ?? 'Declined')),
    gatewayTransactionId: txRefNum === undefined ? null : orbitalTransactionId(txRefNum, orderId),
    ...avsResult(AVS_LETTERS[avs ?? '']),
    ...cvvResult(CVV_LETTERS[cvv ?? '']),
    networkTransactionId: field(fields, 'MITReceivedTransactionID') ?? null,
    specificResponseFields: {
      orbital: {
        proc_status: procStatus,
        approval_status: approvalStatus ?? null,
        resp_code: respCode ?? null,
        host_resp_code: hostRespCode ?? null,
        status_msg: statusMsg ?? null,
        auth_code: field(fields, 'AuthCode') ?? null,
        tx_ref_num: txRefNum ?? null,
        tx_ref_idx: field(fields, 'TxRefIdx') ?? null,
        order_id: orderId,
        card_brand: field(fields, 'CardBrand') ?? null,
        avs_resp_code: avs ?? null,
        cvv2_resp_code: cvv ?? null,
      },
    },
  };
  if (success) return base;
  const errorCode = mapErrorCode(DECLINE_CODES, [hostRespCode, respCode], 'card_declined');
  return {
    ...base,
    errorCode,
    accountClosed: errorCode === 'account_closed',
    errorDetail: [respCode, hostRespCode, statusMsg].filter((part) => part !== undefined).join(': ') || null,
  };
}

/** The Safetech token of a `TokenTxnType GT` answer, with the brand a later payment must name. */
export function safetechToken(answer: OrbitalAnswer): { token: string; cardBrand: string } | null {
  const token = field(answer.fields, 'SafetechToken');
  const cardBrand = field(answer.fields, 'CardBrand');
  return token === undefined || cardBrand === undefined ? null : { token, cardBrand };
}
