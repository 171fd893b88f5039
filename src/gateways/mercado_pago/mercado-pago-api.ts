import { z } from 'zod';
import { faultOnServerError, GatewayFaultError, parseJsonAnswer, readAnswer, requireCredential, type GatewayCall, type GatewayRequest, type GatewayResponse } from '../kit/index.js';
import { errorResponse, type MercadoPagoError } from './mercado-pago-mapping.js';

const errorSchema = z.object({
  message: z.string(),
  error: z.string().optional(),
  status: z.number().optional(),
  cause: z.array(z.object({ code: z.union([z.string(), z.number()]).optional(), description: z.string().optional() }).passthrough()).optional(),
});

export type Reply = { ok: true; json: Record<string, unknown> } | { ok: false; response: GatewayResponse };

/** A gateway-specific field given as text, if it was. */
export function specificText(request: GatewayRequest, name: string): string | undefined {
  const value = request.gatewaySpecificFields[name];
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

/**
 * One exchange with the Payments API: Bearer access token, Coffer's transaction token as
 * X-Idempotency-Key where given. 5xx and unreadable answers are faults; a 4xx must be Mercado Pago's
 * error body (else a fault) and becomes a decline.
 */
export async function mpSend(call: GatewayCall, method: 'GET' | 'POST' | 'PUT', path: string, body: Record<string, unknown> | undefined, idempotent: boolean): Promise<Reply> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    authorization: `Bearer ${requireCredential(call.request, 'access_token')}`,
  };
  if (idempotent) headers['x-idempotency-key'] = call.request.transactionToken;
  const response = await call.http.send({ method, path, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  faultOnServerError('Mercado Pago', response);
  const json = parseJsonAnswer('Mercado Pago', response);
  if (response.status >= 400) return { ok: false, response: errorResponse(response.status, readAnswer('Mercado Pago', errorSchema, json) as MercadoPagoError) };
  if (response.status < 200 || response.status > 299) throw new GatewayFaultError('Mercado Pago returned an unexpected response.', `HTTP ${response.status}`);
  return { ok: true, json };
}

