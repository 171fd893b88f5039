import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake CyberSource REST Payments API on 127.0.0.1: it checks every request's HTTP Signature the
 * way CyberSource documents it (refusing a bad one with 401 "Authentication Failed"), keeps
 * payments, captures and refunds in memory, and answers with the shapes of CyberSource's API
 * reference examples. Card numbers pick declines; `queue()` serves a canned answer next.
 */

export const DECLINE_CARDS: Readonly<Record<string, { reason: string; message: string }>> = {
  '4000000000000002': { reason: 'PROCESSOR_DECLINED', message: 'Decline - General decline of the card. No other information provided by the issuing bank.' },
  '4000000000009995': { reason: 'INSUFFICIENT_FUND', message: 'Decline - Insufficient funds in the account.' },
  '4000000000000069': { reason: 'EXPIRED_CARD', message: 'Decline - Expired card. You might also receive this if the expiration date you provided does not match the date the issuing bank has on file.' },
};

interface Payment {
  id: string;
  amount: string;
  currency: string;
  captured: boolean;
  reversed: boolean;
  body: Record<string, any>;
}

export interface FakeCyberSource {
  fake: FakeGatewayServer;
  url: string;
  payments: Map<string, Payment>;
  /** Follow-on resources (captures, refunds, reversals, voids) by id, with the id they refer to. */
  followOns: Map<string, { kind: string; parent: string; body: Record<string, any> }>;
  /** Requests refused for their signature. */
  refused: FakeRequest[];
  /** Answers the next signed request with this (status 201 unless given). */
  queue(answer: FakeAnswer): void;
  close(): Promise<void>;
}

const UNAUTHORIZED: FakeAnswer = { status: 401, json: { response: { rmsg: 'Authentication Failed' } } };

/** Checks a request's Signature as CyberSource does; the reason it fails, or null. */
export function signatureProblem(request: FakeRequest, merchantId: string, keys: Readonly<Record<string, string>>): string | null {
  const header = request.headers.signature;
  if (header === undefined) return 'no signature';
  const params = Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1], match[2]]));
  const secret = keys[params.keyid ?? ''];
  if (secret === undefined) return 'unknown keyid';
  if (params.algorithm !== 'HmacSHA256') return 'algorithm';
  if (request.headers['v-c-merchant-id'] !== merchantId) return 'merchant id';
  const post = request.method === 'POST';
  const expectedNames = post ? 'host date request-target digest v-c-merchant-id' : 'host date request-target v-c-merchant-id';
  if (params.headers !== expectedNames) return 'signed headers';
  if (post && request.headers.digest !== `SHA-256=${createHash('sha256').update(request.rawBody).digest('base64')}`) return 'digest';
  const date = Date.parse(request.headers.date ?? '');
  if (Number.isNaN(date) || Math.abs(Date.now() - date) > 5 * 60_000) return 'date';
  const values: Record<string, string | undefined> = { ...request.headers, 'request-target': `${request.method.toLowerCase()} ${request.path}` };
  const signingString = expectedNames
    .split(' ')
    .map((name) => `${name}: ${values[name] ?? ''}`)
    .join('\n');
  const expected = createHmac('sha256', Buffer.from(secret, 'base64')).update(signingString).digest();
  const given = Buffer.from(params.signature ?? '', 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected) ? null : 'signature';
}

let sequence = 0;
/** A 22-digit id like CyberSource's. */
function newId(): string {
  sequence += 1;
  return `67500000000000${String(sequence).padStart(8, '0')}`;
}

const link = (href: string) => ({ method: 'POST', href });

