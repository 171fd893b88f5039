import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { decryptApplePayToken, type ApplePayDecryptOptions } from '../../src/vault/wallets/apple-pay.js';
import { applePayMerchantKey, type ApplePayMerchantKey } from '../../src/vault/wallets/apple-pay-merchant-key.js';
import { APPLE_ROOT_CA_G3_SHA256, loadAppleRootCaG3 } from '../../src/vault/wallets/apple-root.js';
import { verifyApplePaySignature } from '../../src/vault/wallets/apple-pay-signature.js';
import { applePaySignedContent, parseApplePayToken } from '../../src/vault/wallets/apple-pay-token.js';
import { WalletTokenError } from '../../src/vault/wallets/wallet-errors.js';
import { applePayPaymentData, applePayToken, createApplePayTestCa, merchantKeyPair, type ApplePayTestCa } from '../helpers/wallet-tokens.js';

const MERCHANT_ID = 'merchant.com.example.coffer';
const DPAN = '4817499999999994';
const CRYPTOGRAM = 'AOWfXu1Iv1pAQwAAAAAAAAAAAAA=';

let ca: ApplePayTestCa;
let merchant: ReturnType<typeof merchantKeyPair>;
let merchantKey: ApplePayMerchantKey;

beforeAll(async () => {
  ca = await createApplePayTestCa();
  merchant = merchantKeyPair();
  merchantKey = applePayMerchantKey({ privateKey: merchant.privateKey, certificate: await ca.merchantCertificate(merchant.publicKey, MERCHANT_ID) });
});

function options(overrides: Partial<ApplePayDecryptOptions> = {}): ApplePayDecryptOptions {
  return { merchantKeys: [merchantKey], roots: [ca.root], now: new Date(), ...overrides };
}

function token(overrides: Partial<Parameters<typeof applePayToken>[0]> = {}): Record<string, unknown> {
  return applePayToken({ ca, merchantPublicKey: merchant.publicKey, merchantIdentifier: MERCHANT_ID, ...overrides });
}

/** The refusal `fn` throws, checked to reveal nothing of the payment data. */
function refusal(fn: () => unknown): WalletTokenError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(WalletTokenError);
  const error = caught as WalletTokenError;
  const printed = `${error.message}\n${error.stack ?? ''}\n${JSON.stringify(error)}\n${String(error.cause ?? '')}`;
  for (const secret of [DPAN, CRYPTOGRAM, 'applicationPrimaryAccountNumber":', 'onlinePaymentCryptogram":']) expect(printed).not.toContain(secret);
  return error;
}

function flipByte(base64: string, index: number): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[index] = (bytes[index] ?? 0) ^ 0x01;
  return bytes.toString('base64');
}

