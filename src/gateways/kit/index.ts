/**
 * The gateway adapter kit: everything a gateway module needs besides its own protocol knowledge.
 * A module imports from here only (see docs/gateways/README.md).
 */
export * from './contract.js';
export * from './error-codes.js';
export * from './definition.js';
export * from './gateway-module.js';
export * from './channel.js';
export * from './credentials.js';
export * from './amounts.js';
export * from './avs-cvv.js';
export * from './answers.js';
export * from './form.js';
export * from './xml.js';
export * from './scrub.js';
export type { OutboundResponse } from './http-client.js';
export * from './wallet.js';
