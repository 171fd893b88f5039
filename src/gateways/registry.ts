import type { GatewayDefinition, GatewayModule } from './kit/index.js';
import { adyenGateway } from './adyen.gateway.js';
import { cyberSourceRestGateway } from './cyber_source_rest.gateway.js';
import { braintreeGateway } from './braintree.gateway.js';
import { monerisGateway } from './moneris.gateway.js';
import { nmiGateway } from './nmi.gateway.js';
import { elavonGateway } from './elavon.gateway.js';
import { realexGateway } from './realex.gateway.js';
import { paypalCommercePlatformGateway } from './paypal_commerce_platform.gateway.js';
import { worldpayGateway } from './worldpay.gateway.js';
import { mercadoPagoGateway } from './mercado_pago.gateway.js';
import { dLocalGateway } from './d_local.gateway.js';
import { checkoutV2Gateway } from './checkout_v2.gateway.js';
import { stripeGateway } from './stripe.gateway.js';
import { testGateway } from './test.gateway.js';
import { authorizeNetGateway } from './authorize_net.gateway.js';
import { cyberSourceGateway } from './cyber_source.gateway.js';
import { paysafeGateway } from './paysafe.gateway.js';
import { commerceHubGateway } from './commerce_hub.gateway.js';
import { globalCollectGateway } from './global_collect.gateway.js';
import { nuveiGateway } from './nuvei.gateway.js';
import { shift4V2Gateway } from './shift4_v2.gateway.js';
import { redsysRestGateway } from './redsys_rest.gateway.js';
import { ebanxGateway } from './ebanx.gateway.js';
import { orbitalGateway } from './orbital.gateway.js';
import { litleGateway } from './litle.gateway.js';

/**
 * Every gateway type Coffer can create and call, in `gateways_options` order. Explicit on purpose:
 * no scanning or decorators, so what exists is what is written here. Adding a gateway is one line.
 */
export const GATEWAYS = [testGateway, stripeGateway, adyenGateway, braintreeGateway, authorizeNetGateway, checkoutV2Gateway, cyberSourceRestGateway, paypalCommercePlatformGateway, worldpayGateway, nmiGateway, monerisGateway, elavonGateway, realexGateway, mercadoPagoGateway, dLocalGateway, cyberSourceGateway, paysafeGateway, commerceHubGateway, globalCollectGateway, nuveiGateway, shift4V2Gateway, redsysRestGateway, ebanxGateway, orbitalGateway, litleGateway] as const satisfies readonly GatewayModule[];

/** The `gateway_type` of a registered gateway. */
export type GatewayType = (typeof GATEWAYS)[number]['definition']['gatewayType'];

const BY_TYPE: ReadonlyMap<string, GatewayModule> = new Map(GATEWAYS.map((module) => [module.definition.gatewayType, module]));

export function findGatewayModule(gatewayType: string): GatewayModule | undefined {
  return BY_TYPE.get(gatewayType);
}

export function findGatewayDefinition(gatewayType: string): GatewayDefinition | undefined {
  return BY_TYPE.get(gatewayType)?.definition;
}

/** Every definition, in registry order (`gateways_options`). */
export function gatewayDefinitions(): GatewayDefinition[] {
  return GATEWAYS.map((module) => module.definition);
}

export { credentialFields } from './kit/index.js';