describe('Apple Pay EC_v1 token', () => {
  it('decrypts a valid token to the DPAN, cryptogram and ECI', () => {
    const result = decryptApplePayToken(token(), options());
    expect(result.payment.accountNumber.reveal()).toBe(DPAN);
    expect(result.payment.cryptogram?.reveal()).toBe(CRYPTOGRAM);
    expect(result.payment.eciIndicator).toBe('7');
    expect(result.payment).toMatchObject({ expirationYear: 2029, expirationMonth: 12, currencyCode: '840', transactionAmount: 1999, paymentDataType: '3DSecure' });
    // The DPAN and cryptogram redact themselves wherever printed.
    expect(JSON.stringify(result)).not.toContain(DPAN);
    expect(JSON.stringify(result)).not.toContain(CRYPTOGRAM);
  });

  it('accepts the token as JSON text and with applicationData signed in', () => {
    const result = decryptApplePayToken(JSON.stringify(token({ applicationData: 'ab'.repeat(32) })), options());
    expect(result.payment.accountNumber.reveal()).toBe(DPAN);
  });

  it('derives the same key from the merchant identifier as from the certificate extension', () => {
    const byId = applePayMerchantKey({ privateKey: merchant.privateKey, merchantIdentifier: MERCHANT_ID });
    expect(byId.merchantIdHash.equals(merchantKey.merchantIdHash)).toBe(true);
    expect(decryptApplePayToken(token(), options({ merchantKeys: [byId] })).payment.accountNumber.reveal()).toBe(DPAN);
  });

  it('picks the key the publicKeyHash names among several (rotation)', () => {
    const other = merchantKeyPair();
    const otherKey = applePayMerchantKey({ privateKey: other.privateKey, merchantIdentifier: MERCHANT_ID });
    expect(decryptApplePayToken(token(), options({ merchantKeys: [otherKey, merchantKey] })).payment.accountNumber.reveal()).toBe(DPAN);
  });

  it('reads EMV payment data', () => {
    const payload = applePayPaymentData({ paymentDataType: 'EMV', paymentData: { emvData: 'nwIGAAAAAAAA' } });
    const result = decryptApplePayToken(token({ payload }), options());
    expect(result.payment.cryptogram).toBeNull();
    expect(result.payment.emvData?.reveal()).toBe('nwIGAAAAAAAA');
  });

  it('refuses a tampered ciphertext as a bad signature (the digest covers it)', () => {
    const tampered = token();
    tampered['data'] = flipByte(tampered['data'] as string, 3);
    expect(refusal(() => decryptApplePayToken(tampered, options())).code).toBe('bad_signature');
  });

  it('refuses a bad signature', () => {
    const tampered = token();
    const signature = Buffer.from(tampered['signature'] as string, 'base64');
    // The ECDSA signature value is the SignerInfo's last field, at the end of the DER.
    signature[signature.length - 5] = (signature[signature.length - 5] ?? 0) ^ 0x01;
    tampered['signature'] = signature.toString('base64');
    expect(refusal(() => decryptApplePayToken(tampered, options())).code).toBe('bad_signature');
  });

  it('refuses a chain to another root', async () => {
    const stranger = await createApplePayTestCa();
    expect(refusal(() => decryptApplePayToken(token(), options({ roots: [stranger.root] }))).code).toBe('untrusted_chain');
  });

  it('refuses a leaf without Apple\'s marker extension', async () => {
    const plain = await createApplePayTestCa({ leafWithoutMarker: true });
    const forged = applePayToken({ ca: plain, merchantPublicKey: merchant.publicKey, merchantIdentifier: MERCHANT_ID });
    expect(refusal(() => decryptApplePayToken(forged, options({ roots: [plain.root] }))).code).toBe('untrusted_chain');
  });

  it('refuses a signing time outside the window, either way, and honours a wider window', () => {
    const old = token({ signingTime: new Date(Date.now() - 6 * 60_000) });
    expect(refusal(() => decryptApplePayToken(old, options())).code).toBe('expired');
    const future = token({ signingTime: new Date(Date.now() + 6 * 60_000) });
    expect(refusal(() => decryptApplePayToken(future, options())).code).toBe('expired');
    expect(decryptApplePayToken(old, options({ signingTimeWindowMs: 10 * 60_000 })).payment.accountNumber.reveal()).toBe(DPAN);
  });

  it('refuses an unknown publicKeyHash', () => {
    const other = merchantKeyPair();
    const otherKey = applePayMerchantKey({ privateKey: other.privateKey, merchantIdentifier: MERCHANT_ID });
    expect(refusal(() => decryptApplePayToken(token(), options({ merchantKeys: [otherKey] }))).code).toBe('unknown_key');
  });

  it('refuses a token that does not decrypt with the matching key', () => {
    const wrongId = applePayMerchantKey({ privateKey: merchant.privateKey, merchantIdentifier: 'merchant.com.example.other' });
    expect(refusal(() => decryptApplePayToken(token(), options({ merchantKeys: [wrongId] }))).code).toBe('decryption_failed');
  });

  it('refuses malformed tokens', () => {
    for (const bad of ['not json', {}, { ...token(), version: 'RSA_v1' }, { ...token(), data: '***' }, { ...token(), signature: Buffer.from('nope').toString('base64') }, { ...token(), header: null }]) {
      expect(refusal(() => decryptApplePayToken(bad, options())).code).toBe('malformed');
    }
  });

  it('refuses malformed decrypted payment data without quoting it', () => {
    const payload = applePayPaymentData({ applicationExpirationDate: `${DPAN}x` });
    expect(refusal(() => decryptApplePayToken(token({ payload }), options())).code).toBe('malformed');
  });
});

