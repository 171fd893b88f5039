import type { UpstreamPaymentMethodFields } from '../../domain/upstream.js';
import { UpstreamUnavailableError, type UpstreamEndpoint, type UpstreamHttp } from './upstream-http.js';

/** One receiver type the upstream offers (`receivers_options`). */
export interface UpstreamReceiverOption {
  receiverType: string;
  /** Fixed hostnames of a named receiver; null/empty when the merchant supplies them. */
  hostnames: string | null;
}

/** What a deliver answered: whether the upstream reached this Coffer and what it was told. */
export interface UpstreamDelivery {
  succeeded: boolean;
  /** The HTTP status the intake answered the upstream with (null when it was not reached). */
  intakeStatus: number | null;
  message: string | null;
}

/** The delivery a pull asks for (wire-reference §2.6: `delivery{…}`). */
export interface UpstreamDeliveryRequest {
  paymentMethodToken: string;
  url: string;
  headers: string;
  body: string;
}

type Json = Record<string, unknown>;

const PAGE = 100;

/**
 * The Spreedly Core API calls a live migration makes (wire-reference §2.2, §2.6, §4), in JSON:
 * show and list payment methods, receiver types, create a receiver, deliver. It speaks to any
 * Spreedly-compatible vault (Spreedly itself, another Coffer).
 */
export class UpstreamClient {
  constructor(private readonly http: UpstreamHttp) {}

  /** The upstream's non-sensitive fields of a payment method; null when the upstream does not know it. */
  async showPaymentMethod(endpoint: UpstreamEndpoint, token: string): Promise<UpstreamPaymentMethodFields | null> {
    const answer = await this.http.call(endpoint, 'GET', `/v1/payment_methods/${encodeURIComponent(token)}.json`);
    if (answer.status === 404) return null;
    const method = objectAt(answer.body, 'payment_method');
    if (answer.status !== 200 || method === null) throw new UpstreamUnavailableError(`HTTP ${answer.status} showing a payment method`);
    return fieldsOf(method);
  }

  /** One page of retained payment methods after `sinceToken`, oldest first, and whether it was the last. */
  async listRetained(endpoint: UpstreamEndpoint, sinceToken: string | null, count = PAGE): Promise<{ methods: UpstreamPaymentMethodFields[]; last: boolean }> {
    const query = new URLSearchParams({ count: String(count), order: 'asc' });
    if (sinceToken !== null) query.set('since_token', sinceToken);
    const answer = await this.http.call(endpoint, 'GET', `/v1/payment_methods.json?${query.toString()}`);
    const list = answer.body !== null && typeof answer.body === 'object' ? (answer.body as Json).payment_methods : undefined;
    if (answer.status !== 200 || !Array.isArray(list)) throw new UpstreamUnavailableError(`HTTP ${answer.status} listing payment methods`);
    const methods = list.filter((item): item is Json => item !== null && typeof item === 'object').map(fieldsOf);
    return { methods, last: list.length < count };
  }

  async receiverOptions(endpoint: UpstreamEndpoint): Promise<UpstreamReceiverOption[]> {
    const answer = await this.http.call(endpoint, 'GET', '/v1/receivers_options.json');
    const list = answer.body !== null && typeof answer.body === 'object' ? (answer.body as Json).receivers : undefined;
    if (answer.status !== 200 || !Array.isArray(list)) throw new UpstreamUnavailableError(`HTTP ${answer.status} listing receiver types`);
    return list
      .filter((item): item is Json => item !== null && typeof item === 'object')
      .map((item) => ({ receiverType: String(item.receiver_type ?? ''), hostnames: typeof item.hostnames === 'string' && item.hostnames !== '' ? item.hostnames : null }));
  }

