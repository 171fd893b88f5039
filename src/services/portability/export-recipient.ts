import type * as openpgp from 'openpgp';
import { openpgpModule } from './openpgp-module.js';
import { AppError } from '../../domain/errors.js';

/** The most text a recipient key may be (a large RSA key with a few signatures is a few KB). */
const MAX_KEY_CHARS = 64 * 1024;

export interface RecipientKey {
  key: openpgp.PublicKey;
  /** The armored public key as Coffer keeps it (re-armored: only the public half, whatever was sent). */
  armored: string;
  fingerprint: string;
  userIds: string[];
}

function refused(message: string): AppError {
  return new AppError({ key: 'errors.invalid', attribute: 'recipient_public_key', message });
}

/**
 * The recipient's armored OpenPGP public key of an export request, checked: a public key (a
 * private key is refused, not kept), able to encrypt (not expired, not revoked). The error says
 * what is wrong in words an operator can act on.
 */
export async function readRecipientKey(armored: unknown): Promise<RecipientKey> {
  if (typeof armored !== 'string' || armored.trim() === '') throw new AppError({ key: 'errors.blank', attribute: 'recipient_public_key', message: "Recipient public key can't be blank" });
  if (armored.length > MAX_KEY_CHARS) throw new AppError({ key: 'errors.too_long', attribute: 'recipient_public_key', message: `Recipient public key is too long (maximum is ${MAX_KEY_CHARS} characters)` });
  if (armored.includes('PRIVATE KEY BLOCK')) throw refused('Recipient public key is a private key: send only the public key (gpg --armor --export), and treat this private key as exposed');
  let key: openpgp.Key;
  try {
    key = await (await openpgpModule()).readKey({ armoredKey: armored });
  } catch {
    throw refused('Recipient public key is not an armored OpenPGP public key (gpg --armor --export <recipient>)');
  }
  if (key.isPrivate()) throw refused('Recipient public key is a private key: send only the public key');
  try {
    await key.getEncryptionKey();
  } catch {
    throw refused('Recipient public key cannot encrypt (it is expired or revoked, or has no encryption subkey)');
  }
  const publicKey = key as openpgp.PublicKey;
  return { key: publicKey, armored: publicKey.armor(), fingerprint: publicKey.getFingerprint(), userIds: publicKey.getUserIDs() };
}
