import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Certificate } from '../../src/domain/certificate.js';
import type { Environment } from '../../src/domain/environment.js';
import { AppError } from '../../src/domain/errors.js';
import type { CertificatesRepository } from '../../src/store/interfaces/certificates.js';
import type { StoreAccess } from '../../src/store/store-access.js';
import type { Keyring } from '../../src/vault/keyring.js';
import { WalletTokenService } from '../../src/services/wallet-tokens.service.js';
import { loadWalletTrust } from '../../src/vault/wallets/wallet-trust.js';
import { parseGooglePayRootKeys } from '../../src/vault/wallets/google-pay-root-keys.js';
import { applePayPaymentData, applePayToken, createApplePayTestCa, createGooglePayTestRoot, googlePayToken, merchantKeyPair } from '../helpers/wallet-tokens.js';

/**
 * The wallet token service's own decisions, over fakes of what it reads (certificates, the keyring):
 * which certificate keys a token may be for, what is refused before any decryption (no Google
 * merchant id, no Google roots in production, no key), EMV payment data, and test card numbers.
 */

const NOW = new Date();

function environment(overrides: Partial<Environment> = {}): Environment {
  return {
    key: 'env-1',
    organizationToken: 'org',
    name: 'test',
    production: false,
    allowedOrigins: null,
    enhancedIframeSecurity: false,
    callbackUrl: null,
    callbackFormat: 'xml',
    callbackEventTypes: null,
    sealedSigningSecret: null,
    googlePayMerchantId: '0123',
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
    ...overrides,
  };
}

/** A certificate row whose "sealed" key is its PEM (the fake keyring opens it as is). */
function certificateRow(token: string, privateKeyPem: string, spkiDer: Buffer, pem: string | null): Certificate {
  return {
    token,
    environmentKey: 'env-1',
    level: 'environment',
    algorithm: 'ec-prime256v1',
    cn: null,
    o: null,
    ou: null,
    c: null,
    st: null,
    l: null,
    emailAddress: null,
    publicKey: '',
    publicKeyHash: createHash('sha256').update(spkiDer).digest('base64'),
    csr: null,
    pem,
    redactedAt: null,
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
    sealedPrivateKey: privateKeyPem,
  };
}

function service(rows: Certificate[], trust = loadWalletTrust({ applePayRootCaPath: null, googlePayRootKeysPath: null })): { wallets: WalletTokenService; opened: string[] } {
  const opened: string[] = [];
  const certificates = { usable: async () => rows } as unknown as CertificatesRepository;
  const store = { repos: { certificates }, unitOfWork: () => Promise.reject(new Error('not used')) } as unknown as StoreAccess<'certificates'>;
  const keyring = {
    openFor: async (_environment: string, blob: string, aad: string) => {
      opened.push(aad);
      return Buffer.from(blob, 'utf8');
    },
  } as unknown as Keyring;
  return { wallets: new WalletTokenService(store, keyring, { now: () => NOW }, trust), opened };
}

async function refusal(promise: Promise<unknown>): Promise<{ key: string; attribute?: string; message: string }> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(AppError);
  return (error as AppError).entries[0] as { key: string; attribute?: string; message: string };
}

function pemPair() {
  const pair = merchantKeyPair();
  return { ...pair, privatePem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, spki: pair.publicKey.export({ type: 'spki', format: 'der' }) };
}