describe('Apple Root CA - G3', () => {
  it('ships with the fingerprint Apple publishes', () => {
    const root = loadAppleRootCaG3();
    expect(root).toBeInstanceOf(X509Certificate);
    expect(root.fingerprint256).toBe(APPLE_ROOT_CA_G3_SHA256);
    expect(root.subject).toContain('CN=Apple Root CA - G3');
  });
});

describe('a token made by Apple\'s sandbox', () => {
  // An EC_v1 token Apple's sandbox issued on 2021-08-20, as published in the tests of
  // github.com/globalpayments/php-sdk. Without its merchant key it cannot be decrypted, but its
  // signature checks end to end against the shipped Apple Root CA - G3: BER framing, Apple's real
  // marker extensions, the signed attributes as Apple encodes them.
  const sandboxToken = JSON.parse(readFileSync(new URL('./fixtures/apple-pay-sandbox-token.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  const signedAt = new Date('2021-08-20T15:11:26Z');

  it('verifies under Apple Root CA - G3 at its signing time, then stops at the unknown key', () => {
    const token = parseApplePayToken(sandboxToken);
    const signingTime = verifyApplePaySignature({ signature: token.signature, signedContent: applePaySignedContent(token), roots: [loadAppleRootCaG3()], now: signedAt, signingTimeWindowMs: 60_000 });
    expect(signingTime.toISOString()).toBe('2021-08-20T15:11:26.000Z');
    expect(refusal(() => decryptApplePayToken(sandboxToken, options({ roots: [loadAppleRootCaG3()], now: signedAt }))).code).toBe('unknown_key');
  });

  it('is refused once altered, or later than the window, or under another root', () => {
    const altered = { ...sandboxToken, header: { ...(sandboxToken['header'] as object), transactionId: 'c943bc79e49bd3c023988a0681be4df68a30ee64c8360feba1920a320cc29bd1' } };
    expect(refusal(() => decryptApplePayToken(altered, options({ roots: [loadAppleRootCaG3()], now: signedAt }))).code).toBe('bad_signature');
    expect(refusal(() => decryptApplePayToken(sandboxToken, options({ roots: [loadAppleRootCaG3()], now: new Date(signedAt.getTime() + 6 * 60_000) }))).code).toBe('expired');
    expect(refusal(() => decryptApplePayToken(sandboxToken, options({ now: signedAt }))).code).toBe('untrusted_chain');
  });
});

describe('Apple Pay token fuzzing', () => {
  // The property that matters: an altered token is refused with a WalletTokenError (never another
  // exception), or, where the alteration only touches unauthenticated framing the BER reader
  // tolerates (a length octet of the CMS envelope), it opens to exactly the original payment data.
  it('refuses an altered byte with a WalletTokenError or yields the original payment data', () => {
    const valid = token();
    const header = valid['header'] as Record<string, string>;
    const fields: [string, () => string, (value: string) => Record<string, unknown>][] = [
      ['data', () => valid['data'] as string, (value) => ({ ...valid, data: value })],
      ['signature', () => valid['signature'] as string, (value) => ({ ...valid, signature: value })],
      ['ephemeralPublicKey', () => header['ephemeralPublicKey'] as string, (value) => ({ ...valid, header: { ...header, ephemeralPublicKey: value } })],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.nat(), fc.integer({ min: 1, max: 255 }), ([, read, write], position, mask) => {
        const bytes = Buffer.from(read(), 'base64');
        const index = position % bytes.length;
        bytes[index] = (bytes[index] ?? 0) ^ mask;
        let result: ReturnType<typeof decryptApplePayToken> | undefined;
        try {
          result = decryptApplePayToken(write(bytes.toString('base64')), options());
        } catch {
          refusal(() => decryptApplePayToken(write(bytes.toString('base64')), options()));
        }
        if (result !== undefined) {
          expect(result.payment.accountNumber.reveal()).toBe(DPAN);
          expect(result.payment.cryptogram?.reveal()).toBe(CRYPTOGRAM);
        }
      }),
      { numRuns: 100 },
    );
  });
});
