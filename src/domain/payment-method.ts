/**
 * Payment method kinds Coffer vaults. `sprel` is Spreedly's offsite test method (no sensitive data);
 * `apple_pay` and `google_pay` are decrypted wallet tokens (docs/wallets.md).
 */
export const PAYMENT_METHOD_TYPES = ['credit_card', 'bank_account', 'third_party_token', 'sprel', 'apple_pay', 'google_pay'] as const;
export type PaymentMethodType = (typeof PAYMENT_METHOD_TYPES)[number];

/** API.md §5 storage states. */
export const STORAGE_STATES = ['cached', 'retained', 'redacted', 'used', 'closed'] as const;
export type StorageState = (typeof STORAGE_STATES)[number];

/** States a payment method can still be used (and updated, retained, recached) in. */
export const USABLE_STATES: readonly StorageState[] = ['cached', 'retained'];

/** Billing address and contact fields of a card, in wire order. */
export const CARD_ADDRESS_FIELDS = ['address1', 'address2', 'city', 'state', 'zip', 'country', 'phone_number', 'company'] as const;

/** Shipping fields of a card, in wire order. */
export const CARD_SHIPPING_FIELDS = [
  'shipping_address1',
  'shipping_address2',
  'shipping_city',
  'shipping_state',
  'shipping_zip',
  'shipping_country',
  'shipping_phone_number',
] as const;

/** Non-sensitive card fields a client may set, as Spreedly names them. */
export const CARD_TEXT_FIELDS = ['first_name', 'last_name', ...CARD_ADDRESS_FIELDS, ...CARD_SHIPPING_FIELDS] as const;
export type CardTextField = (typeof CARD_TEXT_FIELDS)[number];

/** A credit card as submitted (after coercion); nothing here is validated yet. */
export interface CardInput extends Partial<Record<CardTextField, string>> {
  number?: string;
  verification_value?: string;
  full_name?: string;
  month?: number;
  year?: number;
  eligible_for_card_updater?: boolean;
}

export interface BankAccountInput {
  first_name?: string;
  last_name?: string;
  full_name?: string;
  bank_name?: string;
  bank_routing_number?: string;
  bank_account_number?: string;
  bank_account_type?: string;
  bank_account_holder_type?: string;
}

export interface ThirdPartyTokenInput {
  reference?: string;
  gateway_type?: string;
}

/** The wallet kinds: their payment methods come from a wallet's payment token, decrypted in the vault. */
export const WALLET_TYPES = ['apple_pay', 'google_pay'] as const;
export type WalletType = (typeof WALLET_TYPES)[number];

export function isWalletType(type: string | null | undefined): type is WalletType {
  return type === 'apple_pay' || type === 'google_pay';
}

/**
 * `apple_pay{payment_data, test_card_number}` / `google_pay{…}` as submitted: the token (the
 * wallet's payment data, an object or its JSON text) or, in test environments, a test card number.
 */
export interface WalletInput {
  paymentData?: unknown;
  testCardNumber?: string;
}

/** Metadata: at most 25 flat keys (≤ 50 characters) with scalar values (text ≤ 500 characters). */
export type Metadata = Record<string, string | number | boolean>;

/** Flags that relax validation, per request. */
export interface ValidationAllowances {
  allowBlankName: boolean;
  allowExpiredDate: boolean;
  allowBlankDate: boolean;
}

/** Everything `POST payment_methods` may carry. */
export interface PaymentMethodCreateInput extends ValidationAllowances {
  type: PaymentMethodType | null;
  card?: CardInput;
  bankAccount?: BankAccountInput;
  thirdParty?: ThirdPartyTokenInput;
  wallet?: WalletInput;
  email?: string;
  data?: unknown;
  metadata?: unknown;
  callbackUrl?: string;
  retained: boolean;
  /** Used up by its first transaction; when not said, wallet methods are and the others are not. */
  singleUse?: boolean;
}

/** What `PUT payment_methods/<t>` may change: non-sensitive fields only. */
export interface PaymentMethodUpdateInput extends ValidationAllowances {
  fields: Partial<Record<CardTextField | 'full_name' | 'bank_name' | 'bank_account_type' | 'bank_account_holder_type', string>>;
  month?: number;
  year?: number;
  eligibleForCardUpdater?: boolean;
  email?: string;
  data?: unknown;
  metadata?: unknown;
  callbackUrl?: string;
}

/** A value of a payment method's details: what the stored JSON holds. */
export type DetailValue = string | number | boolean | null;

/**
 * The network transaction id a cardholder-initiated charge returned, kept (whatever the kind) for
 * the merchant-initiated charges that follow (stored credentials).
 */
export type KeptNetworkTransactionId = { network_transaction_id?: string | null };

/** Names and addresses of a card: the fields of `CARD_TEXT_FIELDS`, each null when not given. */
type CardTextDetails = { [Field in CardTextField]: string | null };