describe('WalletTokenService', () => {
  it('opens only the certificate keys whose public_key_hash the Apple Pay token names, and only those with a signed certificate', async () => {
    const ca = await createApplePayTestCa();
    const trust = { appleRoots: [ca.root], signingTimeWindowMs: 300_000, googleRootKeys: () => [] };
    const named = pemPair();
    const other = pemPair();
    const rows = [
      certificateRow('other', other.privatePem, other.spki, await ca.merchantCertificate(other.publicKey, 'merchant.x')),
      certificateRow('named', named.privatePem, named.spki, await ca.merchantCertificate(named.publicKey, 'merchant.x')),
    ];
    const { wallets, opened } = service(rows, trust);
    const token = applePayToken({ ca, merchantPublicKey: named.publicKey, merchantIdentifier: 'merchant.x', payload: applePayPaymentData() });
    const decrypted = await wallets.decrypt(environment(), 'apple_pay', { paymentData: token });
    expect(decrypted).toMatchObject({ type: 'apple_pay', networkToken: true, eci: '7', month: 12, year: 2029 });
    expect(decrypted.number.reveal()).toBe('4817499999999994');
    expect(decrypted.replayDigest).toBe(createHash('sha256').update(`apple_pay:${(token.header as { transactionId: string }).transactionId}`).digest('hex'));
    expect(opened).toEqual(['certificate:named:private_key']);

    // A key whose certificate Apple has not signed yet (no pem) cannot open a token.
    const unsigned = service([{ ...(rows[1] as Certificate), pem: null }], trust);
    expect((await refusal(unsigned.wallets.decrypt(environment(), 'apple_pay', { paymentData: token }))).key).toBe('errors.wallet_token_unknown_key');
    expect(unsigned.opened).toEqual([]);
  });

  it('refuses Apple Pay EMV payment data (only 3DSecure tokens can be charged)', async () => {
    const ca = await createApplePayTestCa();
    const key = pemPair();
    const row = certificateRow('c', key.privatePem, key.spki, await ca.merchantCertificate(key.publicKey, 'merchant.x'));
    const { wallets } = service([row], { appleRoots: [ca.root], signingTimeWindowMs: 300_000, googleRootKeys: () => [] });
    const token = applePayToken({ ca, merchantPublicKey: key.publicKey, merchantIdentifier: 'merchant.x', payload: applePayPaymentData({ paymentDataType: 'EMV', paymentData: { emvData: 'AAEC' } }) });
    const entry = await refusal(wallets.decrypt(environment(), 'apple_pay', { paymentData: token }));
    expect(entry).toMatchObject({ key: 'errors.wallet_token_malformed', attribute: 'payment_data' });
    expect(entry.message).toContain('EMV');
  });

  it('refuses Google Pay before any key is opened when the merchant id is not set, or no root keys are configured (production without COFFER_GOOGLE_PAY_ROOT_KEYS)', async () => {
    const root = createGooglePayTestRoot();
    const key = pemPair();
    const token = googlePayToken({ root, merchantPublicKey: key.publicKey, recipientId: 'merchant:0123' });
    const rows = [certificateRow('g', key.privatePem, key.spki, null)];
    const noId = service(rows);
    expect(await refusal(noId.wallets.decrypt(environment({ googlePayMerchantId: null }), 'google_pay', { paymentData: token }))).toMatchObject({ key: 'errors.wallet_not_configured' });
    const production = service(rows, { appleRoots: [], signingTimeWindowMs: 300_000, googleRootKeys: () => [] });
    const entry = await refusal(production.wallets.decrypt(environment({ production: true }), 'google_pay', { paymentData: token }));
    expect(entry).toMatchObject({ key: 'errors.wallet_not_configured' });
    expect(entry.message).toContain('COFFER_GOOGLE_PAY_ROOT_KEYS');
    expect([...noId.opened, ...production.opened]).toEqual([]);
  });

  it("verifies production Google Pay tokens against Google's shipped production root, so a token signed under a test root is refused there", async () => {
    const root = createGooglePayTestRoot();
    const key = pemPair();
    const token = googlePayToken({ root, merchantPublicKey: key.publicKey, recipientId: 'merchant:0123' });
    const shipped = service([certificateRow('g', key.privatePem, key.spki, null)]);
    const entry = await refusal(shipped.wallets.decrypt(environment({ production: true, googlePayMerchantId: '0123' }), 'google_pay', { paymentData: token }));
    expect(entry.key).toBe('errors.wallet_token_bad_signature');
  });

  it('refuses Google Pay when the environment has no P-256 key, and skips keys of other kinds', async () => {
    const root = createGooglePayTestRoot();
    const trust = { appleRoots: [], signingTimeWindowMs: 300_000, googleRootKeys: () => parseGooglePayRootKeys(root.keysJson) };
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rsaRow = certificateRow('r', rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, rsa.publicKey.export({ type: 'spki', format: 'der' }), null);
    const { wallets } = service([rsaRow], trust);
    const entry = await refusal(wallets.decrypt(environment(), 'google_pay', { paymentData: { protocolVersion: 'ECv2' } }));
    expect(entry).toMatchObject({ key: 'errors.wallet_token_unknown_key', attribute: 'payment_data' });
  });

  it('takes a test card number in a test environment only, as a network token with a made-up cryptogram', async () => {
    const { wallets } = service([]);
    const decrypted = await wallets.decrypt(environment(), 'google_pay', { testCardNumber: '4111 1111 1111 1111' });
    expect(decrypted).toMatchObject({ type: 'google_pay', networkToken: true, eci: '05', month: 12, replayDigest: null });
    expect(decrypted.number.reveal()).toBe('4111111111111111');
    expect(Buffer.from(decrypted.cryptogram?.reveal() ?? '', 'base64')).toHaveLength(20);
    expect(await refusal(wallets.decrypt(environment({ production: true }), 'apple_pay', { testCardNumber: '4111111111111111' }))).toMatchObject({ key: 'errors.invalid', attribute: 'test_card_number' });
    expect(await refusal(wallets.decrypt(environment(), 'apple_pay', { testCardNumber: '4242424242424242' }))).toMatchObject({ key: 'errors.invalid', attribute: 'test_card_number' });
    expect(await refusal(wallets.decrypt(environment(), 'apple_pay', {}))).toMatchObject({ key: 'errors.blank', attribute: 'payment_data' });
  });
});
