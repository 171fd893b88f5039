import { z } from 'zod';
import { blankResponse, faultOnServerError, GatewayFaultError, GatewayResultUnknownError, mapErrorCode, parseJsonAnswer, readAnswer, type GatewayResponse, type OutboundResponse } from '../kit/index.js';
import { ANET_MESSAGE_CODES } from './anet-mapping.js';

/**
 * The answer of createCustomerProfileRequest (Authorize.Net API reference, Customer Profiles →
 * "Create Customer Profile"): customerProfileId, customerPaymentProfileIdList, messages.
 */
const profileSchema = z.object({
  customerProfileId: z.string().optional(),
  customerPaymentProfileIdList: z.array(z.string()).optional(),
  messages: z.object({
    resultCode: z.enum(['Ok', 'Error']),
    message: z.array(z.object({ code: z.string(), text: z.string().default('') })).min(1),
  }),
});

export type AnetProfileAnswer = z.infer<typeof profileSchema>;

export function readAnetProfileAnswer(response: OutboundResponse): AnetProfileAnswer {
  faultOnServerError('Authorize.Net', response);
  if (response.status < 200 || response.status > 299) throw new GatewayFaultError('Authorize.Net returned an unexpected response.', `HTTP ${response.status}`);
  return readAnswer('Authorize.Net', profileSchema, parseJsonAnswer('Authorize.Net', response));
}

/** Ok → the card is stored as `customerProfileId|customerPaymentProfileId`; Error → a failed store with the message. */
export function anetProfileResponse(answer: AnetProfileAnswer): GatewayResponse {
  const message = answer.messages.message[0] as { code: string; text: string };
  const text = message.text.replace(/\.$/, '');
  const specific = { authorize_net: { result_code: answer.messages.resultCode, message_code: message.code, customer_profile_id: answer.customerProfileId ?? null } };
  if (answer.messages.resultCode === 'Error') {
    return { ...blankResponse(false, text || 'Error'), errorCode: mapErrorCode(ANET_MESSAGE_CODES, [message.code], 'processing_error'), errorDetail: `${message.code}: ${message.text}`, specificResponseFields: specific };
  }
  const paymentProfileId = answer.customerPaymentProfileIdList?.[0];
  if (!answer.customerProfileId || !paymentProfileId) {
    throw new GatewayResultUnknownError('Authorize.Net returned an unexpected response.', 'customerProfileId or customerPaymentProfileIdList: missing on a success');
  }
  return {
    ...blankResponse(true, text || 'Successful'),
    gatewayTransactionId: answer.customerProfileId,
    thirdPartyToken: `${answer.customerProfileId}|${paymentProfileId}`,
    specificResponseFields: specific,
  };
}
