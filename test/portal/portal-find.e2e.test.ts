import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../helpers/postgres.js';
import { PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';

/** Full numbers as people type them: plain, spaced, dashed, and one that fails Luhn. */
const FULL_NUMBERS = ['4111111111111111', '4111 1111 1111 1111', '5555-5555-5555-4444', '4111111111111112', '371449635398431'];

/**
 * Finding a card and a payment, telling gateways apart, and the home page (docs/portal.md), over
 * HTTP on both stores: every search key, the card's page, the transaction columns and filters, the
 * CSV export, and a full card number refused in every box without being echoed or logged.
 */
describe.each(storeKinds)('find a card, find a payment (%s)', (store) => {
  let server: TestServer;
  let env: string;
  let owner: PortalClient;
  let viewer: PortalClient;
  const gateways: Record<string, string> = {};
  const cards: Record<string, string> = {};
  const purchases: Record<string, string> = {};

  const vault = async (name: string, first: string, last: string, number: string, email: string, metadata: Record<string, string>) => {
    const res = await server.client.sendJson('POST', '/v1/payment_methods.json', {
      payment_method: { email, metadata, retained: true, credit_card: { first_name: first, last_name: last, number, verification_value: '123', month: 4, year: 2031 } },
    });
    cards[name] = res.json().transaction.payment_method.token as string;
  };
  const purchase = async (name: string, gateway: string, card: string, amount: number, currency: string, orderId: string) => {
    const res = await server.client.sendJson('POST', `/v1/gateways/${gateways[gateway]}/purchase.json`, {
      transaction: { payment_method_token: cards[card], amount, currency_code: currency, order_id: orderId },
    });
    expect(res.status).toBe(200);
    purchases[name] = res.json().transaction.token as string;
  };

  beforeAll(async () => {
    server = await startServer({ store });
    env = server.init.environment_key;
    await server.core.portalUsers.create(server.init.organization_token, { email: 'owner@example.com', role: 'owner', password: PASSWORD });
    await server.core.portalUsers.create(server.init.organization_token, { email: 'viewer@example.com', role: 'viewer', password: PASSWORD });
    for (const [name, description] of [['eu', 'Stripe EU'], ['backup', 'Backup acquirer'], ['plain', null], ['old', 'Old gateway']] as const) {
      const res = await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', ...(description === null ? {} : { description }) } });
      gateways[name] = res.json().gateway.token as string;
    }
    await server.client.request('PUT', `/v1/gateways/${gateways.old}/redact.json`);
    await vault('ada', 'Ada', 'Lovelace', VISA, 'Ada@Example.com', { customer: 'c-1' });
    await vault('bob', 'Bob', 'Stone', MASTERCARD, 'bob@example.com', { customer: 'c-2' });
    await vault('ada2', 'Ada', 'Byron', VISA, 'ada.byron@example.com', { customer: 'c-3' });
    await purchase('p1', 'eu', 'ada', 1250, 'USD', 'order-ada-1');
    await purchase('p2', 'backup', 'bob', 99900, 'USD', '=HYPERLINK("http://evil.example","click")');
    await purchase('p3', 'eu', 'bob', 5000, 'JPY', 'order-bob-jpy');
    await purchase('p4', 'plain', 'ada2', 300, 'EUR', 'order-ada-2');
    owner = new PortalClient(server.client);
    viewer = new PortalClient(server.client);
    await owner.signIn('owner@example.com', PASSWORD);
    await viewer.signIn('viewer@example.com', PASSWORD);
  });
  afterAll(() => server.close());

  /** The payment method tokens a search page lists, in order. */
  const listed = (text: string) => [...text.matchAll(/payment-methods\/([A-Za-z0-9]{20,})"/g)].map((m) => m[1]);

  it('finds a card by each key, and by several together', async () => {
    const search = async (query: string) => listed((await owner.get(`/portal/e/${env}/payment-methods?${query}`)).text);
    expect(await search('last_four=1111')).toEqual([cards.ada2, cards.ada]);
    expect(await search('first_six=555555')).toEqual([cards.bob]);
    expect(await search('email=ada%40example.com')).toEqual([cards.ada]);
    expect(await search('name=ada')).toEqual([cards.ada2, cards.ada]);
    expect(await search('name=Ada+Lo')).toEqual([cards.ada]);
    expect(await search('metadata_key=customer&metadata_value=c-2')).toEqual([cards.bob]);
    expect(await search('state=retained&last_four=4444')).toEqual([cards.bob]);
    expect(await search('state=redacted')).toEqual([]);
    expect(await search('from=2000-01-01&to=2000-01-02')).toEqual([]);
    const fingerprint = (await server.client.get(`/v1/payment_methods/${cards.ada}.json`)).json().payment_method.fingerprint as string;
    expect(await search(`fingerprint=${fingerprint}`)).toEqual([cards.ada2, cards.ada]);
    // The form is posted and redirected to a URL of the checked boxes only.
    await owner.get(`/portal/e/${env}/payment-methods`);
    const posted = await owner.post(`/portal/e/${env}/payment-methods/search`, { last_four: '1111', name: 'Ada L', email: '', state: '' });
    expect(posted.status).toBe(303);
    expect(posted.headers.location).toBe(`/portal/e/${env}/payment-methods?last_four=1111&name=Ada+L`);
    const page = await owner.get(posted.headers.location as string);
    expect(listed(page.text)).toEqual([cards.ada]);
    expect(page.text).toContain('XXXX-XXXX-XXXX-1111');
    expect(page.text).toContain('04/2031');
    expect(page.text).toContain('Ada Lovelace');
    expect(page.text).toContain('Visa');
  });

  it('refuses a malformed key by naming its box', async () => {
    for (const [query, words] of [['last_four=12a4', 'Last four must be exactly 4 digits.'], ['first_six=41', 'First six must be exactly 6 digits.'], ['fingerprint=xyz', 'Fingerprint must be'], ['state=gone', 'State is not one of'], ['from=yesterday', 'Created from must be a date'], ['metadata_key=customer', 'Metadata key and value go together.']] as const) {
      const res = await owner.get(`/portal/e/${env}/payment-methods?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.text, query).toContain(words);
    }
    await owner.get(`/portal/e/${env}/payment-methods`);
    const notToken = await owner.post(`/portal/e/${env}/payment-methods/lookup`, { token: 'not a token!' });
    expect(notToken.status).toBe(422);
    expect(notToken.text).toContain('That is not a payment method token');
    expect((await owner.get(`/portal/e/${env}/payment-methods/unknownToken123`)).status).toBe(404);
    expect((await owner.get(`/portal/e/${env}/transactions/export?amount_from=lots`)).status).toBe(422);
  });

  it('refuses a full card number in every search box, unseen: not echoed, not redirected, not logged', async () => {
    const cardBoxes = ['last_four', 'first_six', 'name', 'email', 'fingerprint', 'metadata_key', 'metadata_value'];
    const paymentBoxes = ['token', 'order_id', 'last_four', 'amount_from', 'amount_to', 'currency'];
    const logsBefore = server.logs.length;
    for (const number of FULL_NUMBERS) {
      const digits = number.replace(/\D/g, '');
      for (const [path, boxes] of [['payment-methods', cardBoxes], ['transactions', paymentBoxes]] as const) {
        for (const box of boxes) {
          await owner.get(`/portal/e/${env}/${path}`);
          const res = await owner.post(`/portal/e/${env}/${path}/search`, { [box]: `  ${number} ` });
          expect(res.status, `${path} ${box}`).toBe(422);
          expect(res.headers.location).toBeUndefined();
          expect(res.text).toContain('A full card number cannot be searched for, and what you typed was not kept.');
          expect(res.text).not.toContain(number);
          expect(res.text.replace(/\D/g, '')).not.toContain(digits);
          // Typed into a hand-made URL, the same refusal.
          const viaUrl = await owner.get(`/portal/e/${env}/${path}?${box}=${encodeURIComponent(number)}`);
          expect(viaUrl.status).toBe(422);
          expect(viaUrl.text).not.toContain(number);
        }
      }
      // Inside other words too ("card 4111 1111 1111 1111 of Ada").
      await owner.get(`/portal/e/${env}/payment-methods`);
      const inside = await owner.post(`/portal/e/${env}/payment-methods/search`, { name: `card ${number} of Ada` });
      expect(inside.status).toBe(422);
      expect(inside.text).not.toContain(number);
      await owner.get(`/portal/e/${env}/payment-methods`);
      const lookup = await owner.post(`/portal/e/${env}/payment-methods/lookup`, { token: number });
      expect(lookup.status).toBe(422);
      expect(lookup.text).not.toContain(number);
    }
    const written = server.logs.slice(logsBefore).join('\n');
    expect(written.length).toBeGreaterThan(0);
    for (const number of FULL_NUMBERS) {
      expect(written).not.toContain(number);
      expect(written.replace(/\D/g, '')).not.toContain(number.replace(/\D/g, ''));
    }
  });

  it("shows the card's page: its transactions, its twin by fingerprint, and actions by role", async () => {
    const page = await owner.get(`/portal/e/${env}/payment-methods/${cards.bob}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Mastercard');
    expect(page.text).toContain('XXXX-XXXX-XXXX-4444');
    expect(page.text).toContain(purchases.p2);
    expect(page.text).toContain(purchases.p3);
    expect(page.text).not.toContain(purchases.p1);
    expect(page.text).toContain('Stripe EU');
    expect(page.text).toContain('Backup acquirer');
    expect(page.text).toContain('Redact payment method');
    expect(page.text).toContain('Recache');
    expect(page.text).not.toContain(MASTERCARD);
    const twin = /href="([^"]*fingerprint=[0-9a-f]{36})"/.exec((await owner.get(`/portal/e/${env}/payment-methods/${cards.ada}`)).text)?.[1] as string;
    expect(listed((await owner.get(twin.replaceAll('&amp;', '&'))).text)).toEqual([cards.ada2, cards.ada]);
    const asViewer = await viewer.get(`/portal/e/${env}/payment-methods/${cards.bob}`);
    expect(asViewer.text).not.toContain('Redact payment method');
    expect(asViewer.text).toContain('retaining and redacting are for owners and admins');
    expect((await viewer.post(`/portal/e/${env}/payment-methods/${cards.bob}/redact`, {})).status).toBe(403);
  });

  it('lists payments with gateway, card, customer and order, and filters them', async () => {
    const tokensOf = (text: string) => [...text.matchAll(/transactions\/([A-Za-z0-9]{20,})"/g)].map((m) => m[1]);
    const all = await owner.get(`/portal/e/${env}/transactions`);
    expect(all.text).toContain('Stripe EU <span class="hint">Spreedly Test</span>');
    expect(all.text).toContain('Visa ····1111');
    expect(all.text).toContain('Mastercard ····4444');
    expect(all.text).toContain('12.50 USD');
    expect(all.text).toContain('999.00 USD');
    expect(all.text).toContain('5000 JPY');
    expect(all.text).toContain('order-ada-1');
    const search = async (query: string) => tokensOf((await owner.get(`/portal/e/${env}/transactions?${query}`)).text);
    expect(await search(`gateway=${gateways.eu}&type=Purchase`)).toEqual([purchases.p3, purchases.p1]);
    expect(await search('last_four=4444&type=Purchase')).toEqual([purchases.p3, purchases.p2]);
    // The card's own vault transactions (AddPaymentMethod, then RetainPaymentMethod as it was
    // retained at creation) are among its transactions too.
    expect(await search('last_four=4444')).toEqual([purchases.p3, purchases.p2, expect.any(String), expect.any(String)]);
    expect(await search('last_four=1111&state=succeeded&type=Purchase')).toEqual([purchases.p4, purchases.p1]);
    expect(await search('amount_from=10&amount_to=1000&currency=USD')).toEqual([purchases.p2, purchases.p1]);
    expect(await search('amount_from=4000&currency=JPY')).toEqual([purchases.p3]);
    expect(await search('order_id=order-bob-jpy')).toEqual([purchases.p3]);
    expect(await search('last_four=0000')).toEqual([]);
    expect((await owner.get(`/portal/e/${env}/transactions?amount_from=1.234&currency=USD`)).status).toBe(422);
    expect((await owner.get(`/portal/e/${env}/transactions?currency=XYZ`)).status).toBe(422);
    await owner.get(`/portal/e/${env}/transactions`);
    const posted = await owner.post(`/portal/e/${env}/transactions/search`, { last_four: '4444', amount_from: '10.00', gateway: '' });
    expect(posted.headers.location).toBe(`/portal/e/${env}/transactions?last_four=4444&amount_from=10.00`);
  });

  it('exports the filtered list as CSV: brand and last four only, formula cells defused', async () => {
    const res = await owner.get(`/portal/e/${env}/transactions/export?last_four=4444&type=Purchase`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="transactions-[A-Za-z0-9]+-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('"created_at","transaction_type","state","amount","amount_minor_units","currency","gateway","gateway_token","card_brand","card_last_four","customer_email","order_id","token","message"');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`"${purchases.p3}"`);
    expect(lines[1]).toContain('"Mastercard","4444"');
    expect(lines[1]).toContain('"Stripe EU (Spreedly Test)"');
    // The order id a client sent as a formula is shown as text.
    expect(lines[2]).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
    expect(res.text).not.toContain(MASTERCARD);
    expect(res.text).not.toContain('555555');
    const everything = await owner.get(`/portal/e/${env}/transactions/export`);
    expect(everything.text.trimEnd().split('\r\n').length).toBeGreaterThanOrEqual(5);
    expect(everything.text).not.toContain(VISA);
  });

  it('tells gateways apart by their display name, and agrees with the API on every state', async () => {
    const list = await owner.get(`/portal/e/${env}/gateways`);
    expect(list.text).toContain('Stripe EU');
    expect(list.text).toContain('Backup acquirer');
    expect(list.text).toContain('(no display name)');
    for (const token of Object.values(gateways)) {
      const api = (await server.client.get(`/v1/gateways/${token}.json`)).json().gateway;
      const row = new RegExp(`<tr>(?:(?!</tr>).)*${token}(?:(?!</tr>).)*</tr>`, 's').exec(list.text)?.[0] as string;
      expect(row, token).toContain(`>${api.state as string}</span>`);
      const shown = await owner.get(`/portal/e/${env}/gateways/${token}`);
      expect(shown.text).toContain(`>${api.state as string}</span>`);
    }
    expect((await server.client.get(`/v1/gateways/${gateways.old}.json`)).json().gateway.state).toBe('redacted');
    const old = await owner.get(`/portal/e/${env}/gateways/${gateways.old}`);
    expect(old.text).toContain('<title>Old gateway (Spreedly Test) · Coffer</title>');
    const form = await owner.get(`/portal/e/${env}/transactions`);
    expect(form.text).toContain(`<option value="${gateways.eu}">Stripe EU (Spreedly Test)</option>`);
    expect(form.text).toContain(`<option value="${gateways.old}">Old gateway (Spreedly Test, redacted)</option>`);
    expect(form.text).toMatch(new RegExp(`<option value="${gateways.plain}">Spreedly Test ${gateways.plain?.slice(0, 8)} \\(Spreedly Test\\)</option>`));
  });

  it('answers / with a page pointing to the portal and the docs, and serves a favicon', async () => {
    const home = await server.client.request('GET', '/', { auth: null });
    expect(home.status).toBe(200);
    expect(home.headers['content-type']).toContain('text/html');
    expect(home.text).toContain('<a href="/portal/">Merchant portal</a>');
    expect(home.text).toContain('<a href="/v1/openapi.json">');
    expect(home.headers['content-security-policy']).toContain("default-src 'none'");
    const icon = await server.client.request('GET', '/favicon.ico', { auth: null });
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toContain('image/svg+xml');
    const page = await owner.get(`/portal/e/${env}/payment-methods`);
    const href = /<link rel="icon" href="([^"]+)"/.exec(page.text)?.[1] as string;
    const asset = await server.client.request('GET', href, { auth: null });
    expect(asset.status).toBe(200);
    expect(asset.text).toContain('<svg');
    // The API is unchanged: an unauthenticated API call is still refused.
    expect((await server.client.request('GET', '/v1/gateways.json', { auth: null })).status).toBe(401);
  });
});
