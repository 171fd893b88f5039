import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import type { Certificate } from '../domain/certificate.js';
import type { Environment } from '../domain/environment.js';
import { AppError, fieldError } from '../domain/errors.js';
import type { WalletInput, WalletType } from '../domain/payment-method.js';
import { Secret } from '../domain/secret.js';
import { sha256Hex } from '../domain/digest.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import { normalizePan } from '../vault/card-rules.js';
import type { Keyring } from '../vault/keyring.js';
import { isTestCard } from '../vault/test-cards.js';
import type { ApplePayMerchantKey } from '../vault/wallets/apple-pay-merchant-key.js';
import { decryptGooglePayToken } from '../vault/wallets/google-pay.js';
import { WalletTokenError, type WalletErrorCode } from '../vault/wallets/wallet-errors.js';
import type { WalletTrust } from '../vault/wallets/wallet-trust.js';
import { certificatePrivateKeyAad } from './certificate.service.js';

/** The repositories this module reads (docs/architecture.md, "Dependencies"). */
type Uses = 'certificates';

/** Certificates tried for one token, at most: an environment keeps a handful (rotation). */
const MAX_WALLET_KEYS = 50;

/** A wallet token opened in the vault: what is sealed and what is shown, nothing else. */
export interface DecryptedWallet {
  type: WalletType;
  /** A DPAN with a cryptogram (Apple Pay, Google Pay CRYPTOGRAM_3DS); false for a Google Pay PAN_ONLY card. */
  networkToken: boolean;
  number: Secret;
  cryptogram: Secret | null;
  eci: string | null;
  month: number;
  year: number;
  cardholderName: string | null;
  /** SHA-256 (hex) of what makes the token unique, for the replay check; null for a test card number. */
  replayDigest: string | null;
}

const WALLET_NAMES: Record<WalletType, string> = { apple_pay: 'Apple Pay', google_pay: 'Google Pay' };

/** What each refusal says (docs/wallets.md, "Errors"); the decryptor's own message, which never quotes the token, follows. */
const REFUSALS: Record<WalletErrorCode, string> = {
  malformed: 'payment token is malformed',
  bad_signature: 'payment token signature does not verify',
  untrusted_chain: 'payment token is not signed by a trusted wallet certificate',
  expired: 'payment token has expired',
  unknown_key: 'payment token is not encrypted for any of this environment\'s certificates',
  decryption_failed: 'payment token cannot be decrypted',
  wrong_recipient: 'payment token is for another merchant',
};

/** The 422 a refused token gets: its own key per reason, on `payment_data`. */
export function walletRefusal(type: WalletType, error: WalletTokenError): AppError {
  return new AppError({
    key: `errors.wallet_token_${error.code}`,
    attribute: 'payment_data',
    message: `The ${WALLET_NAMES[type]} ${REFUSALS[error.code]} (${error.message}).`,
  });
}

export function walletReplayed(type: WalletType): AppError {
  return new AppError({ key: 'errors.wallet_token_replayed', attribute: 'payment_data', message: `The ${WALLET_NAMES[type]} payment token was already used.` });
}

function notConfigured(message: string): AppError {
  return new AppError({ key: 'errors.wallet_not_configured', message });
}

/**
 * Opens Apple Pay and Google Pay payment tokens with the environment's certificate keys
 * (`POST /v1/certificates/generate` with ec-prime256v1), under the roots the operator trusts
 * (docs/wallets.md). Private keys are opened only for the token at hand and never leave here.
 */
