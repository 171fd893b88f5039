import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { xmlErrorEntries } from '../helpers/xml.js';
import { setCardCapture, signTokenization, tokenizationBody, uploadSigningCertificate, VISA } from './helpers.js';

/*
 * POST /v1/payment_methods/restricted over real HTTPS: the environment key alone, allowed
 * origins and CORS, enhanced security (signature, stale timestamps, replayed nonces), and the
 * environment settings behind them; in JSON and XML, on every store.
 */

const SHOP = 'https://shop.example';
const ELSEWHERE = 'https://evil.example';
const ORIGIN_REFUSED = { key: 'errors.origin_not_allowed', message: 'This origin is not allowed to tokenize payment methods for the environment.' };
const BAD_SIGNATURE = { key: 'errors.invalid_signature', message: 'The signature of this tokenization request is missing or invalid.' };

describe.each(storeKinds)('browser tokenization (%s)', (store) => {
  let server: TestServer;
  let key: string;

  const post = (body: unknown, headers: Record<string, string> = {}, suffix = '.json') =>
    server.client.sendJson('POST', `/v1/payment_methods/restricted${suffix}?environment_key=${key}`, body, { auth: null, headers });

  beforeAll(async () => {
    server = await startServer({ store });
    key = server.init.environment_key;
  });
  afterAll(() => server.close());

  it('creates a cached payment method with the environment key alone; the API shows it masked', async () => {
    const res = await post(tokenizationBody(VISA, { retained: true }));
    expect(res.status, res.text).toBe(201);
    const transaction = res.json().transaction;
    expect(transaction.transaction_type).toBe('AddPaymentMethod');
    const token = transaction.payment_method.token;
    const shown = await server.client.get(`/v1/payment_methods/${token}.json`);
    expect(shown.json().payment_method).toMatchObject({ storage_state: 'cached', number: 'XXXX-XXXX-XXXX-1111', card_type: 'visa', verification_value: 'XXX' });
  });

  it('unknown environment key: 401 with the usual message; a refused card: 422 and nothing vaulted', async () => {
    const unknown = await server.client.sendJson('POST', '/v1/payment_methods/restricted.json?environment_key=nope', tokenizationBody(VISA), { auth: null });
    expect(unknown.status).toBe(401);
    expect(unknown.json().errors[0].key).toBe('errors.access_denied');
    const before = await server.core.store.db.selectFrom('payment_methods').select(({ fn }) => fn.countAll().as('n')).executeTakeFirstOrThrow();
    const invalid = await post(tokenizationBody(VISA, { credit_card: { number: VISA, month: 3, year: 2032 } }));
    expect(invalid.status).toBe(422);
    expect(invalid.json().errors).toContainEqual({ attribute: 'first_name', key: 'errors.blank', message: "First name can't be blank" });
    const after = await server.core.store.db.selectFrom('payment_methods').select(({ fn }) => fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  describe('allowed origins', () => {
    beforeAll(async () => {
      const res = await setCardCapture(server.client, key, { allowed_origins: [SHOP, 'http://127.0.0.1:8080/'] });
      expect(res.json().environment.allowed_origins).toEqual([SHOP, 'http://127.0.0.1:8080']);
    });
    afterAll(() => setCardCapture(server.client, key, { allowed_origins: [] }));

    it('an allowed page gets CORS headers; its preflight is answered', async () => {
      const preflight = await server.client.request('OPTIONS', `/v1/payment_methods/restricted.json?environment_key=${key}`, {
        auth: null,
        headers: { Origin: SHOP, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(SHOP);
      expect(preflight.headers['access-control-allow-methods']).toBe('POST');
      const res = await post(tokenizationBody(VISA), { Origin: SHOP });
      expect(res.status).toBe(201);
      expect(res.headers['access-control-allow-origin']).toBe(SHOP);
      // Errors are readable by the allowed page too.
      const invalid = await post(tokenizationBody(''), { Origin: SHOP });
      expect(invalid.status).toBe(422);
      expect(invalid.headers['access-control-allow-origin']).toBe(SHOP);
    });

    it('another origin is refused 403 without CORS headers, in JSON and XML, preflight included', async () => {
      const res = await post(tokenizationBody(VISA), { Origin: ELSEWHERE });
      expect(res.status).toBe(403);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.json().errors).toEqual([ORIGIN_REFUSED]);
      const xml = await server.client.sendXml(
        'POST',
        `/v1/payment_methods/restricted.xml?environment_key=${key}`,
        `<payment_method><credit_card><number>${VISA}</number><month>3</month><year>2032</year><first_name>J</first_name><last_name>J</last_name></credit_card></payment_method>`,
        { auth: null, headers: { Origin: ELSEWHERE } },
      );
      expect(xml.status).toBe(403);
      expect(xmlErrorEntries(xml.xml().errors)).toEqual([ORIGIN_REFUSED]);
      const preflight = await server.client.request('OPTIONS', `/v1/payment_methods/restricted.json?environment_key=${key}`, {
        auth: null,
        headers: { Origin: ELSEWHERE, 'Access-Control-Request-Method': 'POST' },
      });
      expect(preflight.status).toBe(403);
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('a request without Origin (a server, not a browser) is not subject to the list', async () => {
      const res = await post(tokenizationBody(VISA));
      expect(res.status).toBe(201);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it("Coffer's own frame is judged by the page that embeds it", async () => {
      const frame = { 'Sec-Fetch-Site': 'same-origin', Origin: server.client.baseUrl };
      expect((await post(tokenizationBody(VISA, { parent_origin: SHOP }), frame)).status).toBe(201);
      const refused = await post(tokenizationBody(VISA, { parent_origin: ELSEWHERE }), frame);
      expect(refused.status).toBe(403);
      expect(refused.json().errors).toEqual([ORIGIN_REFUSED]);
      expect((await post(tokenizationBody(VISA), frame)).status).toBe(403);
    });
  });

  describe('environment settings', () => {
    it('PUT environments/<key> sets and clears the list in JSON and XML; a non-origin is 422', async () => {
      const xml = await server.client.sendXml(
        'PUT',
        `/v1/environments/${key}.xml`,
        `<environment><allowed_origins><allowed_origin>${SHOP}</allowed_origin><allowed_origin>https://b.example</allowed_origin></allowed_origins><enhanced_iframe_security>false</enhanced_iframe_security></environment>`,
      );
      expect(xml.status, xml.text).toBe(200);
      expect(xml.xml().environment.allowed_origins.allowed_origin).toEqual([SHOP, 'https://b.example']);
      expect(xml.text).toContain('<enhanced_iframe_security type="boolean">false</enhanced_iframe_security>');
      for (const bad of ['https://shop.example/checkout', 'javascript:alert(1)', '*']) {
        const res = await server.client.sendJson('PUT', `/v1/environments/${key}.json`, { environment: { allowed_origins: [bad] } });
        expect(res.status).toBe(422);
        expect(res.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'allowed_origins' });
      }
      const badXml = await server.client.sendXml('PUT', `/v1/environments/${key}.xml`, '<environment><allowed_origins>ftp://x.example</allowed_origins></environment>');
      expect(badXml.status).toBe(422);
      expect(xmlErrorEntries(badXml.xml().errors)[0]).toMatchObject({ key: 'errors.invalid', attribute: 'allowed_origins' });
      const tooMany = Array.from({ length: 51 }, (_, i) => `https://shop${i}.example`);
      const many = await server.client.sendJson('PUT', `/v1/environments/${key}.json`, { environment: { allowed_origins: tooMany } });
      expect(many.status).toBe(422);
      expect(many.json().errors).toEqual([{ key: 'errors.too_long', attribute: 'allowed_origins', message: 'Allowed origins is too long (maximum is 50 origins)' }]);
      const cleared = await setCardCapture(server.client, key, { allowed_origins: [] });
      expect(cleared.json().environment.allowed_origins).toEqual([]);
      const any = await post(tokenizationBody(VISA), { Origin: ELSEWHERE });
      expect(any.status).toBe(201);
      expect(any.headers['access-control-allow-origin']).toBe(ELSEWHERE);
    });
  });

  describe('enhanced security', () => {
    let certificate: Awaited<ReturnType<typeof uploadSigningCertificate>>;
    beforeAll(async () => {
      certificate = await uploadSigningCertificate(server.client);
      const res = await setCardCapture(server.client, key, { enhanced_iframe_security: true });
      expect(res.json().environment.enhanced_iframe_security).toBe(true);
    });
    afterAll(() => setCardCapture(server.client, key, { enhanced_iframe_security: false }));

    it('accepts a signature made as Spreedly documents (HMAC keyed by the PEM, either spelling) and an RSA signature', async () => {
      for (const pem of [certificate.traditional, certificate.pkcs8]) {
        const res = await post(tokenizationBody(VISA, signTokenization(pem, certificate.token)));
        expect(res.status, res.text).toBe(201);
      }
      const nonce = crypto.randomUUID();
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = crypto.sign('sha256', Buffer.from(`${nonce}${timestamp}${certificate.token}`), certificate.privateKey).toString('base64');
      const rsa = await post(tokenizationBody(VISA, { nonce, timestamp, certificate_token: certificate.token, signature }));
      expect(rsa.status, rsa.text).toBe(201);
    });

    it('refuses a missing, bad or foreign signature, a stale or future timestamp, an unknown certificate (403, JSON and XML)', async () => {
      const good = signTokenization(certificate.traditional, certificate.token);
      const now = Math.floor(Date.now() / 1000);
      const cases: Array<[Record<string, unknown>, { key: string; message: string }]> = [
        [{}, BAD_SIGNATURE],
        [{ ...good, signature: crypto.randomBytes(32).toString('base64') }, BAD_SIGNATURE],
        [{ ...good, nonce: crypto.randomUUID() }, BAD_SIGNATURE],
        [signTokenization(crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, certificate.token), BAD_SIGNATURE],
        [signTokenization(certificate.traditional, 'unknowncertificate'), BAD_SIGNATURE],
        [signTokenization(certificate.traditional, certificate.token, now - 601), { key: 'errors.invalid_signature', message: 'The timestamp of this tokenization request is too old or in the future.' }],
        [signTokenization(certificate.traditional, certificate.token, now + 120), { key: 'errors.invalid_signature', message: 'The timestamp of this tokenization request is too old or in the future.' }],
      ];
      for (const [fields, error] of cases) {
        const res = await post(tokenizationBody(VISA, fields));
        expect(res.status, JSON.stringify(fields)).toBe(403);
        expect(res.json().errors).toEqual([error]);
      }
      const xml = await server.client.sendXml('POST', `/v1/payment_methods/restricted.xml?environment_key=${key}`, `<payment_method><credit_card><number>${VISA}</number></credit_card></payment_method>`, { auth: null });
      expect(xml.status).toBe(403);
      expect(xmlErrorEntries(xml.xml().errors)).toEqual([BAD_SIGNATURE]);
    });

    it('a nonce is spent once; a card refused by validation gives it back', async () => {
      const signed = signTokenization(certificate.traditional, certificate.token);
      const typo = await post(tokenizationBody('', signed));
      expect(typo.status).toBe(422);
      expect((await post(tokenizationBody(VISA, signed))).status).toBe(201);
      const replay = await post(tokenizationBody(VISA, signed));
      expect(replay.status).toBe(403);
      expect(replay.json().errors).toEqual([{ key: 'errors.nonce_already_used', message: 'The nonce of this tokenization request has already been used.' }]);
    });
  });
});

describe('browser tokenization counts against the API.md §7 tokenization limits', () => {
  it('per client IP and per card, like POST payment_methods', async () => {
    const server = await startServer({
      env: { COFFER_RATE_LIMITS: '{"payment_methods_client_ip": {"limit": 3, "window_seconds": 60}, "payment_methods_bin6_last4": {"limit": 2, "window_seconds": 86400}}' },
    });
    try {
      const post = (number: string) =>
        server.client.sendJson('POST', `/v1/payment_methods/restricted.json?environment_key=${server.init.environment_key}`, tokenizationBody(number), { auth: null });
      expect((await post(VISA)).status).toBe(201);
      expect((await post(VISA)).status).toBe(201);
      const perCard = await post(VISA);
      expect(perCard.status).toBe(429);
      expect(perCard.json().errors[0].key).toBe('errors.rate_limited');
      expect(perCard.headers['retry-after']).toBeDefined();
      // A refused request spends nothing: the third from this address passes, the fourth is over.
      expect((await post('5555555555554444')).status).toBe(201);
      const perIp = await post('5555555555554444');
      expect(perIp.status).toBe(429);
      expect(perIp.headers['ratelimit-limit']).toBe('3');
    } finally {
      await server.close();
    }
  });
});
