import { z } from 'zod';
import {
  defineGateway,
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  gatewayMinorUnits,
  optionalCredential,
  parseJsonAnswer,
  readAnswer,
  requireCredential,
  type GatewayCall,
  type GatewayRequest,
  type GatewayResponse,
} from './kit/index.js';
import { answerResponse, CURRENCY_CODES, sisErrorResponse, type RedsysAnswer } from './redsys_rest/redsys-mapping.js';
import { decodeParameters, encodeParameters, orderNumber, scrubRedsys } from './redsys_rest/redsys-parameters.js';
import { redsysSignature, signatureMatches, SIGNATURE_VERSION } from './redsys_rest/redsys-signature.js';

export const REDSYS_TEST_BASE = 'https://sis-t.redsys.es:25443';
export const REDSYS_LIVE_BASE = 'https://sis.redsys.es';
/** The REST entry point of operations that need no cardholder authentication (Redsys "Integración REST"). */
export const REDSYS_PATH = '/sis/rest/trataPeticionREST';

/** Ds_Merchant_TransactionType of each operation (Redsys's transaction types). */
const TRANSACTION_TYPES = { purchase: '0', authorize: '1', capture: '2', credit: '3', verify: '7', void: '9' } as const;

const envelopeSchema = z.object({ Ds_MerchantParameters: z.string().min(1), Ds_Signature: z.string().min(1) });
const text = z.union([z.string(), z.number()]).transform(String);
const answerSchema = z.object({
  Ds_Order: z.string().min(1),
  Ds_Response: text,
  Ds_Amount: text.optional(),
  Ds_Currency: text.optional(),
  Ds_AuthorisationCode: text.optional(),
  Ds_Merchant_Cof_Txnid: text.optional(),
  Ds_Card_Brand: text.optional(),
});

type Reply = { ok: true; answer: RedsysAnswer } | { ok: false; response: GatewayResponse };

/**
 * One signed call: the DS_MERCHANT_* fields (merchant code and terminal added) as Base64 JSON,
 * signed with the per-order key, POSTed as JSON. An `errorCode` answer is Redsys's refusal (a
 * failed transaction); any other answer must carry parameters whose signature verifies under the
 * secret key and which echo the order sent, else it is a fault.
 */
async function redsysPost(call: GatewayCall, fields: Record<string, unknown>): Promise<Reply> {
  const { request } = call;
  const secretKey = requireCredential(request, 'secret_key');
  const order = String(fields.DS_MERCHANT_ORDER);
  const parameters = encodeParameters({
    ...fields,
    DS_MERCHANT_MERCHANTCODE: requireCredential(request, 'merchant_id'),
    DS_MERCHANT_TERMINAL: optionalCredential(request, 'terminal') ?? '1',
  });
  const response = await call.http.postJson(REDSYS_PATH, { Ds_SignatureVersion: SIGNATURE_VERSION, Ds_MerchantParameters: parameters, Ds_Signature: redsysSignature(secretKey, order, parameters) });
  faultOnServerError('Redsys', response);
  const json = parseJsonAnswer('Redsys', response);
  if (typeof json.errorCode === 'string' && json.errorCode !== '') return { ok: false, response: sisErrorResponse(json.errorCode) };
  if (response.status < 200 || response.status > 299) throw new GatewayFaultError('Redsys returned an unexpected response.', `HTTP ${response.status}`);
  const envelope = readAnswer('Redsys', envelopeSchema, json);
  const decoded = decodeParameters(envelope.Ds_MerchantParameters);
  if (decoded === null) throw new GatewayFaultError('Redsys returned an unreadable response.', 'Ds_MerchantParameters: not Base64 JSON');
  const answer = readAnswer('Redsys', answerSchema, decoded);
  if (!signatureMatches(secretKey, answer.Ds_Order, envelope.Ds_MerchantParameters, envelope.Ds_Signature)) {
    throw new GatewayFaultError('Redsys returned a response whose signature does not verify.', `HTTP ${response.status}, bad response signature`);
  }
  if (answer.Ds_Order !== order) throw new GatewayFaultError('Redsys answered for another order.', `Ds_Order ${answer.Ds_Order}, sent ${order}`);
  return { ok: true, answer };
}

