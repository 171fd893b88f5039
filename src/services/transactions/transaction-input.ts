import type { RequestMeta } from '../../domain/request.js';
import type { ShippingAddress } from '../../gateways/kit/index.js';
import type { PaymentMethodCreateInput } from '../../domain/payment-method.js';

/** The common body of every gateway and reference transaction, coerced but not yet validated. */
export interface TransactionInput {
  /** The API request this transaction serves: its id is stamped on the events (docs/events.md). Not part of the body. */
  request?: RequestMeta | undefined;
  amount?: number | undefined;
  /** Set when `amount` was sent but is not an integer (so it can be refused, not defaulted). */
  amountInvalid?: boolean;
  currencyCode?: string | undefined;
  paymentMethodToken?: string | undefined;
  /** An inline credit_card or bank_account, vaulted as a new cached payment method. */
  inlinePaymentMethod?: PaymentMethodCreateInput | undefined;
  retainOnSuccess: boolean;
  orderId?: string | undefined;
  description?: string | undefined;
  ip?: string | undefined;
  email?: string | undefined;
  merchantNameDescriptor?: string | undefined;
  merchantLocationDescriptor?: string | undefined;
  gatewaySpecificFields?: Record<string, unknown> | undefined;
  shippingAddress?: Partial<ShippingAddress> | undefined;
  attempt3dsecure: boolean;
  threeDsVersion?: string | undefined;
  browserInfo?: string | undefined;
  redirectUrl?: string | undefined;
  /** Where the outcome of an asynchronous finish is POSTed, and in which format (xml default). */
  callbackUrl?: string | undefined;
  callbackFormat?: 'xml' | 'json' | undefined;
  /** Spreedly's stored-credential pair; used only when both are sent. */
  storedCredentialInitiator?: 'merchant' | 'cardholder' | undefined;
  storedCredentialReasonType?: 'recurring' | 'unscheduled' | 'installment' | undefined;
}
