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
] as const;

export type Characteristic = (typeof CHARACTERISTICS)[number];

/** A credential field a gateway type needs. `safe` ones may be echoed back; the rest never are. */
export interface CredentialField {
  name: string;
  label: string;
  safe: boolean;
  /** A multi-line value such as a PEM. */
  large?: boolean;
}

export interface AuthMode {
  authModeType: string;
  name: string;
  credentials: CredentialField[];
}

/** What Coffer knows about one gateway type: everything views and validation need. */
export interface GatewayDefinition {
  gatewayType: string;
  name: string;
  /** True only for the built-in test gateway: usable in test environments, test cards only. */
  test: boolean;
  authModes: AuthMode[];
  characteristics: ReadonlySet<Characteristic>;
  paymentMethods: string[];
  gatewaySpecificFields: string[];
  supportedCountries: string[];
  supportedCardtypes: string[];
  regions: string[];
  homepage: string;
  displayApiUrl: string;
  companyName: string;
  /** One capture settles the authorization (the gateway releases the rest), so a second is refused. */
  capturesAreFinal: boolean;
}
