import {
  decimalAmount,
  defineGateway,
  GatewayFaultError,
  GatewayInputError,
  GatewayResultUnknownError,
  optionalCredential,
  requireCredential,
  scrubFormFields,
  scrubWith,
  type FormValue,
  type GatewayCall,
  type GatewayRequest,
  type GatewayResponse,
} from './kit/index.js';
import { nmiResponse, readNmiAnswer } from './nmi/nmi-mapping.js';

/**
 * NMI through its Payment API ("Direct Post"): one URL, form-encoded requests with a `type` (or
 * `customer_vault`) variable, form-encoded answers. See docs/gateways/nmi.md.
 */

/** NMI's documented Payment API URL; test and live are the same host (test mode is a request variable or an account setting). */
export const NMI_BASE = 'https://secure.networkmerchants.com';
export const NMI_PATH = '/api/transact.php';

/** Gateway-specific fields passed through as NMI variables of the same name (stored credentials, duplicate check, descriptor). */
const PASSED_THROUGH = ['initiated_by', 'stored_credential_indicator', 'initial_transaction_id', 'billing_method', 'dup_seconds', 'descriptor', 'descriptor_phone', 'customer_receipt'] as const;

/** `security_key` when the gateway has one (security_key_only mode), else the `username`/`password` pair (default mode). */
function authentication(request: GatewayRequest): Record<string, string> {
  const key = optionalCredential(request, 'security_key');
  if (key !== undefined) return { security_key: key };
  return { username: requireCredential(request, 'login'), password: requireCredential(request, 'password') };
}

/** `test_mode=enabled` for a sandbox gateway: NMI then runs the request as a test whatever the account's setting. */
function testMode(request: GatewayRequest): Record<string, string> {
  return request.testMode ? { test_mode: 'enabled' } : {};
}

