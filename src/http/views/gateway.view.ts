import { CHARACTERISTICS } from '../../gateways/kit/index.js';
import type { GatewayDefinition } from '../../gateways/kit/index.js';
import type { GatewayRecord } from '../../services/gateway.service.js';
import { WireList, type WireObject } from '../format/wire.js';
import { storedDate } from './time.js';

export function characteristicsView(definition: GatewayDefinition): WireObject {
  const out: WireObject = {};
  for (const name of CHARACTERISTICS) out[name] = definition.characteristics.has(name);
  return out;
}

/**
 * A gateway, fields in the order of wire-reference §3.3. Only credentials the type declares
 * safe are echoed (flat and in `credentials`); the others are never rendered, so a
 * `<credential>` always has the `<value>` the Ruby gem requires.
 */
export function gatewayView(gateway: GatewayRecord): WireObject {
  const { definition } = gateway;
  const safe = gateway.safeCredentials;
  const view: WireObject = {
    token: gateway.token,
    gateway_type: gateway.gatewayType,
    name: definition.name,
    description: gateway.description,
    merchant_profile_key: gateway.merchantProfileKey,
    sub_merchant_key: gateway.subMerchantKey,
  };
  for (const [name, value] of Object.entries(safe)) {
    if (!(name in view)) view[name] = value;
  }
  Object.assign(view, {
    characteristics: characteristicsView(definition),
    credentials: new WireList(
      'credential',
      Object.entries(safe).map(([name, value]) => ({ name, value })),
    ),
    gateway_settings: { ...gateway.settings },
    gateway_specific_fields: new WireList('gateway_specific_field', [...definition.gatewaySpecificFields]),
    payment_methods: new WireList('payment_method', [...definition.paymentMethods]),
    state: gateway.state,
    redacted: gateway.state === 'redacted',
    sandbox: gateway.sandbox,
    created_at: storedDate(gateway.createdAt),
    updated_at: storedDate(gateway.updatedAt),
  });
  return view;
}

/** One entry of `gateways_options`: a gateway class (wire-reference §3.3). */
export function gatewayOptionView(definition: GatewayDefinition): WireObject {
  return {
    gateway_type: definition.gatewayType,
    name: definition.name,
    auth_modes: new WireList(
      'auth_mode',
      definition.authModes.map((mode) => ({
        auth_mode_type: mode.authModeType,
        name: mode.name,
        credentials: new WireList(
          'credential',
          mode.credentials.map((field) => {
            const credential: WireObject = { name: field.name, label: field.label, safe: field.safe };
            if (field.large === true) credential.large = true;
            return credential;
          }),
        ),
      })),
    ),
    characteristics: characteristicsView(definition),
    payment_methods: new WireList('payment_method', [...definition.paymentMethods]),
    gateway_specific_fields: new WireList('gateway_specific_field', [...definition.gatewaySpecificFields]),
    // The gem reads these two as comma-separated text and fails when they are missing.
    supported_countries: definition.supportedCountries.join(', '),
    supported_cardtypes: definition.supportedCardtypes.join(', '),
    regions: definition.regions.join(', '),
    homepage: definition.homepage,
    display_api_url: definition.displayApiUrl,
    company_name: definition.companyName,
    gateway_settings: {},
  };
}
