import { createHash } from 'node:crypto';

/**
 * The SHA-256 of a text, in hex: how a secret that is looked up (a session cookie, an invitation
 * or intake credential, a wallet token's unique part) is stored without the secret itself.
 */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
