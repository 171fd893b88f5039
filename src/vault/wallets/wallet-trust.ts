import type { X509Certificate } from 'node:crypto';
import { DEFAULT_SIGNING_TIME_WINDOW_MS } from './apple-pay-window.js';
import { loadAppleRootCaG3, loadAppleRootFromFile } from './apple-root.js';
import { GOOGLE_PAY_PRODUCTION_ROOT_KEYS, GOOGLE_PAY_TEST_ROOT_KEYS, loadGooglePayRootKeys, type GooglePayRootKey } from './google-pay-root-keys.js';

/** What wallet tokens are verified against, read once at start-up (docs/wallets.md, "Configuration"). */
export interface WalletTrust {
  /** Apple Root CA - G3 as shipped (fingerprint checked), or the operator's pinned root. */
  appleRoots: readonly X509Certificate[];
  /** How far an Apple Pay token's signing time may be from now, either way. */
  signingTimeWindowMs: number;
  /**
   * Google's root signing keys for an environment: the operator's file in every environment when
   * one is given; otherwise the shipped test set in test environments and the shipped production
   * set in production ones (docs/wallets.md, "Root keys").
   */
  googleRootKeys(production: boolean): readonly GooglePayRootKey[];
}

export interface WalletTrustFiles {
  applePayRootCaPath: string | null;
  googlePayRootKeysPath: string | null;
  signingTimeWindowMs?: number;
}

/** Reads the roots; a file that cannot be read or parsed stops start-up with a message naming it. */
export function loadWalletTrust(files: WalletTrustFiles): WalletTrust {
  const appleRoots = [files.applePayRootCaPath === null ? loadAppleRootCaG3() : loadAppleRootFromFile(files.applePayRootCaPath)];
  const pinned = files.googlePayRootKeysPath === null ? null : loadGooglePayRootKeys(files.googlePayRootKeysPath);
  const test = pinned ?? loadGooglePayRootKeys(GOOGLE_PAY_TEST_ROOT_KEYS);
  const production = pinned ?? loadGooglePayRootKeys(GOOGLE_PAY_PRODUCTION_ROOT_KEYS);
  return {
    appleRoots,
    signingTimeWindowMs: files.signingTimeWindowMs ?? DEFAULT_SIGNING_TIME_WINDOW_MS,
    googleRootKeys: (isProduction) => (isProduction ? production : test),
  };
}
