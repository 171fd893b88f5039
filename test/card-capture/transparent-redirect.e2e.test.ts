import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { xmlErrorEntries } from '../helpers/xml.js';
import { setCardCapture, signTokenization, uploadSigningCertificate, VISA } from './helpers.js';

/*
 * The transparent redirect (form-encoded POST /v1/payment_methods) over real HTTPS: 302 to
 * redirect_url with the token or with the errors; what is never redirected to; and the JSON and
 * XML POST /v1/payment_methods unchanged beside it.
 */

const LANDING = 'https://shop.example/return?order=42';
const FORM = 'application/x-www-form-urlencoded';

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

describe.each(storeKinds)('transparent redirect (%s)', (store) => {
  let server: TestServer;
  let key: string;

  const card = (extra: Record<string, string> = {}) => ({
    environment_key: key,
    redirect_url: LANDING,
    'credit_card[first_name]': 'Joe',
    'credit_card[last_name]': 'Jones',
    'credit_card[number]': VISA,
    'credit_card[verification_value]': '123',
    'credit_card[month]': '3',
    'credit_card[year]': '2032',
    ...extra,
  });
  const post = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    server.client.request('POST', '/v1/payment_methods', { auth: null, contentType: FORM, body: form(fields), headers });

  beforeAll(async () => {
    server = await startServer({ store });
    key = server.init.environment_key;
  });
  afterAll(() => server.close());

  it('302 to redirect_url?token=… (its own query kept); the token is a cached masked card', async () => {
    const res = await post(card({ email: 'joe@example.com', 'metadata[order]': '42' }));
    expect(res.status, res.text).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe('https://shop.example/return');
    expect(location.searchParams.get('order')).toBe('42');
    const token = location.searchParams.get('token') as string;
    const shown = (await server.client.get(`/v1/payment_methods/${token}.json`)).json().payment_method;
    expect(shown).toMatchObject({ storage_state: 'cached', number: 'XXXX-XXXX-XXXX-1111', email: 'joe@example.com', metadata: { order: '42' }, verification_value: 'XXX' });
  });

  it("answers with Rails' redirect body, the href HTML-escaped, on success and on errors", async () => {
    const res = await post(card());
    expect(res.status, res.text).toBe(302);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const href = (res.headers.location as string).replace(/&/g, '&amp;');
    expect(res.text).toBe(`<html><body>You are being <a href="${href}">redirected</a>.</body></html>`);
    expect(res.text).toMatch(/order=42&amp;token=\w+"/);
    const refused = await post(card({ 'credit_card[first_name]': '', 'credit_card[last_name]': '' }));
    expect(refused.status).toBe(302);
    expect(refused.text).toMatch(/^<html><body>You are being <a href="https:\/\/shop\.example\/return\?order=42&amp;error=errors\.blank&amp;[^"<>]*">redirected<\/a>\.<\/body><\/html>$/);
    expect(refused.text).toContain(`href="${(refused.headers.location as string).replace(/&/g, '&amp;').replace(/'/g, '&#39;')}"`);
  });

  it('payment_method_type=sprel vaults the offsite test method', async () => {
    const res = await post({ environment_key: key, redirect_url: LANDING, payment_method_type: 'sprel' });
    expect(res.status, res.text).toBe(302);
    const token = new URL(res.headers.location as string).searchParams.get('token') as string;
    const json = (await server.client.get(`/v1/payment_methods/${token}.json`)).json().payment_method;
    expect(json).toMatchObject({ token, storage_state: 'cached', test: true, payment_method_type: 'sprel', errors: [] });
    const xml = (await server.client.get(`/v1/payment_methods/${token}.xml`)).xml().payment_method;
    expect(xml.payment_method_type).toBe('sprel');
  });

  it('errors redirect too, one error/error_message/error_attribute per error; nothing is vaulted', async () => {
    const res = await post(card({ 'credit_card[first_name]': '', 'credit_card[last_name]': '' }));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(location.searchParams.get('token')).toBeNull();
    expect(location.searchParams.getAll('error')).toEqual(['errors.blank', 'errors.blank']);
    expect(location.searchParams.getAll('error_attribute')).toEqual(['first_name', 'last_name']);
    expect(location.searchParams.getAll('error_message')).toEqual(["First name can't be blank", "Last name can't be blank"]);
    const unknown = await post(card({ environment_key: 'unknownenvironment' }));
    expect(unknown.status).toBe(302);
    expect(new URL(unknown.headers.location as string).searchParams.get('error')).toBe('errors.access_denied');
  });

  it('redirect_url must be an absolute http(s) URL: otherwise 422 in JSON, no redirect', async () => {
    for (const [url, error] of [
      ['', { key: 'errors.blank', attribute: 'redirect_url', message: "Redirect url can't be blank" }],
      ['javascript:alert(1)', { key: 'errors.invalid', attribute: 'redirect_url', message: 'Redirect url is invalid' }],
      ['/relative', { key: 'errors.invalid', attribute: 'redirect_url', message: 'Redirect url is invalid' }],
      ['ftp://shop.example/x', { key: 'errors.invalid', attribute: 'redirect_url', message: 'Redirect url is invalid' }],
    ] as const) {
      // A suffix-less path's errors are XML unless Accept asks for JSON (docs/wire-compatibility.md).
      const res = await post(card({ redirect_url: url }), { Accept: 'application/json' });
      expect(res.status, url).toBe(422);
      expect(res.headers.location).toBeUndefined();
      expect(res.json().errors).toEqual([error]);
    }
  });

  it('with allowed origins, redirect_url and the posting page must be on one of them', async () => {
    await setCardCapture(server.client, key, { allowed_origins: ['https://shop.example'] });
    try {
      const offsite = await post(card({ redirect_url: 'https://evil.example/x' }), { Accept: 'application/json' });
      expect(offsite.status).toBe(422);
      const offsiteXml = await post(card({ redirect_url: 'https://evil.example/x' }), { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
      expect(offsiteXml.status).toBe(422);
      expect(offsiteXml.text).toContain('Redirect url is not on an allowed origin');
      expect(offsiteXml.headers['content-type']).toMatch(/xml/);
      expect(offsite.json().errors).toEqual([{ key: 'errors.invalid', attribute: 'redirect_url', message: 'Redirect url is not on an allowed origin' }]);
      const foreignPage = await post(card(), { Origin: 'https://evil.example' });
      expect(foreignPage.status).toBe(302);
      expect(new URL(foreignPage.headers.location as string).searchParams.get('error')).toBe('errors.origin_not_allowed');
      expect((await post(card(), { Origin: 'https://shop.example' })).status).toBe(302);
    } finally {
      await setCardCapture(server.client, key, { allowed_origins: [] });
    }
  });

  it('with enhanced security the form carries the signature fields', async () => {
    const certificate = await uploadSigningCertificate(server.client);
    await setCardCapture(server.client, key, { enhanced_iframe_security: true });
    try {
      const unsigned = await post(card());
      expect(new URL(unsigned.headers.location as string).searchParams.get('error')).toBe('errors.invalid_signature');
      const signed = await post(card(signTokenization(certificate.traditional, certificate.token)));
      expect(new URL(signed.headers.location as string).searchParams.get('token')).not.toBeNull();
    } finally {
      await setCardCapture(server.client, key, { enhanced_iframe_security: false });
    }
  });

  it('JSON and XML POST payment_methods are unchanged: credentials needed, 201', async () => {
    const body = { payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: VISA, month: 3, year: 2032 } } };
    const anonymous = await server.client.sendJson('POST', '/v1/payment_methods.json', body, { auth: null });
    expect(anonymous.status).toBe(401);
    const xml = await server.client.sendXml('POST', '/v1/payment_methods.xml', '<payment_method><credit_card><number>1</number></credit_card></payment_method>', { auth: null });
    expect(xml.status).toBe(401);
    expect(xmlErrorEntries(xml.xml().errors)[0]?.key).toBe('errors.access_denied');
    expect((await server.client.sendJson('POST', '/v1/payment_methods.json', body)).status).toBe(201);
    // A form body on the JSON path of another route is still 415.
    const other = await server.client.request('POST', '/v1/gateways.json', { contentType: FORM, body: 'gateway[gateway_type]=test' });
    expect(other.status).toBe(415);
  });
});

describe('transparent redirect and the tokenization limits', () => {
  it('a form over the per-IP budget is redirected with errors.rate_limited', async () => {
    const server = await startServer({ env: { COFFER_RATE_LIMITS: '{"payment_methods_client_ip": {"limit": 1, "window_seconds": 60}}' } });
    try {
      const fields = {
        environment_key: server.init.environment_key,
        redirect_url: LANDING,
        'credit_card[first_name]': 'A',
        'credit_card[last_name]': 'B',
        'credit_card[number]': VISA,
        'credit_card[month]': '3',
        'credit_card[year]': '2032',
      };
      const post = () => server.client.request('POST', '/v1/payment_methods', { auth: null, contentType: FORM, body: form(fields) });
      expect(new URL((await post()).headers.location as string).searchParams.get('token')).not.toBeNull();
      const limited = await post();
      expect(limited.status).toBe(302);
      expect(new URL(limited.headers.location as string).searchParams.get('error')).toBe('errors.rate_limited');
    } finally {
      await server.close();
    }
  });
});