/** Amount and currency fields: minor units of the ISO exponent (JPY in whole yen), the ISO numeric currency. */
function amountFields(amount: number | null, currency: string | null): { DS_MERCHANT_AMOUNT: string; DS_MERCHANT_CURRENCY: string } {
  if (amount === null || currency === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  const numeric = CURRENCY_CODES[currency];
  if (numeric === undefined) throw new GatewayInputError(`Redsys does not take ${currency}.`, 'invalid_amount');
  return { DS_MERCHANT_AMOUNT: String(gatewayMinorUnits(amount, currency)), DS_MERCHANT_CURRENCY: numeric };
}

function description(request: GatewayRequest): { DS_MERCHANT_PRODUCTDESCRIPTION?: string } {
  return request.description === null || request.description === '' ? {} : { DS_MERCHANT_PRODUCTDESCRIPTION: request.description.slice(0, 125) };
}

/**
 * Card-on-file fields (Redsys "Operativa COF"): COF_INI S on the cardholder-initiated transaction
 * that stores the card, N after; COF_TYPE R (recurring), I (instalment) or C (other); a
 * merchant-initiated one names the network id of the first (COF_TXNID) and claims the MIT exemption.
 */
function storedCredentialFields(request: GatewayRequest): Record<string, unknown> {
  const stored = request.storedCredential;
  if (stored === null || stored === undefined) return {};
  const type = stored.reasonType === 'recurring' ? 'R' : stored.reasonType === 'installment' ? 'I' : 'C';
  if (stored.initiator === 'cardholder') return { DS_MERCHANT_COF_INI: 'S', DS_MERCHANT_COF_TYPE: type };
  return { DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_COF_TYPE: type, DS_MERCHANT_COF_TXNID: stored.networkTransactionId ?? undefined, DS_MERCHANT_EXCEP_SCA: 'MIT' };
}

/** Purchase (0), authorization (1) or verification (7, amount 0) of a card sent in clear, without 3-D Secure. */
async function payment(call: GatewayCall, kind: 'purchase' | 'authorize' | 'verify'): Promise<GatewayResponse> {
  const { request } = call;
  const card = request.paymentMethod;
  if (card?.type !== 'credit_card') throw new GatewayInputError('Redsys takes credit cards.', 'unsupported_feature');
  if (card.month === null || card.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const money = kind === 'verify' ? amountFields(0, request.currencyCode ?? 'EUR') : amountFields(request.amount, request.currencyCode);
  const holder = [card.firstName, card.lastName].filter((part) => part !== null && part !== '').join(' ').slice(0, 60);
  const order = orderNumber(request.orderId, request.transactionToken);
  const reply = await redsysPost(call, {
    DS_MERCHANT_TRANSACTIONTYPE: TRANSACTION_TYPES[kind],
    ...money,
    DS_MERCHANT_ORDER: order,
    DS_MERCHANT_PAN: card.number.reveal(),
    DS_MERCHANT_EXPIRYDATE: `${String(card.year % 100).padStart(2, '0')}${String(card.month).padStart(2, '0')}`,
    DS_MERCHANT_CVV2: card.verificationValue?.reveal(),
    DS_MERCHANT_TITULAR: holder === '' ? undefined : holder,
    ...description(request),
    ...(kind === 'verify' ? {} : storedCredentialFields(request)),
    // Coffer sends no 3-D Secure data to Redsys: the payment is asked for without authentication.
    DS_MERCHANT_DIRECTPAYMENT: true,
  });
  if (!reply.ok) return reply.response;
  return answerResponse(reply.answer, (code) => code < 100, { amount: money.DS_MERCHANT_AMOUNT, currency: money.DS_MERCHANT_CURRENCY });
}

/** The order, amount and currency of the referenced operation ("order|amount|currency", see redsys-mapping). */
function referenced(request: GatewayRequest): { order: string; amount: string; currency: string } {
  const [order, amount, currency] = (request.reference?.gatewayTransactionId ?? '').split('|');
  if (order === undefined || order === '' || amount === undefined || currency === undefined) throw new GatewayFaultError('No Redsys order to refer to.', 'reference without order|amount|currency');
  return { order, amount, currency };
}

/** Capture (2) or refund (3) of part or all of the referenced order; Redsys approves both with 0900. */
async function followUp(call: GatewayCall, kind: 'capture' | 'credit'): Promise<GatewayResponse> {
  const { request } = call;
  const { order } = referenced(request);
  const money = amountFields(request.amount, request.currencyCode);
  const reply = await redsysPost(call, { DS_MERCHANT_TRANSACTIONTYPE: TRANSACTION_TYPES[kind], ...money, DS_MERCHANT_ORDER: order, ...description(request) });
  if (!reply.ok) return reply.response;
  return answerResponse(reply.answer, (code) => code === 900, { amount: money.DS_MERCHANT_AMOUNT, currency: money.DS_MERCHANT_CURRENCY });
}

/** Cancellation (9) of an authorization, for its original amount and currency; approved with 0400 or 0481. */
async function cancel(call: GatewayCall): Promise<GatewayResponse> {
  const { order, amount, currency } = referenced(call.request);
  const reply = await redsysPost(call, { DS_MERCHANT_TRANSACTIONTYPE: TRANSACTION_TYPES.void, DS_MERCHANT_AMOUNT: amount, DS_MERCHANT_CURRENCY: currency, DS_MERCHANT_ORDER: order, ...description(call.request) });
  if (!reply.ok) return reply.response;
  return answerResponse(reply.answer, (code) => code === 400 || code === 481, { amount, currency });
}

/**
 * Redsys (the Spanish card processor behind most Spanish banks' virtual POS) through its REST
 * integration: every request's Base64 parameters signed with HMAC-SHA256 under a 3DES-derived
 * per-order key, every answer's signature verified. Not implemented: 3-D Secure (iniciaPeticionREST),
 * card tokenisation (Ds_Merchant_Identifier), network tokens. See docs/gateways/redsys_rest.md.
 */
export const redsysRestGateway = defineGateway({
  gatewayType: 'redsys_rest',
  name: 'Redsys Rest',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Default',
      credentials: [
        { name: 'merchant_id', label: 'Merchant ID', safe: true },
        { name: 'terminal', label: 'Terminal', safe: true, optional: true },
        { name: 'secret_key', label: 'Secret Key', safe: false },
      ],
    },
  ],
  paymentMethods: ['credit_card'],
  gatewaySpecificFields: [],
  supportedCountries: ['ES'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'jcb', 'diners_club', 'unionpay'],
  regions: ['europe'],
  homepage: 'https://www.redsys.es/',
  displayApiUrl: 'https://sis.redsys.es/sis/rest/trataPeticionREST',
  companyName: 'Redsys',
  capturesAreFinal: true,
  endpoint: (request) => (request.testMode ? REDSYS_TEST_BASE : REDSYS_LIVE_BASE),
  scrub: scrubRedsys,
  operations: {
    purchase: (call) => payment(call, 'purchase'),
    authorize: (call) => payment(call, 'authorize'),
    verify: (call) => payment(call, 'verify'),
    capture: (call) => followUp(call, 'capture'),
    credit: (call) => followUp(call, 'credit'),
    void: cancel,
  },
  features: ['supports_populate_mit_fields'],
});