/**
 * The non-sensitive fields of a card, named as the wire names them (wire-reference §3.2). The PAN
 * and CVV are never here: they are sealed (`SealedPaymentMethodFields`). Redaction drops the
 * first six digits and the issuer identification number (`payment-method-records.ts`).
 */
export type CardDetails = CardTextDetails & {
  card_type: string | null;
  month: number | null;
  year: number | null;
  first_six_digits?: string | null;
  last_four_digits: string | null;
  issuer_identification_number?: string | null;
  eligible_for_card_updater: boolean | null;
} & KeptNetworkTransactionId;

/** The non-sensitive fields of a bank account; redaction drops the routing number's display digits. */
export type BankAccountDetails = {
  first_name: string | null;
  last_name: string | null;
  bank_name: string | null;
  account_type: string | null;
  account_holder_type: string | null;
  routing_number_display_digits?: string | null;
  account_number_display_digits: string | null;
} & KeptNetworkTransactionId;

/** A token of another vault (a gateway's), and the gateway type that issued it. */
export type ThirdPartyTokenDetails = {
  third_party_token: string | null;
  gateway_type: string | null;
} & KeptNetworkTransactionId;

/**
 * A decrypted wallet token: the card fields of its device account number (DPAN) or, for a Google
 * Pay `PAN_ONLY` token, of its card number, as a card shows them; no address. `wallet_auth_method`
 * says which: `network_token` (a DPAN with a cryptogram) or `pan_only` (a plain card). The number,
 * cryptogram and ECI are sealed (`SealedPaymentMethodFields.number` and `.cvv`).
 */
export type WalletDetails = CardDetails & { wallet_auth_method: 'network_token' | 'pan_only' };

/** An offsite test method (`sprel`) has no details of its own. */
export type SprelDetails = KeptNetworkTransactionId;

/** The details each kind of payment method has. */
export interface PaymentMethodDetailsByType {
  credit_card: CardDetails;
  bank_account: BankAccountDetails;
  third_party_token: ThirdPartyTokenDetails;
  sprel: SprelDetails;
  apple_pay: WalletDetails;
  google_pay: WalletDetails;
}

export type PaymentMethodDetails = PaymentMethodDetailsByType[PaymentMethodType];

/**
 * Sensitive values sealed with the environment's data key (src/vault/README.md): opaque
 * ciphertext that only the sealer opens; null when absent or destroyed (redaction). A wallet
 * method keeps its DPAN in `number` and its single-use cryptogram and ECI in `cvv`, which is
 * dropped as a CVV is: at the first transaction, or when the caching window ends.
 */
export interface SealedPaymentMethodFields {
  number: string | null;
  cvv: string | null;
  routingNumber: string | null;
  accountNumber: string | null;
}

/** Free-form JSON a client stored (`data`), parsed. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * What every kind of payment method has. Timestamps are ISO-8601 UTC text (the wire's format),
 * which sorts as text: windows are compared as strings (`cvvExpiresAt <= now`).
 */
export interface PaymentMethodFields {
  token: string;
  environmentKey: string;
  storageState: StorageState;
  /** Holds test data (a test card, bank account or test gateway token): for test gateways only, as real data is for real ones. */
  test: boolean;
  singleUse: boolean;
  email: string | null;
  /** Returned as sent (object or string); null when none was sent. */
  data: JsonValue | null;
  metadata: Metadata | null;
  callbackUrl: string | null;
  sealed: SealedPaymentMethodFields;
  /** HMAC of the PAN under the environment's fingerprint key (hex); null once redacted. */
  fingerprint: string | null;
  /** Length of the held CVV (for its mask); null when none is held. */
  cvvLength: number | null;
  /** When a held CVV must be dropped. */
  cvvExpiresAt: string | null;
  /** For cached methods: when the sweep redacts them. */
  cacheExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A payment method's kind and the details of that kind, together (narrow on `paymentMethodType`). */
export type PaymentMethodKind = { [Type in PaymentMethodType]: { paymentMethodType: Type; details: PaymentMethodDetailsByType[Type] } }[PaymentMethodType];

/** A vaulted payment method (API.md §5). */
export type PaymentMethod = PaymentMethodFields & PaymentMethodKind;

/** A payment method to store: what is not given is none (nothing sealed, no fingerprint, no windows). */
export type NewPaymentMethod = Omit<PaymentMethodFields, 'sealed' | 'fingerprint' | 'cvvLength' | 'cvvExpiresAt' | 'cacheExpiresAt'> &
  Partial<Pick<PaymentMethodFields, 'fingerprint' | 'cvvLength' | 'cvvExpiresAt' | 'cacheExpiresAt'>> & { sealed?: Partial<SealedPaymentMethodFields> } & PaymentMethodKind;

/**
 * A change of a stored payment method: the fields given are set (a sealed value given as null is
 * destroyed), the others kept. Its kind and token never change.
 */
export interface PaymentMethodPatch extends Partial<Omit<PaymentMethodFields, 'token' | 'environmentKey' | 'createdAt' | 'sealed'>> {
  details?: PaymentMethodDetails;
  sealed?: Partial<SealedPaymentMethodFields>;
}
