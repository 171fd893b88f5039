import {
  cryptogramFor,
  twoDigitEci,
  type WalletPaymentMethod,
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  gatewayExponent,
  gatewayMinorUnits,
  parseXmlAnswer,
  requireCredential,
  scrubXmlElements,
  scrubWith,
  xmlDocument,
  type AdapterPaymentMethod,
  type GatewayCall,
  type GatewayRequest,
  type XmlValue,
} from '../kit/index.js';

/** The one path of Worldpay's XML Direct API (every request type is POSTed here). */
export const WORLDPAY_PATH = '/jsp/merchant/xml/paymentService.jsp';
export const WORLDPAY_TEST_BASE = 'https://secure-test.worldpay.com';
export const WORLDPAY_LIVE_BASE = 'https://secure.worldpay.com';

/** Where Worldpay's exponent differs from ISO 4217 (ActiveMerchant's list of Worldpay currencies without fractions). */
export const WORLDPAY_EXPONENTS = { HUF: 0, IDR: 0 } as const;

const DOCTYPE = '<!DOCTYPE paymentService PUBLIC "-//WorldPay//DTD WorldPay PaymentService v1//EN" "http://dtd.worldpay.com/paymentService_v1.dtd">';

export function worldpayEndpoint(request: GatewayRequest): string {
  return request.testMode ? WORLDPAY_TEST_BASE : WORLDPAY_LIVE_BASE;
}

/** Worldpay's card elements, on top of the shared rules (Authorization header, `<cvc>`). */
export const scrubWorldpay = scrubWith(scrubXmlElements('cardNumber', 'cvc', 'tokenNumber', 'cryptogram'));

/**
 * A `paymentService` document (version 1.4, the merchant code) with Worldpay's DOCTYPE after the
 * XML declaration, as its DTD-validating parser expects.
 */
export function paymentService(request: GatewayRequest, content: { [name: string]: XmlValue }): string {
  const document = xmlDocument('paymentService', { '@_version': '1.4', '@_merchantCode': requireCredential(request, 'login'), ...content });
  const declarationEnd = document.indexOf('?>') + 2;
  return `${document.slice(0, declarationEnd)}${DOCTYPE}${document.slice(declarationEnd)}`;
}