export async function startFakeCyberSource(merchantId: string, keys: Readonly<Record<string, string>>): Promise<FakeCyberSource> {
  const payments = new Map<string, Payment>();
  const followOns = new Map<string, { kind: string; parent: string; body: Record<string, any> }>();
  const stored = new Map<string, { customer: string; card: Record<string, any> }>();
  const refused: FakeRequest[] = [];
  const canned: FakeAnswer[] = [];

  const signed = (handle: (request: FakeRequest, params: string[]) => FakeAnswer) => (request: FakeRequest, params: string[]) => {
    if (signatureProblem(request, merchantId, keys) !== null) {
      refused.push(request);
      return UNAUTHORIZED;
    }
    const next = canned.shift();
    if (next !== undefined) return { status: 201, ...next };
    return handle(request, params);
  };

  const invalid = (reason: string, message: string): FakeAnswer => ({ status: 400, json: { submitTimeUtc: new Date().toISOString().slice(0, 19) + 'Z', status: 'INVALID_REQUEST', reason, message } });

  function authorize(request: FakeRequest): FakeAnswer {
    const body = jsonOf(request) as Record<string, any>;
    const amount = body.orderInformation?.amountDetails;
    if (amount?.totalAmount === undefined || amount.currency === undefined) return invalid('MISSING_FIELD', 'Declined - The request is missing one or more fields');
    let card = body.paymentInformation?.card;
    if (body.paymentInformation?.paymentInstrument?.id !== undefined) {
      const instrument = stored.get(body.paymentInformation.paymentInstrument.id);
      if (instrument === undefined || instrument.customer !== body.paymentInformation.customer?.id) return invalid('INVALID_DATA', 'Declined - One or more fields in the request contains invalid data');
      card = instrument.card;
    }
    if (card?.number === undefined || card.expirationMonth === undefined || card.expirationYear === undefined) {
      return invalid('MISSING_FIELD', 'Declined - The request is missing one or more fields');
    }
    const id = newId();
    const decline = DECLINE_CARDS[card.number as string];
    if (decline !== undefined) {
      return {
        status: 201,
        json: {
          _links: { self: { method: 'GET', href: `/pts/v2/payments/${id}` } },
          clientReferenceInformation: { code: body.clientReferenceInformation?.code },
          errorInformation: { reason: decline.reason, message: decline.message },
          id,
          paymentInformation: { card: { type: '001' } },
          pointOfSaleInformation: { terminalId: '111111' },
          processorInformation: { responseCode: '05', avs: { code: 'N', codeRaw: 'N' } },
          status: 'DECLINED',
          submitTimeUtc: '2024-05-01T21:15:35Z',
        },
      };
    }
    payments.set(id, { id, amount: amount.totalAmount, currency: amount.currency, captured: body.processingInformation?.capture === true, reversed: false, body });
    const tokens: Record<string, unknown> = {};
    if (body.processingInformation?.actionList?.includes('TOKEN_CREATE')) {
      const customer = `1A${newId()}E053AF598E0A`;
      const instrument = `1B${newId()}E053AF598E0A`;
      stored.set(instrument, { customer, card });
      Object.assign(tokens, {
        tokenInformation: {
          instrumentIdentifierNewState: 'NEW',
          instrumentIdentifier: { state: 'ACTIVE', id: `7010000000${newId().slice(-6)}1111` },
          paymentInstrument: { id: instrument },
          customer: { id: customer },
        },
      });
    }
    return {
      status: 201,
      json: {
        _links: body.processingInformation?.capture
          ? { void: link(`/pts/v2/payments/${id}/voids`), self: { method: 'GET', href: `/pts/v2/payments/${id}` } }
          : { authReversal: link(`/pts/v2/payments/${id}/reversals`), self: { method: 'GET', href: `/pts/v2/payments/${id}` }, capture: link(`/pts/v2/payments/${id}/captures`) },
        clientReferenceInformation: { code: body.clientReferenceInformation?.code },
        id,
        orderInformation: { amountDetails: { authorizedAmount: amount.totalAmount, currency: amount.currency } },
        paymentAccountInformation: { card: { type: '001' } },
        paymentInformation: { tokenizedCard: { type: '001' }, card: { type: '001' } },
        pointOfSaleInformation: { terminalId: '111111' },
        processorInformation: {
          approvalCode: '888888',
          networkTransactionId: '123456789619999',
          transactionId: '123456789619999',
          responseCode: '100',
          avs: { code: 'Y', codeRaw: 'Y' },
          ...(card.securityCode === undefined ? {} : { cardVerification: { resultCode: 'M', resultCodeRaw: 'M' } }),
        },
        reconciliationId: '78243988SD9YL291',
        status: 'AUTHORIZED',
        submitTimeUtc: '2023-01-29T17:13:31Z',
        ...tokens,
      },
    };
  }

  function followOn(kind: 'captures' | 'refunds', request: FakeRequest, parent: string, resource: 'payments' | 'captures'): FakeAnswer {
    const body = jsonOf(request) as Record<string, any>;
    const payment = resource === 'payments' ? payments.get(parent) : payments.get(followOns.get(parent)?.parent ?? '');
    if (payment === undefined || (resource === 'captures' && followOns.get(parent)?.kind !== 'captures')) return invalid('INVALID_DATA', 'Declined - One or more fields in the request contains invalid data');
    if (payment.reversed) return invalid('AUTH_ALREADY_REVERSED', 'Declined - The authorization has already been reversed.');
    if (kind === 'captures' && payment.captured) return invalid('TRANSACTION_ALREADY_SETTLED', 'Declined - The transaction has already been settled.');
    if (kind === 'refunds' && !payment.captured) return invalid('INVALID_DATA', 'Declined - One or more fields in the request contains invalid data');
    const amount = body.orderInformation?.amountDetails;
    if (amount?.totalAmount === undefined) return invalid('MISSING_FIELD', 'Declined - The request is missing one or more fields');
    if (Number(amount.totalAmount) > Number(payment.amount)) return invalid(kind === 'captures' ? 'EXCEEDS_AUTH_AMOUNT' : 'INVALID_AMOUNT', 'Declined - The requested amount exceeds the originally authorized amount.');
    if (kind === 'captures') payment.captured = true;
    const id = newId();
    followOns.set(id, { kind, parent: payment.id, body });
    const voidPath = kind === 'captures' ? `/pts/v2/captures/${id}/voids` : `/pts/v2/refunds/${id}/voids`;
    return {
      status: 201,
      json: {
        _links: { void: link(voidPath), self: { method: 'GET', href: `/pts/v2/${kind}/${id}` } },
        clientReferenceInformation: { code: body.clientReferenceInformation?.code },
        id,
        ...(kind === 'captures' ? { orderInformation: { amountDetails: { totalAmount: amount.totalAmount, currency: amount.currency } } } : { refundAmountDetails: { currency: amount.currency, refundAmount: amount.totalAmount } }),
        reconciliationId: '66535942B9CGT52U',
        status: 'PENDING',
        submitTimeUtc: '2022-10-20T20:57:23Z',
      },
    };
  }

  const fake = await FakeGatewayServer.start([
    { method: 'POST', path: '/pts/v2/payments', handle: signed(authorize) },
    { method: 'POST', path: /^\/pts\/v2\/payments\/([^/]+)\/captures$/, handle: signed((request, [id]) => followOn('captures', request, id ?? '', 'payments')) },
    { method: 'POST', path: /^\/pts\/v2\/payments\/([^/]+)\/refunds$/, handle: signed((request, [id]) => followOn('refunds', request, id ?? '', 'payments')) },
    { method: 'POST', path: /^\/pts\/v2\/captures\/([^/]+)\/refunds$/, handle: signed((request, [id]) => followOn('refunds', request, id ?? '', 'captures')) },
    {
      method: 'POST',
      path: /^\/pts\/v2\/payments\/([^/]+)\/reversals$/,
      handle: signed((request, [id]) => {
        const body = jsonOf(request) as Record<string, any>;
        const payment = payments.get(id ?? '');
        if (payment === undefined) return invalid('INVALID_DATA', 'Declined - One or more fields in the request contains invalid data');
        if (payment.reversed || payment.captured) return invalid('TRANSACTION_ALREADY_REVERSED_OR_SETTLED', 'Declined - The transaction has already been reversed or settled.');
        const total = body.reversalInformation?.amountDetails?.totalAmount;
        if (total !== payment.amount) return invalid('INVALID_AMOUNT', 'Declined - The reversal amount must match the authorized amount.');
        payment.reversed = true;
        const reversal = newId();
        followOns.set(reversal, { kind: 'reversals', parent: payment.id, body });
        return {
          status: 201,
          json: {
            _links: { self: { method: 'GET', href: `/pts/v2/reversals/${reversal}` } },
            clientReferenceInformation: { code: body.clientReferenceInformation?.code },
            id: reversal,
            orderInformation: { amountDetails: { currency: payment.currency } },
            processorInformation: { responseCode: '200' },
            reconciliationId: '82kBK3qDNtls',
            reversalAmountDetails: { reversedAmount: payment.amount, currency: payment.currency },
            status: 'REVERSED',
            submitTimeUtc: '2023-06-16T20:07:02Z',
          },
        };
      }),
    },
    {
      method: 'POST',
      path: '/pts/v2/credits',
      handle: signed((request) => {
        const body = jsonOf(request) as Record<string, any>;
        const amount = body.orderInformation?.amountDetails;
        if (body.paymentInformation?.card?.number === undefined || amount?.totalAmount === undefined) return invalid('MISSING_FIELD', 'Declined - The request is missing one or more fields');
        const id = newId();
        followOns.set(id, { kind: 'credits', parent: '', body });
        return {
          status: 201,
          json: {
            _links: { void: link(`/pts/v2/credits/${id}/voids`), self: { method: 'GET', href: `/pts/v2/credits/${id}` } },
            clientReferenceInformation: { code: body.clientReferenceInformation?.code },
            creditAmountDetails: { currency: amount.currency, creditAmount: amount.totalAmount },
            id,
            paymentAccountInformation: { card: { type: '001' } },
            paymentInformation: { tokenizedCard: { type: '001' }, card: { type: '001' } },
            processorInformation: { approvalCode: '888888', responseCode: '100' },
            reconciliationId: '71183995FDU0YRTK',
            status: 'PENDING',
            submitTimeUtc: '2023-01-29T17:13:31Z',
          },
        };
      }),
    },
    {
      method: 'POST',
      path: /^\/pts\/v2\/(payments|captures|refunds|credits)\/([^/]+)\/voids$/,
      handle: signed((request, [resource, id]) => {
        const body = jsonOf(request) as Record<string, any>;
        const known = resource === 'payments' ? payments.get(id ?? '')?.captured === true : followOns.get(id ?? '')?.kind === resource;
        if (!known) return invalid('NOT_VOIDABLE', 'Declined - The capture or credit is not voidable because the capture or credit information has already been submitted to your processor.');
        const voidId = newId();
        followOns.set(voidId, { kind: 'voids', parent: id ?? '', body });
        return {
          status: 201,
          json: {
            _links: { self: { method: 'GET', href: `/pts/v2/voids/${voidId}` } },
            clientReferenceInformation: { code: body.clientReferenceInformation?.code },
            id: voidId,
            status: 'VOIDED',
            submitTimeUtc: '2023-06-16T20:07:02Z',
            voidAmountDetails: { currency: 'usd', voidAmount: '102.21' },
          },
        };
      }),
    },
  ]);
  return {
    fake,
    url: fake.url,
    payments,
    followOns,
    refused,
    queue: (answer) => canned.push(answer),
    close: () => fake.close(),
  };
}