function amountFields(request: GatewayRequest): Record<string, string> {
  if (request.amount === null || request.currencyCode === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return { amount: decimalAmount(request.amount, request.currencyCode), currency: request.currencyCode };
}

/** The card (ccnumber, ccexp as MMYY, cvv) with the billing name and address, or a customer vault id. */
function paymentFields(request: GatewayRequest): Record<string, FormValue> {
  const method = request.paymentMethod;
  if (method?.type === 'third_party_token') return { customer_vault_id: method.token };
  if (method?.type !== 'credit_card') throw new GatewayInputError('NMI takes credit cards and customer vault ids (third_party_token).', 'unsupported_feature');
  if (method.month === null || method.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const { address } = method;
  return {
    payment: 'creditcard',
    ccnumber: method.number.reveal(),
    ccexp: `${String(method.month).padStart(2, '0')}${String(method.year % 100).padStart(2, '0')}`,
    cvv: method.verificationValue?.reveal(),
    first_name: method.firstName ?? undefined,
    last_name: method.lastName ?? undefined,
    address1: address.address1 ?? undefined,
    address2: address.address2 ?? undefined,
    city: address.city ?? undefined,
    state: address.state ?? undefined,
    zip: address.zip ?? undefined,
    country: address.country ?? undefined,
    email: method.email ?? undefined,
  };
}

/** The order, customer and shipping variables of a sale, auth or validate. */
function orderFields(request: GatewayRequest): Record<string, FormValue> {
  const ship = request.shippingAddress;
  const [shipFirst, ...shipLast] = (ship?.name ?? '').trim().split(/\s+/);
  const passed: Record<string, FormValue> = {};
  for (const name of PASSED_THROUGH) {
    const value = request.gatewaySpecificFields[name];
    if (typeof value === 'string' || typeof value === 'number') passed[name] = String(value);
  }
  return {
    orderid: request.orderId ?? request.transactionToken,
    orderdescription: request.description ?? undefined,
    ipaddress: request.ip ?? undefined,
    ...(request.email === null ? {} : { email: request.email }),
    shipping_firstname: shipFirst || undefined,
    shipping_lastname: shipLast.join(' ') || undefined,
    shipping_address1: ship?.address1 ?? undefined,
    shipping_address2: ship?.address2 ?? undefined,
    shipping_city: ship?.city ?? undefined,
    shipping_state: ship?.state ?? undefined,
    shipping_zip: ship?.zip ?? undefined,
    shipping_country: ship?.country ?? undefined,
    shipping_phone: ship?.phone_number ?? undefined,
    ...passed,
  };
}

/** The transaction id a capture, refund or void refers to. */
function referenceId(request: GatewayRequest): string {
  const id = request.reference?.gatewayTransactionId;
  if (id === null || id === undefined || id === '') throw new GatewayFaultError('No NMI transaction id to refer to.', 'reference without gateway_transaction_id');
  return id;
}

async function post(call: GatewayCall, variables: Record<string, FormValue>) {
  const response = await call.http.postForm(NMI_PATH, { ...variables, ...authentication(call.request), ...testMode(call.request) });
  return readNmiAnswer(response);
}

/** type=sale | auth | validate with the card or vault id. An approval without a transactionid is an unknown outcome. */
async function payment(call: GatewayCall, type: 'sale' | 'auth' | 'validate'): Promise<GatewayResponse> {
  const { request } = call;
  const amount = type === 'validate' ? {} : amountFields(request);
  const answer = await post(call, { type, ...amount, ...paymentFields(request), ...orderFields(request) });
  if (answer.response === '1' && answer.transactionid === undefined) {
    throw new GatewayResultUnknownError('NMI returned an unexpected response.', 'transactionid: missing on an approval');
  }
  const message = { sale: 'Transaction approved', auth: 'Transaction authorized', validate: 'Card verified' }[type];
  return nmiResponse(answer, message);
}

/** type=capture | refund (amount: full or partial) | void, by the reference's transactionid. */
async function referenced(call: GatewayCall, type: 'capture' | 'refund' | 'void'): Promise<GatewayResponse> {
  const { request } = call;
  const amount = type === 'void' ? {} : amountFields(request);
  const answer = await post(call, { type, transactionid: referenceId(request), ...amount });
  const message = { capture: 'Capture approved', refund: 'Refund approved', void: 'Transaction voided' }[type];
  const response = nmiResponse(answer, message);
  // NMI answers these with the original's transactionid; keep the reference when it leaves it out.
  return { ...response, gatewayTransactionId: response.gatewayTransactionId ?? referenceId(request) };
}

/** customer_vault=add_customer: the card goes into NMI's vault; its customer_vault_id is the third_party_token. */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  if (request.paymentMethod?.type !== 'credit_card') throw new GatewayInputError('NMI stores credit cards only.', 'unsupported_feature');
  const answer = await post(call, { customer_vault: 'add_customer', ...paymentFields(request) });
  const response = nmiResponse(answer, 'Card stored');
  if (!response.success) return response;
  if (answer.customer_vault_id === undefined) throw new GatewayResultUnknownError('NMI returned an unexpected response.', 'customer_vault_id: missing on an approval');
  return { ...response, thirdPartyToken: answer.customer_vault_id, gatewayTransactionId: answer.transactionid ?? answer.customer_vault_id };
}

export const nmiGateway = defineGateway({
  gatewayType: 'nmi',
  name: 'NMI',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Username and password',
      credentials: [
        { name: 'login', label: 'Login', safe: true },
        { name: 'password', label: 'Password', safe: false },
      ],
    },
    { authModeType: 'security_key_only', name: 'Security key', credentials: [{ name: 'security_key', label: 'Security Key', safe: false }] },
  ],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: [...PASSED_THROUGH],
  supportedCountries: ['US', 'CA'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover'],
  regions: ['north_america'],
  homepage: 'https://www.nmi.com/',
  displayApiUrl: `${NMI_BASE}${NMI_PATH}`,
  companyName: 'NMI',
  // One capture settles an NMI authorization.
  capturesAreFinal: true,
  endpoint: () => NMI_BASE,
  scrub: scrubWith(scrubFormFields('ccnumber', 'cvv', 'ccexp', 'security_key', 'password', 'checkaba', 'checkaccount', 'cavv')),
  operations: {
    purchase: (call) => payment(call, 'sale'),
    authorize: (call) => payment(call, 'auth'),
    verify: (call) => payment(call, 'validate'),
    capture: (call) => referenced(call, 'capture'),
    credit: (call) => referenced(call, 'refund'),
    void: (call) => referenced(call, 'void'),
    store,
  },
});
