import { createHash } from 'node:crypto';

/** Where the HSM key lives and how to log in (COFFER_PKCS11_*; docs/key-custody.md). */
export interface Pkcs11Settings {
  /** The PKCS#11 library (COFFER_PKCS11_MODULE; default SoftHSM2's). */
  modulePath: string;
  /** The token, by label (COFFER_PKCS11_TOKEN_LABEL) or by slot id (COFFER_PKCS11_SLOT). */
  token: { label: string } | { slot: bigint };
  /** The user PIN, given in the environment (COFFER_PKCS11_PIN) or in a file read at each login (COFFER_PKCS11_PIN_FILE). */
  pin: { value: string } | { file: string };
  /** The label of the AES-256 key on the token (COFFER_PKCS11_KEY_LABEL). */
  keyLabel: string;
}

export const DEFAULT_PKCS11_MODULE = '/usr/lib/softhsm/libsofthsm2.so';
export const DEFAULT_PKCS11_KEY_LABEL = 'coffer-master-key';

/**
 * The public id of an HSM key: derived from where it is (token and key label), so a node knows it
 * without a session (start-up checks the database against it even while the HSM is unreachable).
 */
export function pkcs11MasterKeyId(settings: Pick<Pkcs11Settings, 'token' | 'keyLabel'>): string {
  const token = 'label' in settings.token ? `label:${settings.token.label}` : `slot:${settings.token.slot}`;
  return `pkcs11-${createHash('sha256').update('coffer pkcs11 master key\0').update(token).update('\0').update(settings.keyLabel).digest('hex').slice(0, 16)}`;
}

/** How the settings name the token, for messages (never the PIN). */
export function describeToken(settings: Pick<Pkcs11Settings, 'token'>): string {
  return 'label' in settings.token ? `token labelled ${JSON.stringify(settings.token.label)}` : `token in slot ${settings.token.slot}`;
}