/** `<amount value currencyCode exponent/>` in Worldpay's unit for the currency. */
export function worldpayAmount(amount: number | null, currency: string | null, debitCreditIndicator?: 'credit'): Record<string, XmlValue> {
  if (amount === null || currency === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return {
    '@_value': String(gatewayMinorUnits(amount, currency, WORLDPAY_EXPONENTS)),
    '@_currencyCode': currency,
    '@_exponent': String(gatewayExponent(currency, WORLDPAY_EXPONENTS)),
    '@_debitCreditIndicator': debitCreditIndicator,
  };
}

/** Worldpay's `orderCode` rules (as ActiveMerchant applies them): no spaces, `|`, `<`, `>`, quotes; at most 64 characters. */
export function orderCode(request: GatewayRequest): string {
  const code = (request.orderId ?? request.transactionToken).replace(/[\s|<>'"]/g, '').slice(0, 64);
  return code === '' ? request.transactionToken : code;
}

/** Worldpay's `EMVCO_TOKEN-SSL` types of the wallets. */
const TOKEN_TYPE = { apple_pay: 'APPLEPAY', google_pay: 'GOOGLEPAY' } as const;

/**
 * A decrypted wallet token (docs/wallets.md) as `EMVCO_TOKEN-SSL` of its wallet's type: the DPAN
 * as `tokenNumber`, expiry, holder name and, on a cardholder-initiated charge, the `cryptogram` and
 * two-digit `eciIndicator` (Worldpay XML, "Network payment tokens"; ActiveMerchant's worldpay as a
 * cross-check). A Google Pay PAN_ONLY card is a `CARD-SSL`.
 */
export function walletInstrument(request: GatewayRequest, wallet: WalletPaymentMethod): Record<string, XmlValue> {
  if (wallet.month === null || wallet.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  if (!wallet.networkToken) return { 'CARD-SSL': cardSsl({ ...wallet, type: 'credit_card', verificationValue: null, address: {} }) };
  const name = [wallet.firstName, wallet.lastName].filter((part) => part !== null && part !== '').join(' ');
  const cryptogram = cryptogramFor(request, wallet);
  return {
    'EMVCO_TOKEN-SSL': {
      '@_type': TOKEN_TYPE[wallet.type],
      tokenNumber: wallet.number.reveal(),
      expiryDate: { date: { '@_month': String(wallet.month).padStart(2, '0'), '@_year': String(wallet.year) } },
      cardHolderName: name === '' ? undefined : name,
      cryptogram: cryptogram ?? undefined,
      eciIndicator: cryptogram === null ? undefined : (twoDigitEci(wallet.eci) ?? undefined),
    },
  };
}

/**
 * `CARD-SSL` (Worldpay works out the brand from the number): number, expiry, holder name, CVC, and
 * the billing address when the card has a country (address1 and postal code are required in it:
 * missing ones are sent as `N/A` and `0000`, as ActiveMerchant does).
 */
export function cardSsl(method: Extract<AdapterPaymentMethod, { type: 'credit_card' }>): Record<string, XmlValue> {
  if (method.month === null || method.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const name = [method.firstName, method.lastName].filter((part) => part !== null && part !== '').join(' ');
  const { address } = method;
  return {
    cardNumber: method.number.reveal(),
    expiryDate: { date: { '@_month': String(method.month).padStart(2, '0'), '@_year': String(method.year) } },
    cardHolderName: name === '' ? undefined : name,
    cvc: method.verificationValue?.reveal(),
    cardAddress: address.country
      ? {
          address: {
            address1: address.address1 || 'N/A',
            address2: address.address2 || undefined,
            postalCode: address.zip || '0000',
            city: address.city || undefined,
            state: address.state || undefined,
            countryCode: address.country,
          },
        }
      : undefined,
  };
}

/** The parsed `reply` of an answer, or 401 (wrong credentials) as null. */
export type WorldpayReply = { reply: Record<string, unknown> } | { unauthorized: true };

/**
 * POSTs a paymentService document with Basic auth (merchant code or XML username, and the XML
 * password). 5xx, a body that is not XML (external entities are refused by the parser, never
 * fetched) and an answer without `paymentService/reply` are faults; 401 is the caller's
 * config_error.
 */
export async function worldpayPost(call: GatewayCall, document: string, idempotencyKey: string): Promise<WorldpayReply> {
  const { request } = call;
  const user = requireCredential(request, 'login');
  const basic = Buffer.from(`${user}:${requireCredential(request, 'password')}`, 'utf8').toString('base64');
  const response = await call.http.postXml(WORLDPAY_PATH, document, { authorization: `Basic ${basic}`, 'content-type': 'text/xml', accept: 'text/xml', 'idempotency-key': idempotencyKey });
  faultOnServerError('Worldpay', response);
  if (response.status === 401 || response.status === 403) return { unauthorized: true };
  if (response.status !== 200) throw new GatewayFaultError('Worldpay returned an unexpected response.', `HTTP ${response.status}`);
  let parsed: Record<string, unknown>;
  try {
    parsed = parseXmlAnswer('Worldpay', response);
  } catch (error) {
    if (error instanceof GatewayFaultError) throw error;
    throw new GatewayFaultError('Worldpay returned an unreadable response.', 'XML the parser refuses');
  }
  const service = parsed.paymentService as Record<string, unknown> | undefined;
  const reply = service?.reply;
  if (reply === null || typeof reply !== 'object' || Array.isArray(reply)) throw new GatewayFaultError('Worldpay returned an unexpected response.', 'paymentService/reply: missing');
  return { reply: reply as Record<string, unknown> };
}
