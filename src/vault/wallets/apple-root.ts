import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';

/**
 * SHA-256 fingerprint of Apple Root CA - G3 as Apple publishes it on
 * https://www.apple.com/certificateauthority/ (the "Apple Root CA - G3 Root" entry). The shipped PEM
 * is checked against it on every load, so a corrupted or swapped file is refused, not trusted.
 */
export const APPLE_ROOT_CA_G3_SHA256 = '63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79';

const SHIPPED = new URL('./roots/apple-root-ca-g3.pem', import.meta.url);

export class WalletRootError extends Error {
  override readonly name = 'WalletRootError';
}

/** The Apple Pay root Coffer ships, its fingerprint checked. */
export function loadAppleRootCaG3(): X509Certificate {
  const root = new X509Certificate(readFileSync(SHIPPED));
  if (root.fingerprint256 !== APPLE_ROOT_CA_G3_SHA256) throw new WalletRootError('the shipped Apple Root CA - G3 does not match its published fingerprint');
  return root;
}

/** An operator's replacement root (a PEM file path): trusted as given, since the operator pins it. */
export function loadAppleRootFromFile(path: string): X509Certificate {
  try {
    return new X509Certificate(readFileSync(path));
  } catch {
    throw new WalletRootError('the Apple Pay root CA file is not a PEM certificate');
  }
}
