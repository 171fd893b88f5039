import { WalletTokenMalformedError } from './wallet-errors.js';

/** Shared field readers for wallet token JSON: each refusal names the field, never its value. */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object given as itself or as its JSON text (clients send both). */
export function objectOf(input: unknown, what: string): JsonObject {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input) as unknown;
    } catch {
      throw new WalletTokenMalformedError(`${what} is not JSON`);
    }
  }
  if (!isObject(value)) throw new WalletTokenMalformedError(`${what} must be a JSON object`);
  return value;
}

export function stringField(object: JsonObject, name: string, what: string): string {
  const value = object[name];
  if (typeof value !== 'string' || value.length === 0) throw new WalletTokenMalformedError(`${what}.${name} must be a non-empty string`);
  return value;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const HEX = /^(?:[0-9A-Fa-f]{2})*$/;

/** Standard base64 (the alphabet both wallets use), strictly: Buffer.from would skip bad characters. */
export function base64Field(object: JsonObject, name: string, what: string): Buffer {
  return base64Of(stringField(object, name, what), `${what}.${name}`);
}

export function base64Of(value: unknown, what: string): Buffer {
  if (typeof value !== 'string' || value.length === 0 || value.length % 4 !== 0 || !BASE64.test(value)) throw new WalletTokenMalformedError(`${what} must be base64`);
  return Buffer.from(value, 'base64');
}

export function hexField(object: JsonObject, name: string, what: string): Buffer {
  const text = stringField(object, name, what);
  if (!HEX.test(text)) throw new WalletTokenMalformedError(`${what}.${name} must be hexadecimal`);
  return Buffer.from(text, 'hex');
}
