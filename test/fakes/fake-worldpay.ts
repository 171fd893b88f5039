import { XMLParser } from 'fast-xml-parser';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake Worldpay XML Direct API on 127.0.0.1 for e2e tests, on the shared FakeGatewayServer: one
 * path (/jsp/merchant/xml/paymentService.jsp), Basic auth with the merchant code and XML password,
 * the paymentService root with the merchant code, `submit/order` with CARD-SSL, and
 * `submit/paymentTokenCreate` with shopper-scoped `TOKEN-SSL` payments, and
 * `modify/orderModification` capture, refund and cancel with Worldpay's state rules. The card
 * holder name picks the outcome as Worldpay's test "magic values" do (REFUSED, REFERRED, FRAUD,
 * ERROR; the fake reads the name's first word). State lives in memory for assertions.
 */

export interface FakeWorldpayOrder {
  orderCode: string;
  currency: string;
  exponent: string;
  amount: number;
  lastEvent: string;
  captured: number;
  refunded: number;
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, processEntities: false });

/** Holder-name magic values → [lastEvent, ISO8583 code, description]. */
const MAGIC: Record<string, [string, string | null, string | null]> = {
  REFUSED: ['REFUSED', '5', 'REFUSED'],
  REFERRED: ['REFUSED', '2', 'REFERRED'],
  FRAUD: ['REFUSED', '34', 'FRAUD SUSPICION'],
  ERROR: ['ERROR', null, null],
};

