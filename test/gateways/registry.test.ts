import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHARACTERISTICS, defineGateway, deriveCharacteristics, FEATURE_NEEDS, type GatewayOperation } from '../../src/gateways/kit/index.js';
import { findGatewayDefinition, GATEWAYS, gatewayDefinitions } from '../../src/gateways/registry.js';

/**
 * The registry is the one list of gateways: what each advertises must be exactly what its module
 * implements, and each real gateway ships its documentation page, its adapter test and its e2e test.
 */

const SPEC_BASE = {
  name: 'Example',
  test: false,
  authModes: [],
  paymentMethods: ['credit_card'] as const,
  gatewaySpecificFields: [],
  supportedCountries: [],
  supportedCardtypes: [],
  regions: [],
  homepage: '',
  displayApiUrl: '',
  companyName: '',
  capturesAreFinal: false,
  endpoint: null,
};

describe('gateway registry', () => {
  it('lists each gateway_type once', () => {
    const types = GATEWAYS.map((module) => module.definition.gatewayType);
    expect(new Set(types).size).toBe(types.length);
    for (const type of types) expect(findGatewayDefinition(type)?.gatewayType).toBe(type);
    expect(gatewayDefinitions().map((definition) => definition.gatewayType)).toEqual(types);
  });

  it.each(GATEWAYS.map((module) => [module.definition.gatewayType, module] as const))('%s advertises exactly the operations it implements', (_type, module) => {
    const implemented = Object.keys(module.operations) as GatewayOperation[];
    const advertised = module.definition.characteristics;
    for (const operation of ['purchase', 'authorize', 'capture', 'void', 'credit', 'general_credit', 'verify', 'store'] as const) {
      expect(advertised.has(`supports_${operation}`), operation).toBe(implemented.includes(operation));
    }
    // Nothing implements remove or adjust yet, so nothing may claim them.
    expect(advertised.has('supports_remove')).toBe(false);
    expect(advertised.has('supports_adjust')).toBe(false);
    for (const characteristic of advertised) expect(CHARACTERISTICS).toContain(characteristic);
    // Every feature it claims is backed by the operations the feature needs.
    for (const [feature, needs] of Object.entries(FEATURE_NEEDS)) {
      if (advertised.has(feature as keyof typeof FEATURE_NEEDS)) for (const operation of needs) expect(implemented).toContain(operation);
    }
  });

  it.each(GATEWAYS.map((module) => [module.definition.gatewayType, module] as const))('%s offers only payment method kinds Coffer can vault', (_type, module) => {
    for (const kind of module.definition.paymentMethods) expect(['credit_card', 'bank_account', 'third_party_token', 'apple_pay', 'google_pay']).toContain(kind);
  });

  it('advertises apple_pay and google_pay exactly where the adapter sends network tokens (docs/wallets.md)', () => {
    const taking = GATEWAYS.filter((module) => module.definition.paymentMethods.includes('apple_pay')).map((module) => module.definition.gatewayType);
    expect(taking.sort()).toEqual(['adyen', 'authorize_net', 'braintree', 'checkout_v2', 'cyber_source', 'stripe', 'test', 'worldpay']);
    for (const module of GATEWAYS) expect(module.definition.paymentMethods.includes('google_pay'), module.definition.gatewayType).toBe(module.definition.paymentMethods.includes('apple_pay'));
  });

  const real = GATEWAYS.filter((module) => !module.definition.test).map((module) => module.definition.gatewayType);
  it.each(real)('%s has an endpoint, a docs page, canned-response tests and an e2e test', (type) => {
    expect(findGatewayDefinition(type)).toBeDefined();
    expect(GATEWAYS.find((module) => module.definition.gatewayType === type)?.endpoint).not.toBeNull();
    expect(existsSync(new URL(`../../docs/gateways/${type}.md`, import.meta.url)), `docs/gateways/${type}.md`).toBe(true);
    expect(existsSync(new URL(`./${type}.gateway.test.ts`, import.meta.url)), `test/gateways/${type}.gateway.test.ts`).toBe(true);
    expect(existsSync(new URL(`../e2e/${type}.e2e.test.ts`, import.meta.url)), `test/e2e/${type}.e2e.test.ts`).toBe(true);
  });

  it('the test gateway no longer claims what POST payment_methods refuses or what it cannot do', () => {
    const test = findGatewayDefinition('test');
    expect(test?.paymentMethods).toEqual(['credit_card', 'third_party_token', 'bank_account', 'apple_pay', 'google_pay']);
    expect(test?.characteristics.has('supports_offsite_purchase')).toBe(false);
    // 3-D Secure 2 flows and stored credentials work on the test gateway (docs/test-gateway-flows.md).
    expect(test?.characteristics.has('supports_3dsecure_2_purchase')).toBe(true);
    expect(test?.characteristics.has('supports_populate_mit_fields')).toBe(true);
    expect(test?.characteristics.has('supports_3dsecure_purchase')).toBe(true);
  });

  it('supports_populate_mit_fields only where the adapter sends stored-credential data (test, Stripe, Adyen, CyberSource SOAP, Redsys REST)', () => {
    const claiming = GATEWAYS.filter((module) => module.definition.characteristics.has('supports_populate_mit_fields')).map((module) => module.definition.gatewayType);
    expect(claiming.sort()).toEqual(['adyen', 'cyber_source', 'redsys_rest', 'stripe', 'test']);
  });

  it('Stripe does not advertise remove (detach is not implemented)', () => {
    expect(findGatewayDefinition('stripe')?.characteristics.has('supports_remove')).toBe(false);
  });
});

describe('defineGateway', () => {
  const answer = () => Promise.reject(new Error('not called'));

  it('derives characteristics from the operations', () => {
    const module = defineGateway({ ...SPEC_BASE, gatewayType: 'example', operations: { purchase: answer, void: answer } });
    expect([...module.definition.characteristics].sort()).toEqual(['supports_purchase', 'supports_void']);
  });

  it('refuses a feature whose operations are missing, by type and at load', () => {
    expect(() =>
      defineGateway({
        ...SPEC_BASE,
        gatewayType: 'example',
        operations: { purchase: answer },
        // @ts-expect-error 3-D Secure needs `complete`, which this gateway does not implement
        features: ['supports_3dsecure_purchase'],
      }),
    ).toThrow('supports_3dsecure_purchase needs complete');
    expect(deriveCharacteristics(['purchase', 'complete'], ['supports_3dsecure_purchase']).has('supports_3dsecure_purchase')).toBe(true);
  });

  it('refuses a payment method kind that cannot be vaulted, by type', () => {
    defineGateway({
      ...SPEC_BASE,
      gatewayType: 'example',
      // @ts-expect-error paypal is not a kind POST /v1/payment_methods accepts
      paymentMethods: ['paypal'],
      operations: { purchase: answer },
    });
  });
});
