import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { setCardCapture, tokenizationBody, uploadSigningCertificate, VISA } from './helpers.js';

/*
 * The signed text of enhanced security is the bare concatenation nonce + timestamp +
 * certificate token (docs/card-capture.md). A spent signature must not be replayable by moving
 * characters across the nonce/timestamp boundary (a trailing `0` of the nonce into a timestamp
 * with a leading zero): only a canonical 10-digit timestamp is accepted, on the card form's
 * route and on the transparent redirect.
 */

const MALFORMED_TIMESTAMP = { key: 'errors.invalid_signature', message: 'The timestamp of this tokenization request must be Unix time in seconds, written as 10 digits.' };
const ARABIC_INDIC_ZERO = 0x0660;
const FULLWIDTH_ZERO = 0xff10;

/** The digits of `text` written in another Unicode decimal digit block. */
function inDigitsOf(zero: number, text: string): string {
  return [...text].map((digit) => String.fromCodePoint(zero + Number(digit))).join('');
}

/** A signature over exactly this nonce, timestamp and token, as a merchant's server makes it. */
function hmacSignature(privateKeyPem: string, nonce: string, timestamp: string, certificateToken: string): string {
  return crypto.createHmac('sha256', privateKeyPem.trimEnd()).update(`${nonce}${timestamp}${certificateToken}`).digest('base64');
}

describe('signed tokenization accepts only a canonical 10-digit timestamp', () => {
  let server: TestServer;
  let key: string;
  let certificate: Awaited<ReturnType<typeof uploadSigningCertificate>>;

  const post = (body: unknown) =>
    server.client.sendJson('POST', `/v1/payment_methods/restricted.json?environment_key=${key}`, body, { auth: null });
  const postForm = (fields: Record<string, string>) =>
    server.client.request('POST', '/v1/payment_methods', {
      auth: null,
      contentType: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({
        environment_key: key,
        redirect_url: 'https://shop.example/return',
        'credit_card[first_name]': 'Joe',
        'credit_card[last_name]': 'Jones',
        'credit_card[number]': VISA,
        'credit_card[month]': '3',
        'credit_card[year]': '2032',
        ...fields,
      }).toString(),
    });
  const paymentMethodCount = async (): Promise<number> => {
    const row = await server.core.store.db.selectFrom('payment_methods').select(({ fn }) => fn.countAll().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const signed = (nonce: string, timestamp: string, signature = hmacSignature(certificate.traditional, nonce, timestamp, certificate.token)) => ({
    nonce,
    timestamp,
    certificate_token: certificate.token,
    signature,
  });

  beforeAll(async () => {
    server = await startServer();
    key = server.init.environment_key;
    certificate = await uploadSigningCertificate(server.client);
    await setCardCapture(server.client, key, { enhanced_iframe_security: true });
  });
  afterAll(() => server.close());

  it('a spent signature is not replayed by moving trailing zeros of the nonce into the timestamp (card form)', async () => {
    const now = String(Math.floor(Date.now() / 1000));
    const nonce = `${crypto.randomUUID()}00`;
    const original = signed(nonce, now);
    expect((await post(tokenizationBody(VISA, original))).status).toBe(201);
    const before = await paymentMethodCount();
    for (const shift of [1, 2]) {
      const replay = { ...original, nonce: nonce.slice(0, -shift), timestamp: `${'0'.repeat(shift)}${now}` };
      const res = await post(tokenizationBody(VISA, replay));
      expect(res.status, res.text).toBe(403);
      expect(res.json().errors).toEqual([MALFORMED_TIMESTAMP]);
    }
    expect(await paymentMethodCount()).toBe(before);
  });

  it('the same replay through the transparent redirect is refused (302 back with the error, nothing vaulted)', async () => {
    const now = String(Math.floor(Date.now() / 1000));
    const nonce = `${crypto.randomUUID()}0`;
    const original = signed(nonce, now);
    expect((await postForm(original)).status).toBe(302);
    const before = await paymentMethodCount();
    const res = await postForm({ ...original, nonce: nonce.slice(0, -1), timestamp: `0${now}` });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(location.searchParams.get('token')).toBeNull();
    expect(location.searchParams.getAll('error')).toEqual([MALFORMED_TIMESTAMP.key]);
    expect(location.searchParams.getAll('error_message')).toEqual([MALFORMED_TIMESTAMP.message]);
    expect(await paymentMethodCount()).toBe(before);
  });

  it('refuses every other spelling of a fresh timestamp even when correctly signed (403, nothing vaulted)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const digits = String(now);
    const spellings = [
      `0${digits}`,
      `+${digits}`,
      `-${digits}`,
      ` ${digits}`,
      `${digits} `,
      `${digits}\n`,
      `\t${digits}`,
      digits.slice(1),
      `${digits}0`,
      `${digits}.0`,
      `${digits.slice(0, 5)} ${digits.slice(5)}`,
      '1.7e9',
      '0x6553f100',
      inDigitsOf(ARABIC_INDIC_ZERO, digits),
      inDigitsOf(FULLWIDTH_ZERO, digits),
      '',
    ];
    const before = await paymentMethodCount();
    for (const timestamp of spellings) {
      const res = await post(tokenizationBody(VISA, signed(`${crypto.randomUUID()}`, timestamp)));
      expect(res.status, JSON.stringify(timestamp)).toBe(403);
      expect(res.json().errors, JSON.stringify(timestamp)).toEqual([MALFORMED_TIMESTAMP]);
    }
    expect(await paymentMethodCount()).toBe(before);
  });

  it('a canonical timestamp is accepted as a string or a JSON number, and its nonce still spends once', async () => {
    const now = Math.floor(Date.now() / 1000);
    const asString = signed(crypto.randomUUID(), String(now));
    expect((await post(tokenizationBody(VISA, asString))).status).toBe(201);
    const asNumber = signed(crypto.randomUUID(), String(now));
    expect((await post(tokenizationBody(VISA, { ...asNumber, timestamp: now }))).status).toBe(201);
    const replay = await post(tokenizationBody(VISA, asString));
    expect(replay.status).toBe(403);
    expect(replay.json().errors[0].key).toBe('errors.nonce_already_used');
  });
});
