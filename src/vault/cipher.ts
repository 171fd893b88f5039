import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';

/**
 * AES-256-GCM with a fresh 96-bit nonce per seal. Blob format (text, storable anywhere):
 *
 *   c1.<keyId>.<base64(nonce ‖ ciphertext ‖ tag)>
 *
 * `c1` versions the format; `keyId` names the key that sealed it so rotation can keep
 * old blobs readable. The associated data binds a blob to its place (e.g. a gateway's
 * credentials) so a blob copied into another row fails to open.
 */
const VERSION = 'c1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export class CipherError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CipherError';
  }
}

const KEY_BYTES = 32;

/**
 * Nonces are drawn from the CSPRNG a few thousand at a time: one `randomBytes(12)` per seal was a
 * system call per card, 5 % of a bulk import. Each 12 bytes of the pool is handed out once, then
 * the pool is refilled; the nonces are as random and as unique as before. (A forked process
 * re-imports this module: Node does not fork a running heap.)
 */
const NONCE_POOL = Buffer.alloc(NONCE_BYTES * 4096);
let noncePoolAt = NONCE_POOL.length;

function freshNonce(): Buffer {
  if (noncePoolAt + NONCE_BYTES > NONCE_POOL.length) {
    randomFillSync(NONCE_POOL);
    noncePoolAt = 0;
  }
  const nonce = Buffer.from(NONCE_POOL.subarray(noncePoolAt, noncePoolAt + NONCE_BYTES));
  noncePoolAt += NONCE_BYTES;
  return nonce;
}

// The version and key id are authenticated too, so a blob relabelled with another key id fails.
function aad(keyId: string, associatedData: string): Buffer {
  return Buffer.from(`${VERSION}.${keyId}|${associatedData}`, 'utf8');
}

/** A blob's parts, for a cipher that runs elsewhere (an HSM) but keeps this format and associated data. */
export interface BlobParts {
  keyId: string;
  nonce: Buffer;
  /** Ciphertext followed by the 16-byte tag. */
  sealed: Buffer;
  /** The associated data the blob was (or is to be) sealed with. */
  aad: Buffer;
}

export const BLOB_NONCE_BYTES = NONCE_BYTES;

/** The associated data `seal` would authenticate for this key id and place. */
export function blobAad(keyId: string, associatedData: string): Buffer {
  return aad(keyId, associatedData);
}

/** A blob from a nonce and ciphertext‖tag made elsewhere under the same format. */
export function formatBlob(keyId: string, nonce: Buffer, sealed: Buffer): string {
  if (keyId === '' || keyId.includes('.')) throw new CipherError('key id must be non-empty and contain no dot');
  return `${VERSION}.${keyId}.${Buffer.concat([nonce, sealed]).toString('base64')}`;
}

/** The parts of a blob, to open it elsewhere. */
export function blobParts(blob: string, associatedData: string): BlobParts {
  const keyId = blobKeyId(blob);
  const raw = Buffer.from(blob.split('.')[2] as string, 'base64');
  if (raw.length < NONCE_BYTES + TAG_BYTES) throw new CipherError('cipher blob too short');
  return { keyId, nonce: raw.subarray(0, NONCE_BYTES), sealed: raw.subarray(NONCE_BYTES), aad: aad(keyId, associatedData) };
}

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new CipherError('cipher key must be 32 bytes');
}

export function seal(key: Buffer, keyId: string, plaintext: Buffer, associatedData: string): string {
  checkKey(key);
  if (keyId === '' || keyId.includes('.')) throw new CipherError('key id must be non-empty and contain no dot');
  const nonce = freshNonce();
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad(keyId, associatedData));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return `${VERSION}.${keyId}.${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64')}`;
}

/** The key id a blob was sealed with, without opening it. */
export function blobKeyId(blob: string): string {
  const parts = blob.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION || parts[1] === '') throw new CipherError('unrecognised cipher blob');
  return parts[1] as string;
}

export function open(key: Buffer, blob: string, associatedData: string): Buffer {
  checkKey(key);
  const keyId = blobKeyId(blob);
  const raw = Buffer.from(blob.split('.')[2] as string, 'base64');
  if (raw.length < NONCE_BYTES + TAG_BYTES) throw new CipherError('cipher blob too short');
  const nonce = raw.subarray(0, NONCE_BYTES);
  const tag = raw.subarray(raw.length - TAG_BYTES);
  const body = raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(aad(keyId, associatedData));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    // Never echo the blob or key: only that authentication failed.
    throw new CipherError('cipher blob failed authentication');
  }
}
