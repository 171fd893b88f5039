import type { PaymentMethodRow } from '../store/repositories/payment-methods.repo.js';

/** Payment method kinds Coffer vaults. `sprel` is Spreedly's offsite test method (no sensitive data). */
export const PAYMENT_METHOD_TYPES = ['credit_card', 'bank_account', 'third_party_token', 'sprel'] as const;
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
  email?: string;
  data?: unknown;
  metadata?: unknown;
  callbackUrl?: string;
  retained: boolean;
  singleUse: boolean;
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

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type PaymentMethod = PaymentMethodRow;
