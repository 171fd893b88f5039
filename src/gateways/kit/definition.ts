import type { AdapterPaymentMethod } from './contract.js';

/** Every capability flag a gateway declares (`characteristics` in views), in wire order. */
export const CHARACTERISTICS = [
  'supports_purchase',
  'supports_authorize',
  'supports_capture',
  'supports_credit',
  'supports_general_credit',
  'supports_void',
  'supports_adjust',
  'supports_verify',
  'supports_reference_purchase',
  'supports_purchase_via_preauthorization',
  'supports_offsite_purchase',
  'supports_offsite_authorize',
  'supports_3dsecure_purchase',
  'supports_3dsecure_authorize',
  'supports_3dsecure_2_purchase',
  'supports_3dsecure_2_authorize',
  'supports_3dsecure_2_mpi_purchase',
  'supports_3dsecure_2_mpi_authorize',
  'supports_store',
  'supports_remove',
  'supports_fraud_review',
  'supports_populate_mit_fields',
  // Coffer's own (docs/events.md): the gateway can be asked what became of a call whose result is unknown.
  'supports_reconciliation',
] as const;

export type Characteristic = (typeof CHARACTERISTICS)[number];

/** A credential field a gateway type needs. `safe` ones may be echoed back; the rest never are. */
export interface CredentialField {
  name: string;
  label: string;
  safe: boolean;
  /** A multi-line value such as a PEM. */
  large?: boolean;
  /** May be left out when creating the gateway. */
  optional?: boolean;
  /** Required unless the gateway is created with `sandbox: true` (e.g. a live URL prefix only live calls use). */
  liveOnly?: boolean;
}

export interface AuthMode {
  authModeType: string;
  name: string;
  credentials: CredentialField[];
}

/**
 * A kind of payment method a gateway can be sent: only kinds `POST /v1/payment_methods` accepts and
 * adapters receive, so a gateway cannot advertise one (apple_pay, sprel…) a client could never use.
 */
export type PaymentMethodKind = AdapterPaymentMethod['type'];

/**
 * What Coffer knows about one gateway type: everything views and validation need. Built by
 * `defineGateway` from a gateway module; `characteristics` is derived, never written by hand.
 */
export interface GatewayDefinition<Type extends string = string> {
  gatewayType: Type;
  name: string;
  /** True only for the built-in test gateway: usable in test environments, test cards only. */
  test: boolean;
  authModes: readonly AuthMode[];
  characteristics: ReadonlySet<Characteristic>;
  paymentMethods: readonly PaymentMethodKind[];
  gatewaySpecificFields: readonly string[];
  supportedCountries: readonly string[];
  supportedCardtypes: readonly string[];
  regions: readonly string[];
  homepage: string;
  displayApiUrl: string;
  companyName: string;
  /** One capture settles the authorization (the gateway releases the rest), so a second is refused. */
  capturesAreFinal: boolean;
}
