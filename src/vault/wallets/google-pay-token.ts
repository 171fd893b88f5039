import { base64Field, base64Of, objectOf, stringField } from './token-fields.js';
import { WalletTokenMalformedError } from './wallet-errors.js';

/**
 * A Google Pay payment method token, protocol `ECv2`, as Google's "Payment data cryptography" page
 * lays it out. `signedKey` and `signedMessage` stay the exact strings Google signed: the
 * signatures cover those bytes, so they are parsed separately and never re-serialized.
 */
export interface GooglePayToken {
  protocolVersion: 'ECv2';
  signature: Buffer;
  signedKey: string;
  intermediateSignatures: Buffer[];
  signedMessage: string;
}

export interface GooglePaySignedKey {
  /** SPKI DER of the intermediate signing key (P-256). */
  keyValue: Buffer;
  /** Milliseconds since the epoch. */
  keyExpiration: number;
}

export interface GooglePaySignedMessage {
  encryptedMessage: Buffer;
  /** Uncompressed P-256 point (65 bytes, 0x04 || X || Y). */
  ephemeralPublicKey: Buffer;
  tag: Buffer;
}

const TOKEN = 'payment_data';

export function parseGooglePayToken(input: unknown): GooglePayToken {
  const token = objectOf(input, TOKEN);
  if (stringField(token, 'protocolVersion', TOKEN) !== 'ECv2') throw new WalletTokenMalformedError('payment_data.protocolVersion must be ECv2');
  const intermediate = objectOf(token['intermediateSigningKey'], 'payment_data.intermediateSigningKey');
  const signatures = intermediate['signatures'];
  if (!Array.isArray(signatures) || signatures.length === 0) throw new WalletTokenMalformedError('payment_data.intermediateSigningKey.signatures must be a non-empty array');
  return {
    protocolVersion: 'ECv2',
    signature: base64Field(token, 'signature', TOKEN),
    signedKey: stringField(intermediate, 'signedKey', 'payment_data.intermediateSigningKey'),
    intermediateSignatures: signatures.map((signature: unknown) => base64Of(signature, 'payment_data.intermediateSigningKey.signatures[]')),
    signedMessage: stringField(token, 'signedMessage', TOKEN),
  };
}

/** Google writes expirations as decimal strings of milliseconds. */
export function millis(value: unknown, what: string): number {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,16}$/.test(text)) throw new WalletTokenMalformedError(`${what} must be milliseconds since the epoch`);
  return Number(text);
}

export function parseSignedKey(signedKey: string): GooglePaySignedKey {
  const key = objectOf(signedKey, 'payment_data.intermediateSigningKey.signedKey');
  return { keyValue: base64Field(key, 'keyValue', 'signedKey'), keyExpiration: millis(key['keyExpiration'], 'signedKey.keyExpiration') };
}

export function parseSignedMessage(signedMessage: string): GooglePaySignedMessage {
  const message = objectOf(signedMessage, 'payment_data.signedMessage');
  const ephemeralPublicKey = base64Field(message, 'ephemeralPublicKey', 'signedMessage');
  if (ephemeralPublicKey.length !== 65 || ephemeralPublicKey[0] !== 0x04) throw new WalletTokenMalformedError('signedMessage.ephemeralPublicKey must be an uncompressed P-256 point');
  const tag = base64Field(message, 'tag', 'signedMessage');
  if (tag.length !== 32) throw new WalletTokenMalformedError('signedMessage.tag must be an HMAC-SHA256 tag');
  return { encryptedMessage: base64Field(message, 'encryptedMessage', 'signedMessage'), ephemeralPublicKey, tag };
}
