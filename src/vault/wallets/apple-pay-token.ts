import { base64Field, hexField, isObject, objectOf, stringField } from './token-fields.js';
import { WalletTokenMalformedError } from './wallet-errors.js';

/**
 * An Apple Pay payment token (`PKPaymentToken.paymentData`), version `EC_v1`, as Apple's "Payment
 * Token Format Reference" lays it out: `data` (ciphertext and GCM tag), `signature` (a detached
 * CMS SignedData), `header.ephemeralPublicKey` (SPKI DER of the sender's P-256 key),
 * `header.publicKeyHash` (SHA-256 of the merchant key's SPKI DER), `header.transactionId` (hex) and
 * the optional `header.applicationData` (hex SHA-256 of the app's data).
 */
export interface ApplePayToken {
  version: 'EC_v1';
  data: Buffer;
  signature: Buffer;
  ephemeralPublicKey: Buffer;
  publicKeyHash: Buffer;
  transactionId: Buffer;
  applicationData: Buffer | null;
}

const GCM_TAG_BYTES = 16;

/** Reads the token given as an object or as its JSON text. RSA_v1 is refused: Coffer keys are P-256. */
export function parseApplePayToken(input: unknown): ApplePayToken {
  const token = objectOf(input, 'payment_data');
  const version = stringField(token, 'version', 'payment_data');
  if (version !== 'EC_v1') throw new WalletTokenMalformedError('payment_data.version must be EC_v1');
  const header = token['header'];
  if (!isObject(header)) throw new WalletTokenMalformedError('payment_data.header must be an object');
  const data = base64Field(token, 'data', 'payment_data');
  if (data.length <= GCM_TAG_BYTES) throw new WalletTokenMalformedError('payment_data.data is too short');
  const publicKeyHash = base64Field(header, 'publicKeyHash', 'payment_data.header');
  if (publicKeyHash.length !== 32) throw new WalletTokenMalformedError('payment_data.header.publicKeyHash must be a SHA-256 hash');
  const applicationData = header['applicationData'] === undefined || header['applicationData'] === '' ? null : hexField(header, 'applicationData', 'payment_data.header');
  return {
    version,
    data,
    signature: base64Field(token, 'signature', 'payment_data'),
    ephemeralPublicKey: base64Field(header, 'ephemeralPublicKey', 'payment_data.header'),
    publicKeyHash,
    transactionId: hexField(header, 'transactionId', 'payment_data.header'),
    applicationData,
  };
}

/** The bytes Apple's CMS signature covers: ephemeralPublicKey || data || transactionId || applicationData. */
export function applePaySignedContent(token: ApplePayToken): Buffer {
  const parts = [token.ephemeralPublicKey, token.data, token.transactionId];
  if (token.applicationData !== null) parts.push(token.applicationData);
  return Buffer.concat(parts);
}
