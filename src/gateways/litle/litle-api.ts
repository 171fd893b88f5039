import {
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  gatewayMinorUnits,
  parseXmlAnswer,
  requireCredential,
  scrubWith,
  scrubXmlElements,
  xmlDocument,
  type GatewayCall,
  type GatewayRequest,
  type XmlValue,
} from '../kit/index.js';

/**
 * Worldpay eCommerce (Vantiv, formerly Litle) cnpAPI online interface: one path for every
 * request, `…/communicator/online`, a `litleOnlineRequest` document with the transaction as its
 * second element. Sources: the cnpAPI XML reference (version 9.14: request and response elements,
 * the `duplicate` attribute, response codes), ActiveMerchant's litle.rb (endpoints, scrubbed elements).
 */
export const LITLE_PATH = '/communicator/online';
/** Sandbox (Vantiv's simulator) and production bases, path prefix included. */
export const LITLE_TEST_BASE = 'https://www.testvantivcnp.com/sandbox';
export const LITLE_LIVE_BASE = 'https://payments.vantivcnp.com/vap';
export const LITLE_VERSION = '9.14';
const SCHEMA = 'http://www.litle.com/schema';

export function litleEndpoint(request: GatewayRequest): string {
  return request.testMode ? LITLE_TEST_BASE : LITLE_LIVE_BASE;
}

/** cnpAPI's credential, card and bank elements (ActiveMerchant's list), on top of the shared rules. */
export const scrubLitle = scrubWith(scrubXmlElements('user', 'password', 'number', 'accNum', 'routingNum', 'cardValidationNum', 'accountNumber', 'paypageRegistrationId', 'authenticationValue'));

/**
 * The amount: an integer in the minor unit of the currency the merchant id is set up for (cnpAPI
 * sends no currency; a MID takes one currency), 12 digits at most.
 */
export function litleAmount(amount: number | null, currency: string | null): string {
  if (amount === null || currency === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  const units = gatewayMinorUnits(amount, currency);
  if (units > 999_999_999_999) throw new GatewayInputError('The amount is too large for Worldpay eCommerce.', 'invalid_amount');
  return String(units);
}

/**
 * The transaction's `id` attribute (25 characters at most; Coffer's transaction token, cut) and
 * its report group. Vantiv flags a repeat of an id it has seen as a duplicate and answers with the
 * original result (`duplicate="true"`).
 */
export function transactionAttributes(request: GatewayRequest, suffix = ''): Record<string, string> {
  const id = `${request.transactionToken.slice(0, 25 - suffix.length)}${suffix}`;
  const reportGroup = request.gatewaySpecificFields.report_group;
  return { '@_id': id, '@_reportGroup': typeof reportGroup === 'string' && reportGroup !== '' ? reportGroup.slice(0, 25) : 'Default Report Group' };
}

/** The client's order id, else the transaction token: 25 characters at most. */
export function litleOrderId(request: GatewayRequest): string {
  return (request.orderId || request.transactionToken).slice(0, 25);
}

/** `<litleOnlineRequest version merchantId xmlns><authentication>…</authentication><{kind} …>…</{kind}></litleOnlineRequest>`. */
export function litleDocument(request: GatewayRequest, kind: string, transaction: Record<string, XmlValue>): string {
  return xmlDocument('litleOnlineRequest', {
    '@_version': LITLE_VERSION,
    '@_xmlns': SCHEMA,
    '@_merchantId': requireCredential(request, 'merchant_id'),
    authentication: { user: requireCredential(request, 'user'), password: requireCredential(request, 'password') },
    [kind]: transaction,
  });
}

/** The answer: the root's `response`/`message` attributes and the transaction response element, if any. */
export interface LitleAnswer {
  rootResponse: string;
  rootMessage: string;
  kind: string | null;
  fields: Record<string, unknown>;
}

/** POSTs a document as text/xml. A 5xx, a body that is not XML, or one without `litleOnlineResponse` is a fault. */
export async function litlePost(call: GatewayCall, document: string): Promise<LitleAnswer> {
  const response = await call.http.send({ method: 'POST', path: LITLE_PATH, headers: { 'content-type': 'text/xml; charset=UTF-8', accept: 'text/xml' }, body: document });
  faultOnServerError('Worldpay eCommerce', response);
  if (response.status !== 200) throw new GatewayFaultError('Worldpay eCommerce returned an unexpected response.', `HTTP ${response.status}`);
  const parsed = parseXmlAnswer('Worldpay eCommerce', response);
  const root = parsed.litleOnlineResponse;
  if (root === null || typeof root !== 'object' || Array.isArray(root)) throw new GatewayFaultError('Worldpay eCommerce returned an unexpected response.', 'litleOnlineResponse: missing');
  const node = root as Record<string, unknown>;
  const rootResponse = typeof node['@_response'] === 'string' ? node['@_response'] : undefined;
  if (rootResponse === undefined) throw new GatewayFaultError('Worldpay eCommerce returned an unexpected response.', 'litleOnlineResponse/@response: missing');
  const entry = Object.entries(node).find(([name, value]) => !name.startsWith('@_') && value !== null && typeof value === 'object' && !Array.isArray(value));
  return {
    rootResponse,
    rootMessage: typeof node['@_message'] === 'string' ? node['@_message'] : '',
    kind: entry?.[0] ?? null,
    fields: (entry?.[1] as Record<string, unknown> | undefined) ?? {},
  };
}
