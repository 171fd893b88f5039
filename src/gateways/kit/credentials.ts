import type { GatewayRequest } from './contract.js';
import { GatewayInputError } from './contract.js';
import type { GatewayDefinition } from './definition.js';

/** Every credential field of every auth mode of a type, by name (a type's modes may overlap). */
export function credentialFields(definition: GatewayDefinition): Map<string, { safe: boolean }> {
  const fields = new Map<string, { safe: boolean }>();
  for (const mode of definition.authModes) for (const field of mode.credentials) fields.set(field.name, { safe: field.safe });
  return fields;
}

/** A credential of the call in clear, or undefined when the gateway was created without it. */
export function optionalCredential(request: GatewayRequest, name: string): string | undefined {
  const value = request.credentials[name]?.reveal();
  return value === undefined || value === '' ? undefined : value;
}

/** A credential the call cannot do without: its absence is a configuration error, nothing is sent. */
export function requireCredential(request: GatewayRequest, name: string): string {
  const value = optionalCredential(request, name);
  if (value === undefined) throw new GatewayInputError(`The gateway has no ${name} credential.`, 'config_error');
  return value;
}
