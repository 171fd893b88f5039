import type { GatewayOperation, GatewayRequest, GatewayResponse } from './contract.js';
import type { Characteristic, GatewayDefinition } from './definition.js';
import type { GatewayChannel } from './channel.js';
import type { ScrubRule } from './scrub.js';

/** One call of one operation: the request, and the channel to the gateway (timeouts, egress, transcript). */
export interface GatewayCall {
  request: GatewayRequest;
  http: GatewayChannel;
}

/** Performs one operation. A decline is returned; a fault or an unknown outcome is thrown. */
export type OperationHandler = (call: GatewayCall) => Promise<GatewayResponse>;

/**
 * What a gateway says about a call whose result is unknown (docs/gateways/README.md), looked up by what Coffer
 * sent (its transaction token as idempotency key or reference): the payment as it stands, that
 * it never arrived, or that the gateway cannot tell yet (ask again later).
 */
export type InquiryAnswer = { kind: 'found'; response: GatewayResponse } | { kind: 'not_found' } | { kind: 'unknown' };

/** Looks up the outcome of `call.request` (the original request, rebuilt) at the gateway. */
export type InquiryHandler = (call: GatewayCall) => Promise<InquiryAnswer>;

/** The characteristic each operation stands for (`complete` finishes a pending one and has none of its own). */
const OPERATION_CHARACTERISTIC: Readonly<Record<GatewayOperation, Characteristic | null>> = {
  purchase: 'supports_purchase',
  authorize: 'supports_authorize',
  capture: 'supports_capture',
  void: 'supports_void',
  credit: 'supports_credit',
  general_credit: 'supports_general_credit',
  verify: 'supports_verify',
  store: 'supports_store',
  complete: null,
};

/**
 * Characteristics that are not operations of their own, and the operations a gateway must
 * implement to claim each: 3-D Secure needs `complete` to finish what it leaves pending.
 */
export const FEATURE_NEEDS = {
  supports_3dsecure_purchase: ['purchase', 'complete'],
  supports_3dsecure_authorize: ['authorize', 'complete'],
  supports_purchase_via_preauthorization: ['authorize', 'capture'],
  supports_3dsecure_2_purchase: ['purchase', 'complete'],
  supports_3dsecure_2_authorize: ['authorize', 'complete'],
  // Stored credentials: the adapter sends GatewayRequest.storedCredential (the network transaction
  // id on merchant-initiated charges) and returns GatewayResponse.networkTransactionId.
  supports_populate_mit_fields: ['purchase', 'authorize'],
} as const satisfies Partial<Record<Characteristic, readonly GatewayOperation[]>>;

export type Feature = keyof typeof FEATURE_NEEDS;

/** The features a gateway implementing exactly `Ops` may claim (a type error names any other). */
export type FeatureFor<Ops extends GatewayOperation> = { [F in Feature]: (typeof FEATURE_NEEDS)[F][number] extends Ops ? F : never }[Feature];

/** Where a gateway lives: its documented base URL (origin plus any fixed path prefix) for a call. */
export type EndpointFor = (request: GatewayRequest) => string;

/** What a gateway module writes: its `gateways_options` entry without characteristics, and its operations. */
export interface GatewaySpec<Type extends string, Ops extends GatewayOperation> extends Omit<GatewayDefinition<Type>, 'characteristics'> {
  /** One handler per supported operation: the keys are what the gateway advertises. */
  operations: { [K in Ops]: OperationHandler };
  /** Characteristics beyond operations, each allowed only with the operations it needs. */
  features?: ReadonlyArray<FeatureFor<Ops>>;
  /** The base URL of a call (test or live); null for a gateway that answers in process. */
  endpoint: EndpointFor | null;
  /** Transcript rules for this gateway's wire format, on top of the shared ones. */
  scrub?: ScrubRule;
  /** Looks up a call whose result is unknown; its presence is `supports_reconciliation`. */
  inquire?: InquiryHandler;
}

/** A gateway as the registry holds it: its definition (with derived characteristics) and its operations. */
export interface GatewayModule<Type extends string = string> {
  definition: GatewayDefinition<Type>;
  operations: Readonly<Partial<Record<GatewayOperation, OperationHandler>>>;
  endpoint: EndpointFor | null;
  scrub: ScrubRule;
  /** Null for a gateway that cannot look a call up (no reconciliation). */
  inquire: InquiryHandler | null;
}

/** The characteristics a set of operations and features stands for. */
export function deriveCharacteristics(operations: readonly GatewayOperation[], features: readonly Feature[]): Set<Characteristic> {
  const out = new Set<Characteristic>();
  for (const operation of operations) {
    const characteristic = OPERATION_CHARACTERISTIC[operation];
    if (characteristic !== null) out.add(characteristic);
  }
  for (const feature of features) {
    const missing = FEATURE_NEEDS[feature].filter((needed) => !operations.includes(needed));
    if (missing.length > 0) throw new Error(`${feature} needs ${missing.join(', ')}`);
    out.add(feature);
  }
  return out;
}

/**
 * Makes a gateway module from its spec. The advertised characteristics are derived from the
 * operations it implements, so a gateway cannot claim what it cannot do.
 */
export function defineGateway<Type extends string, Ops extends GatewayOperation>(spec: GatewaySpec<Type, Ops>): GatewayModule<Type> {
  const { operations, features = [], endpoint, scrub, inquire, ...definition } = spec;
  const implemented = Object.keys(operations) as GatewayOperation[];
  const characteristics = deriveCharacteristics(implemented, features);
  if (inquire !== undefined) characteristics.add('supports_reconciliation');
  return {
    definition: { ...definition, characteristics },
    operations: operations as Partial<Record<GatewayOperation, OperationHandler>>,
    endpoint,
    scrub: scrub ?? ((text) => text),
    inquire: inquire ?? null,
  };
}