export class WalletTokenService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    store: StoreAccess<Uses>,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
    private readonly trust: WalletTrust,
  ) {
    this.repos = store.repos;
  }

  /** The token decrypted (or, in a test environment, a test card standing in for one); a refusal is a 422 with its own key. */
  async decrypt(environment: Environment, type: WalletType, input: WalletInput): Promise<DecryptedWallet> {
    if (input.testCardNumber !== undefined) return this.testCard(environment, type, input.testCardNumber);
    if (input.paymentData === undefined || input.paymentData === null || input.paymentData === '') throw new AppError(fieldError.blank('payment_data'));
    try {
      return type === 'apple_pay' ? await this.applePay(environment, input.paymentData) : await this.googlePay(environment, input.paymentData);
    } catch (error) {
      if (error instanceof WalletTokenError) throw walletRefusal(type, error);
      throw error;
    }
  }

  /** Spreedly's test mode: a test card number stands in for the decrypted token, in test environments only. */
  private testCard(environment: Environment, type: WalletType, value: string): DecryptedWallet {
    if (environment.production) {
      throw new AppError({ key: 'errors.invalid', attribute: 'test_card_number', message: 'test_card_number is accepted only in test environments' });
    }
    const digits = normalizePan(value);
    if (!isTestCard(digits)) throw new AppError({ key: 'errors.invalid', attribute: 'test_card_number', message: 'test_card_number must be one of the test card numbers' });
    const year = this.clock.now().getUTCFullYear() + 3;
    return {
      type,
      networkToken: true,
      number: new Secret(digits),
      // A cryptogram's shape (20 bytes, base64), made up: the test gateway does not check it.
      cryptogram: new Secret(randomBytes(20).toString('base64')),
      eci: '05',
      month: 12,
      year,
      cardholderName: null,
      replayDigest: null,
    };
  }

  private async applePay(environment: Environment, paymentData: unknown): Promise<DecryptedWallet> {
    const hash = publicKeyHashOf(paymentData);
    const certificates = (await this.repos.certificates.usable(environment.key, MAX_WALLET_KEYS)).filter((row) => row.publicKeyHash === hash && row.pem !== null);
    // The Apple Pay verifier and its ASN.1 libraries are loaded with the first Apple Pay token, not with every process.
    const [{ decryptApplePayToken }, { applePayMerchantKey, ApplePayMerchantKeyError }] = await Promise.all([import('../vault/wallets/apple-pay.js'), import('../vault/wallets/apple-pay-merchant-key.js')]);
    const merchantKeys: ApplePayMerchantKey[] = [];
    for (const row of certificates) {
      const key = await this.privateKeyOf(row);
      try {
        merchantKeys.push(applePayMerchantKey({ privateKey: key, certificate: row.pem as string }));
      } catch (error) {
        // A certificate without Apple's merchant identifier is not a payment processing certificate.
        if (!(error instanceof ApplePayMerchantKeyError)) throw error;
      }
    }
    const decrypted = decryptApplePayToken(paymentData, {
      merchantKeys,
      roots: this.trust.appleRoots,
      now: this.clock.now(),
      signingTimeWindowMs: this.trust.signingTimeWindowMs,
    });
    const payment = decrypted.payment;
    if (payment.paymentDataType !== '3DSecure') {
      throw walletRefusalOf('apple_pay', 'malformed', 'EMV payment data is not supported: only 3DSecure tokens can be charged');
    }
    return {
      type: 'apple_pay',
      networkToken: true,
      number: payment.accountNumber,
      cryptogram: payment.cryptogram,
      eci: payment.eciIndicator,
      month: payment.expirationMonth,
      year: payment.expirationYear,
      cardholderName: payment.cardholderName,
      replayDigest: sha256Hex(`apple_pay:${decrypted.transactionId}`),
    };
  }

  private async googlePay(environment: Environment, paymentData: unknown): Promise<DecryptedWallet> {
    if (environment.googlePayMerchantId === null) {
      throw notConfigured('Set google_pay_merchant_id on the environment (PUT /v1/environments/<key>) to accept Google Pay tokens.');
    }
    const rootKeys = this.trust.googleRootKeys(environment.production);
    if (rootKeys.length === 0) throw notConfigured("No Google Pay root signing keys are configured: set COFFER_GOOGLE_PAY_ROOT_KEYS to Google's published keys.json.");
    const keys: KeyObject[] = [];
    for (const row of await this.repos.certificates.usable(environment.key, MAX_WALLET_KEYS)) {
      const key = await this.privateKeyOf(row);
      if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') keys.push(key);
    }
    if (keys.length === 0) throw walletRefusalOf('google_pay', 'unknown_key', 'the environment has no ec-prime256v1 certificate key');
    const message = decryptGooglePayToken(paymentData, { merchantKeys: keys, rootKeys, merchantId: environment.googlePayMerchantId, now: this.clock.now() });
    const networkToken = message.authMethod === 'CRYPTOGRAM_3DS';
    return {
      type: 'google_pay',
      networkToken,
      number: message.accountNumber,
      cryptogram: networkToken ? message.cryptogram : null,
      eci: networkToken ? message.eciIndicator : null,
      month: message.expirationMonth,
      year: message.expirationYear,
      cardholderName: null,
      replayDigest: sha256Hex(`google_pay:${message.messageId}`),
    };
  }

  private async privateKeyOf(row: Certificate): Promise<KeyObject> {
    const pem = await this.keyring.openFor(row.environmentKey, row.sealedPrivateKey, certificatePrivateKeyAad(row.token));
    try {
      return createPrivateKey(pem);
    } finally {
      pem.fill(0);
    }
  }
}

/** A refusal this service decides itself (not the decryptor), in the same form. */
function walletRefusalOf(type: WalletType, code: WalletErrorCode, detail: string): AppError {
  return new AppError({ key: `errors.wallet_token_${code}`, attribute: 'payment_data', message: `The ${WALLET_NAMES[type]} ${REFUSALS[code]} (${detail}).` });
}

/**
 * The `header.publicKeyHash` an Apple Pay token names, read loosely to pick the certificates whose
 * keys are opened; null when there is none (the decryptor then says what is malformed).
 */
function publicKeyHashOf(paymentData: unknown): string | null {
  let value = paymentData;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return null;
    }
  }
  if (value === null || typeof value !== 'object') return null;
  const header = (value as Record<string, unknown>).header;
  if (header === null || typeof header !== 'object') return null;
  const hash = (header as Record<string, unknown>).publicKeyHash;
  return typeof hash === 'string' ? hash : null;
}