  /** Creates a receiver of `receiverType` reaching `hostname` (scheme://host[:port]); its token. */
  async createReceiver(endpoint: UpstreamEndpoint, receiverType: string, hostname: string): Promise<string> {
    const answer = await this.http.call(endpoint, 'POST', '/v1/receivers.json', { receiver: { receiver_type: receiverType, hostnames: hostname } });
    const receiver = objectAt(answer.body, 'receiver');
    const token = receiver?.token;
    if ((answer.status !== 201 && answer.status !== 200) || typeof token !== 'string') {
      throw new UpstreamUnavailableError(`HTTP ${answer.status} creating a receiver (${firstError(answer.body)})`);
    }
    return token;
  }

  /**
   * Asks the upstream to deliver one payment method through `receiverToken`. `continue_caching`
   * keeps a CVV the upstream may hold: the migration must not change the upstream's cards.
   * A 404 means the upstream does not hold the token (or the receiver): null.
   */
  async deliver(endpoint: UpstreamEndpoint, receiverToken: string, delivery: UpstreamDeliveryRequest): Promise<UpstreamDelivery | null> {
    const answer = await this.http.call(endpoint, 'POST', `/v1/receivers/${encodeURIComponent(receiverToken)}/deliver.json`, {
      delivery: {
        payment_method_token: delivery.paymentMethodToken,
        url: delivery.url,
        headers: delivery.headers,
        body: delivery.body,
        request_method: 'POST',
        continue_caching: true,
      },
    });
    if (answer.status === 404) return null;
    const transaction = objectAt(answer.body, 'transaction');
    if (transaction === null) return { succeeded: false, intakeStatus: null, message: firstError(answer.body) };
    const response = transaction.response !== null && typeof transaction.response === 'object' ? (transaction.response as Json) : {};
    return {
      succeeded: transaction.succeeded === true,
      intakeStatus: typeof response.status === 'number' ? response.status : null,
      message: typeof transaction.message === 'string' ? transaction.message : null,
    };
  }
}

function objectAt(body: unknown, key: string): Json | null {
  if (body === null || typeof body !== 'object') return null;
  const value = (body as Json)[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
}

function firstError(body: unknown): string {
  const errors = body !== null && typeof body === 'object' ? (body as Json).errors : undefined;
  const first = Array.isArray(errors) ? (errors[0] as Json | undefined) : undefined;
  return typeof first?.message === 'string' ? first.message.slice(0, 200) : 'no message';
}

const ADDRESS_FIELDS = ['address1', 'address2', 'city', 'state', 'zip', 'country', 'phone_number', 'company', 'shipping_address1', 'shipping_address2', 'shipping_city', 'shipping_state', 'shipping_zip', 'shipping_country', 'shipping_phone_number'];

/** The non-sensitive fields kept from the upstream's view (never its masked number or fingerprint). */
function fieldsOf(method: Json): UpstreamPaymentMethodFields {
  const str = (value: unknown) => (typeof value === 'string' ? value : null);
  const int = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : null);
  const address: Record<string, string | null> = {};
  for (const field of ADDRESS_FIELDS) if (field in method) address[field] = str(method[field]);
  const metadata = method.metadata !== null && typeof method.metadata === 'object' && !Array.isArray(method.metadata) ? (method.metadata as Record<string, unknown>) : null;
  return {
    token: String(method.token ?? ''),
    paymentMethodType: str(method.payment_method_type) ?? 'credit_card',
    storageState: str(method.storage_state) ?? 'retained',
    email: str(method.email),
    createdAt: str(method.created_at),
    metadata,
    data: method.data ?? null,
    firstName: str(method.first_name),
    lastName: str(method.last_name),
    month: int(method.month),
    year: int(method.year),
    address,
    eligibleForCardUpdater: typeof method.eligible_for_card_updater === 'boolean' ? method.eligible_for_card_updater : null,
    bankName: str(method.bank_name),
    accountType: str(method.account_type),
    accountHolderType: str(method.account_holder_type),
    thirdPartyToken: str(method.third_party_token),
    gatewayType: str(method.gateway_type),
  };
}
