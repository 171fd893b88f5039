import crypto from 'node:crypto';
import { expect } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { createTestCa, outsideKey } from '../certificates/test-ca.js';

export const VISA = '4111111111111111';

/** A browser tokenization body (the frame's shape). */
export function tokenizationBody(number: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    payment_method: {
      credit_card: { first_name: 'Joe', last_name: 'Jones', number, verification_value: '123', month: 3, year: 2032 },
      email: 'joe@example.com',
      ...extra,
    },
  };
}

/** PUT environments/<key> as the admin secret (JSON). */
export async function setCardCapture(client: ApiClient, environmentKey: string, settings: Record<string, unknown>): Promise<ApiResponse> {
  const res = await client.sendJson('PUT', `/v1/environments/${environmentKey}.json`, { environment: settings });
  expect(res.status, res.text).toBe(200);
  return res;
}

/** An RSA key made by the merchant, its certificate uploaded to Coffer; returns the token and key spellings. */
export async function uploadSigningCertificate(client: ApiClient): Promise<{ token: string; pkcs8: string; traditional: string; privateKey: crypto.KeyObject }> {
  const ca = await createTestCa();
  const key = outsideKey('rsa');
  const pem = await ca.issue(key.publicKey, 'CN=payment.example.com');
  const res = await client.sendJson('POST', '/v1/certificates.json', { certificate: { pem, private_key: key.traditional } });
  expect(res.status, res.text).toBe(201);
  return { token: res.json().certificate.token, pkcs8: key.pkcs8, traditional: key.traditional, privateKey: key.privateKey };
}

/** What a merchant's server makes, as Spreedly documents: base64 HMAC-SHA256 keyed by the key's PEM text. */
export function signTokenization(privateKeyPem: string, certificateToken: string, timestamp = Math.floor(Date.now() / 1000)) {
  const nonce = crypto.randomUUID();
  const text = `${nonce}${timestamp}${certificateToken}`;
  const signature = crypto.createHmac('sha256', privateKeyPem.trimEnd()).update(text).digest('base64');
  return { nonce, timestamp: String(timestamp), certificate_token: certificateToken, signature };
}
