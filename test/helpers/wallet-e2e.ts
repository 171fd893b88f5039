import { createPublicKey, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { ApiClient } from './client.js';
import { tempDir } from './temp.js';
import { createApplePayTestCa, createGooglePayTestRoot, type ApplePayTestCa, type GooglePayTestRoot } from './wallet-tokens.js';

/** The merchant identifier of the Apple Pay tests, and the Google merchant id. */
export const APPLE_MERCHANT_ID = 'merchant.com.example.coffer';
export const GOOGLE_MERCHANT_ID = '01234567890123456789';

/**
 * Roots standing in for Apple's and Google's, written where Coffer reads them
 * (COFFER_APPLE_PAY_ROOT_CA, COFFER_GOOGLE_PAY_ROOT_KEYS): `env` is what the server starts with.
 */
export interface WalletRoots {
  apple: ApplePayTestCa;
  google: GooglePayTestRoot;
  env: Record<string, string>;
  cleanup(): void;
}

export async function walletRoots(): Promise<WalletRoots> {
  const apple = await createApplePayTestCa();
  const google = createGooglePayTestRoot();
  const temp = tempDir('coffer-wallet-roots-');
  const applePath = path.join(temp.dir, 'apple-root.pem');
  const googlePath = path.join(temp.dir, 'google-keys.json');
  fs.writeFileSync(applePath, apple.rootPem);
  fs.writeFileSync(googlePath, google.keysJson);
  return { apple, google, env: { COFFER_APPLE_PAY_ROOT_CA: applePath, COFFER_GOOGLE_PAY_ROOT_KEYS: googlePath }, cleanup: temp.cleanup };
}

/** A merchant key made in Coffer: `POST /v1/certificates/generate` with ec-prime256v1; its token and public key. */
export async function generateMerchantKey(client: ApiClient, cn = APPLE_MERCHANT_ID): Promise<{ token: string; publicKey: KeyObject; publicKeyHash: string }> {
  const res = await client.sendJson('POST', '/v1/certificates/generate.json', { certificate: { algorithm: 'ec-prime256v1', cn } });
  expect(res.status, res.text).toBe(201);
  const certificate = res.json().certificate;
  return { token: certificate.token, publicKey: createPublicKey(certificate.public_key as string), publicKeyHash: certificate.public_key_hash };
}

/**
 * Apple Pay's setup as a merchant does it: Coffer makes the key and CSR, "Apple" (the test CA)
 * signs a payment processing certificate for its public key, the merchant uploads it.
 */
export async function enrollApplePay(client: ApiClient, ca: ApplePayTestCa): Promise<{ token: string; publicKey: KeyObject; publicKeyHash: string }> {
  const key = await generateMerchantKey(client);
  const pem = await ca.merchantCertificate(key.publicKey, APPLE_MERCHANT_ID);
  const res = await client.sendJson('PUT', `/v1/certificates/${key.token}.json`, { certificate: { pem } });
  expect(res.status, res.text).toBe(200);
  return key;
}

/** Sets the environment's Google merchant id (`PUT /v1/environments/<key>`); the client must be an admin's. */
export async function setGoogleMerchantId(client: ApiClient, environmentKey: string, merchantId: string | null = GOOGLE_MERCHANT_ID): Promise<void> {
  const res = await client.sendJson('PUT', `/v1/environments/${environmentKey}.json`, { environment: { google_pay_merchant_id: merchantId ?? '' } });
  expect(res.status, res.text).toBe(200);
  expect(res.json().environment.google_pay_merchant_id).toBe(merchantId);
}
