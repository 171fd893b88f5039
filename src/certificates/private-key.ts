import { createPrivateKey, type KeyObject } from 'node:crypto';
import { Secret } from '../domain/secret.js';
import { CertificateInputError } from './input-error.js';
import { pemBlocks, type PemBlock } from './pem.js';
import { spkiOf } from './public-key.js';

/** A private key read from an upload, in the one form Coffer stores. */
export interface ParsedPrivateKey {
  /** PKCS#8 PEM, whatever form it arrived in. Sealed before it is stored; never rendered. */
  pkcs8Pem: Secret;
  /** The matching public key (DER SubjectPublicKeyInfo). */
  spkiDer: Buffer;
  key: KeyObject;
}

/** Node's DER decoder for each PEM label we accept. */
const FORMAT_OF_LABEL: Record<string, 'pkcs8' | 'pkcs1' | 'sec1'> = {
  'PRIVATE KEY': 'pkcs8',
  'RSA PRIVATE KEY': 'pkcs1',
  'EC PRIVATE KEY': 'sec1',
};

/** Key types that can sign a TLS handshake (x25519 or DH keys cannot). */
const SIGNING_KEY_TYPES = new Set(['rsa', 'rsa-pss', 'ec', 'ed25519', 'ed448']);

const NOT_A_KEY = 'Private key must be an unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC)';
const ENCRYPTED = 'Private key is encrypted: remove its passphrase and upload it again (Coffer seals it itself)';

function invalid(message: string): CertificateInputError {
  return new CertificateInputError('private_key', message);
}

function isEncrypted(block: PemBlock): boolean {
  return block.label === 'ENCRYPTED PRIVATE KEY' || /ENCRYPTED/i.test(block.headers['proc-type'] ?? '');
}

/**
 * Reads an uploaded private key: PKCS#8, PKCS#1 (RSA) or SEC1 (EC) PEM, alone or beside
 * certificates (a combined file). An encrypted key is refused with its own message, since
 * Coffer has no passphrase to open it with. Errors never quote the input.
 */
export function parsePrivateKey(input: Secret): ParsedPrivateKey {
  const blocks = pemBlocks(input.reveal());
  const keys = (blocks ?? []).filter((block) => block.label.endsWith('PRIVATE KEY'));
  try {
    if (keys.length === 0) throw invalid(NOT_A_KEY);
    if (keys.length > 1) throw invalid('Private key must hold exactly one key');
    const block = keys[0] as PemBlock;
    if (isEncrypted(block)) throw invalid(ENCRYPTED);
    const type = FORMAT_OF_LABEL[block.label];
    if (type === undefined) throw invalid(NOT_A_KEY);
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: block.der, format: 'der', type });
    } catch {
      // Node's reason (a decoder error) says nothing a client can act on, and is not ours to echo.
      throw invalid(NOT_A_KEY);
    }
    if (!SIGNING_KEY_TYPES.has(key.asymmetricKeyType ?? '')) throw invalid('Private key must be an RSA, EC or EdDSA signing key');
    return { pkcs8Pem: new Secret(key.export({ type: 'pkcs8', format: 'pem' }) as string), spkiDer: spkiOf(key), key };
  } finally {
    // The decoded copies are ours to wipe (the input string itself cannot be).
    for (const block of blocks ?? []) block.der.fill(0);
  }
}