const HEAD = '<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE paymentService PUBLIC "-//WorldPay//DTD WorldPay PaymentService v1//EN" "http://dtd.worldpay.com/paymentService_v1.dtd">';

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export class FakeWorldpay {
  readonly orders = new Map<string, FakeWorldpayOrder>();
  /** paymentTokenID → shopper and card (shopper-scoped tokens). */
  readonly tokens = new Map<string, { shopper: string; card: Record<string, any> }>();

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly merchantCode: string,
    private readonly password: string,
  ) {}

  static async start(options: { merchantCode: string; password: string }): Promise<FakeWorldpay> {
    const holder: { fake?: FakeWorldpay } = {};
    const server = await FakeGatewayServer.start([{ method: 'POST', path: '/jsp/merchant/xml/paymentService.jsp', handle: (request) => (holder.fake as FakeWorldpay).handle(request) }]);
    holder.fake = new FakeWorldpay(server, options.merchantCode, options.password);
    return holder.fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private reply(inner: string): FakeAnswer {
    return { body: `${HEAD}<paymentService version="1.4" merchantCode="${escape(this.merchantCode)}"><reply>${inner}</reply></paymentService>`, contentType: 'text/xml' };
  }

  private error(code: string, message: string): FakeAnswer {
    return this.reply(`<error code="${code}"><![CDATA[${message}]]></error>`);
  }

  private handle(request: FakeRequest): FakeAnswer {
    const expected = `Basic ${Buffer.from(`${this.merchantCode}:${this.password}`).toString('base64')}`;
    if (request.headers.authorization !== expected) return { status: 401, body: '<html><body>401 Unauthorized</body></html>', contentType: 'text/html' };
    if (!request.rawBody.includes('<!DOCTYPE paymentService PUBLIC "-//WorldPay//DTD WorldPay PaymentService v1//EN"')) return this.error('2', 'Parse error: no DOCTYPE');
    const root = (parser.parse(request.rawBody) as Record<string, any>).paymentService;
    if (root?.['@_version'] !== '1.4' || root['@_merchantCode'] !== this.merchantCode) return this.error('4', 'Security violation');
    if (root.submit?.order !== undefined) return this.order(root.submit.order);
    if (root.submit?.paymentTokenCreate !== undefined) return this.createToken(root.submit.paymentTokenCreate);
    const modification = root.modify?.orderModification;
    if (modification !== undefined) return this.modify(modification);
    return this.error('5', 'Invalid request');
  }

  private createToken(create: Record<string, any>): FakeAnswer {
    const shopper = create.authenticatedShopperID as string | undefined;
    const card = create.paymentInstrument?.cardDetails as Record<string, any> | undefined;
    if (shopper === undefined || create.createToken === undefined || card === undefined || !/^\d{12,19}$/.test(String(card.cardNumber))) return this.error('5', 'Invalid content');
    // 20 digits, as Worldpay's payment token ids are.
    const id = `99${String(Date.now()).slice(-10)}${String(this.tokens.size).padStart(8, '0')}`;
    this.tokens.set(id, { shopper, card });
    return this.reply(
      `<token><authenticatedShopperID>${escape(shopper)}</authenticatedShopperID><tokenDetails tokenEvent="NEW"><paymentTokenID>${id}</paymentTokenID><paymentTokenExpiry><date dayOfMonth="1" month="1" year="2031"/></paymentTokenExpiry></tokenDetails><paymentInstrument><cardDetails><derived><cardBrand>VISA</cardBrand><obfuscatedPAN>${String(card.cardNumber).slice(0, 4)}********${String(card.cardNumber).slice(-4)}</obfuscatedPAN></derived></cardDetails></paymentInstrument></token>`,
    );
  }

  private order(order: Record<string, any>): FakeAnswer {
    const code = order['@_orderCode'] as string | undefined;
    const amount = order.amount as Record<string, string> | undefined;
    const tokenSsl = order.paymentDetails?.['TOKEN-SSL'] as Record<string, any> | undefined;
    const stored = tokenSsl === undefined ? undefined : this.tokens.get(String(tokenSsl.paymentTokenID));
    if (tokenSsl !== undefined && (stored === undefined || tokenSsl['@_tokenScope'] !== 'shopper' || order.shopper?.authenticatedShopperID !== stored.shopper)) {
      return this.error('5', 'Token not found');
    }
    const card = stored?.card ?? (order.paymentDetails?.['CARD-SSL'] as Record<string, any> | undefined);
    if (code === undefined || order.description === undefined || amount?.['@_value'] === undefined) return this.error('5', 'Invalid content: orderCode, description and amount are required');
    if (this.orders.has(code)) return this.error('5', 'Duplicate Order');
    if (card === undefined || !/^\d{12,19}$/.test(String(card.cardNumber)) || card.expiryDate?.date?.['@_year'] === undefined) {
      return this.reply(`<orderStatus orderCode="${escape(code)}"><error code="7"><![CDATA[Invalid payment details : Card number]]></error></orderStatus>`);
    }
    const magic = MAGIC[String(card.cardHolderName ?? '').split(' ')[0] ?? ''];
    const lastEvent = magic?.[0] ?? 'AUTHORISED';
    this.orders.set(code, { orderCode: code, currency: amount['@_currencyCode'] as string, exponent: amount['@_exponent'] as string, amount: Number(amount['@_value']), lastEvent, captured: 0, refunded: 0 });
    const iso = magic?.[1] ? `<ISO8583ReturnCode code="${magic[1]}" description="${magic[2]}"/>` : '';
    const cvc = card.cvc === undefined ? 'NOT SUPPLIED BY SHOPPER' : 'APPROVED';
    const avs = card.cardAddress === undefined ? 'NOT SUPPLIED BY SHOPPER' : 'A';
    const number = String(card.cardNumber);
    return this.reply(
      `<orderStatus orderCode="${escape(code)}"><payment><paymentMethod>VISA-SSL</paymentMethod><amount value="${amount['@_value']}" currencyCode="${amount['@_currencyCode']}" exponent="${amount['@_exponent']}" debitCreditIndicator="credit"/><lastEvent>${lastEvent}</lastEvent>${iso}<AuthorisationId id="${String(100000 + this.orders.size)}"/><CVCResultCode description="${cvc}"/><AVSResultCode description="${avs}"/><cardNumber>${number.slice(0, 4)}********${number.slice(-4)}</cardNumber><riskScore value="1"/></payment></orderStatus>`,
    );
  }

  private modify(modification: Record<string, any>): FakeAnswer {
    const code = modification['@_orderCode'] as string;
    const order = this.orders.get(code);
    if (order === undefined) return this.error('5', 'Could not find payment for order');
    const received = (element: string, amount?: Record<string, string>) =>
      this.reply(`<ok><${element} orderCode="${escape(code)}">${amount === undefined ? '' : `<amount value="${amount['@_value']}" currencyCode="${amount['@_currencyCode']}" exponent="${amount['@_exponent']}" debitCreditIndicator="credit"/>`}</${element}></ok>`);
    if (modification.capture !== undefined) {
      const amount = modification.capture.amount as Record<string, string>;
      if (order.lastEvent !== 'AUTHORISED') return this.error('5', 'Order not ready');
      if (Number(amount['@_value']) > order.amount || amount['@_currencyCode'] !== order.currency) return this.error('5', 'Invalid amount');
      order.captured = Number(amount['@_value']);
      order.lastEvent = 'CAPTURED';
      return received('captureReceived', amount);
    }
    if (modification.refund !== undefined) {
      const amount = modification.refund.amount as Record<string, string>;
      if (order.lastEvent !== 'CAPTURED') return this.error('5', 'Order not ready');
      if (amount['@_debitCreditIndicator'] !== 'credit' || order.refunded + Number(amount['@_value']) > order.captured) return this.error('5', 'Invalid amount');
      order.refunded += Number(amount['@_value']);
      return received('refundReceived', amount);
    }
    if (modification.cancel !== undefined) {
      if (order.lastEvent !== 'AUTHORISED') return this.error('5', 'Order not ready');
      order.lastEvent = 'CANCELLED';
      return received('cancelReceived');
    }
    return this.error('5', 'Invalid request');
  }
}
