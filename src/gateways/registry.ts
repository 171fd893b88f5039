import { CHARACTERISTICS, type Characteristic, type GatewayDefinition } from './types.js';

const ALL_CARD_TYPES = ['visa', 'master', 'american_express', 'discover', 'diners_club', 'jcb', 'maestro', 'unionpay'];

const testGateway: GatewayDefinition = {
  gatewayType: 'test',
  name: 'Spreedly Test',
  test: true,
  authModes: [{ authModeType: 'default', name: 'Default', credentials: [] }],
  characteristics: new Set<Characteristic>(CHARACTERISTICS),
  paymentMethods: ['credit_card', 'sprel', 'third_party_token', 'bank_account', 'apple_pay', 'google_pay'],
  gatewaySpecificFields: [],
  supportedCountries: [],
  supportedCardtypes: ALL_CARD_TYPES,
  regions: [],
  homepage: '',
  displayApiUrl: '',
  companyName: 'Coffer',
  capturesAreFinal: false,
};

const stripeGateway: GatewayDefinition = {
  gatewayType: 'stripe',
  name: 'Stripe',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Default',
      credentials: [{ name: 'login', label: 'Secret Key', safe: false }],
    },
  ],
  characteristics: new Set<Characteristic>([
    'supports_purchase',
    'supports_authorize',
    'supports_capture',
    'supports_credit',
    'supports_void',
    'supports_verify',
    'supports_purchase_via_preauthorization',
    'supports_store',
    'supports_remove',
  ]),
  paymentMethods: ['credit_card', 'third_party_token', 'apple_pay', 'google_pay'],
  gatewaySpecificFields: [],
  supportedCountries: ['AT', 'AU', 'BE', 'CA', 'CH', 'DE', 'DK', 'ES', 'FI', 'FR', 'GB', 'IE', 'IT', 'JP', 'LU', 'NL', 'NO', 'NZ', 'PT', 'SE', 'SG', 'US'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'diners_club', 'jcb', 'unionpay'],
  regions: ['asia_pacific', 'europe', 'north_america'],
  homepage: 'https://stripe.com/',
  displayApiUrl: 'https://api.stripe.com/v1',
  companyName: 'Stripe',
  // Without multicapture a Stripe capture is final: the uncaptured rest is released.
  capturesAreFinal: true,
};

/**
 * Every gateway type Coffer can create, keyed by `gateway_type`. Explicit on purpose: no
 * scanning or decorators, so what exists is what is written here.
 */
export const GATEWAY_REGISTRY: Readonly<Record<string, GatewayDefinition>> = {
  test: testGateway,
  stripe: stripeGateway,
};

export function findGatewayDefinition(gatewayType: string): GatewayDefinition | undefined {
  return Object.hasOwn(GATEWAY_REGISTRY, gatewayType) ? GATEWAY_REGISTRY[gatewayType] : undefined;
}

/** Every credential field of every auth mode of a type, by name (a type's modes may overlap). */
export function credentialFields(definition: GatewayDefinition): Map<string, { safe: boolean }> {
  const fields = new Map<string, { safe: boolean }>();
  for (const mode of definition.authModes) for (const field of mode.credentials) fields.set(field.name, { safe: field.safe });
  return fields;
}
