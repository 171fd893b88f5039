import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/spawn.js';
import { startServer, type TestServer } from '../helpers/server.js';
import type { ApiClient } from '../helpers/client.js';
import { setCardCapture, signTokenization, uploadSigningCertificate, VISA } from './helpers.js';
import { startMerchantSite, type MerchantSite } from './merchant-site.js';

/*
 * The card form in real Chromium: a merchant's checkout page on another origin loads Coffer's
 * iFrame-compatible script exactly as Spreedly's guide shows it (only the src changed), the
 * test types a card into Coffer's frames and gets a token the v1 API shows as a cached, masked
 * card. Coffer serves TLS with its generated local CA; the browser context ignores certificate
 * errors (the CA is not in Chromium's store), which changes nothing else about the page.
 */

// The functions passed to page.evaluate run in the browser: these names exist there, not here.
declare const window: any;
declare const document: any;

const CHROMIUM = process.env.COFFER_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = path.join(repoRoot, '.tmp', 'screenshots');
const NUMBER_SPELLINGS = [VISA, '4111 1111 1111 1111'];

type Recorded = unknown[];

describe('card form in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let shop: MerchantSite;
  let elsewhere: MerchantSite;

  beforeAll(async () => {
    // The served script is the build's output (npm ci builds it; a fresh checkout under test may not have).
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'build-card-capture.mjs')], { stdio: 'ignore' });
    fs.mkdirSync(SHOTS, { recursive: true });
    server = await startServer();
    const settings = { cofferUrl: server.client.baseUrl, environmentKey: server.init.environment_key };
    shop = await startMerchantSite({ ...settings });
    elsewhere = await startMerchantSite({ ...settings });
    await setCardCapture(server.client, server.init.environment_key, { allowed_origins: [shop.origin] });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 520, height: 520 } });
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await shop?.close();
    await elsewhere?.close();
    await server?.close();
  });

  const recorded = (page: Page): Promise<Recorded[]> => page.evaluate(() => (window as unknown as { recorded: Recorded[] }).recorded);
  const waitFor = (page: Page, event: string) =>
    page.waitForFunction((name) => (window as unknown as { recorded: Recorded[] }).recorded.some((entry) => entry[0] === name), event, { timeout: 15_000 });

  async function openCheckout(site: MerchantSite): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${site.origin}/checkout`);
    return page;
  }

  async function fillCard(page: Page, number: string, cvv = '123'): Promise<void> {
    await page.fill('#full_name', 'Joe Jones');
    await page.frameLocator('#spreedly-number iframe').locator('#field-input').pressSequentially(number);
    await page.frameLocator('#spreedly-cvv iframe').locator('#field-input').pressSequentially(cvv);
    await page.fill('#month', '3');
    await page.fill('#year', '2032');
  }

  /** Nothing the merchant's page can reach holds the number: DOM, its scripts' data, messages. */
  async function expectNumberUnseen(page: Page): Promise<void> {
    const seen = await page.evaluate(() => {
      const w = window as unknown as { recorded: unknown[]; received: string[] };
      const inputs = Array.from(document.querySelectorAll('input') as ArrayLike<{ value: string }>).map((input) => input.value);
      let frameReadable = true;
      try {
        void document.querySelector('#spreedly-number iframe').contentWindow.document.body;
      } catch {
        frameReadable = false;
      }
      return { html: document.documentElement.outerHTML, inputs, recorded: JSON.stringify(w.recorded), received: w.received.join('\n'), frameReadable };
    });
    expect(seen.frameReadable).toBe(false);
    for (const spelling of NUMBER_SPELLINGS) {
      expect(seen.html).not.toContain(spelling);
      expect(seen.inputs.join('|')).not.toContain(spelling);
      expect(seen.recorded).not.toContain(spelling);
      expect(seen.received).not.toContain(spelling);
    }
  }

  it('types a card into the frames, tokenizes it, and the API shows a cached masked card', async () => {
    const page = await openCheckout(shop);
    await waitFor(page, 'ready');
    await fillCard(page, VISA);
    await page.screenshot({ path: path.join(SHOTS, 'card-form-filled.png') });
    const shown = await page.frameLocator('#spreedly-number iframe').locator('#field-input').inputValue();
    expect(shown).toBe('4111 1111 1111 1111');
    await page.click('#submit-button');
    await waitFor(page, 'paymentMethod');
    await page.screenshot({ path: path.join(SHOTS, 'card-form-tokenized.png') });
    const [, token, pmData] = (await recorded(page)).find((entry) => entry[0] === 'paymentMethod') as [string, string, Record<string, unknown>];
    expect(pmData).toMatchObject({ token, number: 'XXXX-XXXX-XXXX-1111', card_type: 'visa', storage_state: 'cached' });
    const api = await server.client.get(`/v1/payment_methods/${token}.json`);
    expect(api.json().payment_method).toMatchObject({
      storage_state: 'cached',
      number: 'XXXX-XXXX-XXXX-1111',
      first_name: 'Joe',
      last_name: 'Jones',
      month: 3,
      year: 2032,
      verification_value: 'XXX',
    });
    expect(await page.inputValue('#payment_method_token')).toBe(token);
    await expectNumberUnseen(page);
    await page.close();
  });

  it('reports the brand, length and validity while the shopper types; validate() reports both fields', async () => {
    const page = await openCheckout(shop);
    await waitFor(page, 'ready');
    const number = page.frameLocator('#spreedly-number iframe').locator('#field-input');
    await number.pressSequentially('3782');
    await page.frameLocator('#spreedly-cvv iframe').locator('#field-input').pressSequentially('1234');
    await page.evaluate(() => (window as unknown as { Spreedly: { validate(): void } }).Spreedly.validate());
    await waitFor(page, 'validation');
    const events = await recorded(page);
    const inputs = events.filter((entry) => entry[0] === 'fieldEvent' && entry[2] === 'input') as Array<[string, string, string, string, Record<string, unknown>]>;
    expect(inputs[0]?.[4]).toMatchObject({ numberLength: 1, validNumber: false });
    expect(inputs.find((entry) => entry[1] === 'number' && entry[4].numberLength === 4)).toMatchObject([
      'fieldEvent', 'number', 'input', 'number', { cardType: 'american_express', numberLength: 4, validNumber: false },
    ]);
    expect(events.some((entry) => entry[0] === 'fieldEvent' && entry[2] === 'focus')).toBe(true);
    const validation = events.find((entry) => entry[0] === 'validation') as [string, Record<string, unknown>];
    expect(validation[1]).toEqual({ cardType: 'american_express', validNumber: false, validCvv: true, numberLength: 4, cvvLength: 4 });
    await page.close();
  });

  it('the field calls reach the frames: label, type, placeholder, format, focus, autocomplete, reload, removeHandlers', async () => {
    const page = await openCheckout(shop);
    await waitFor(page, 'ready');
    const number = page.frameLocator('#spreedly-number iframe').locator('#field-input');
    const cvv = page.frameLocator('#spreedly-cvv iframe').locator('#field-input');
    await page.evaluate(() => {
      const s = window.Spreedly;
      s.setLabel('number', 'Numéro de carte');
      s.setFieldType('number', 'tel');
      s.setPlaceholder('cvv', '3 digits');
      s.setNumberFormat('maskedFormat');
      s.toggleAutoComplete();
    });
    await expect.poll(() => number.getAttribute('aria-label')).toBe('Numéro de carte');
    expect(await page.frameLocator('#spreedly-number iframe').locator('#field-label').textContent()).toBe('Numéro de carte');
    expect(await number.getAttribute('type')).toBe('tel');
    expect(await cvv.getAttribute('placeholder')).toBe('3 digits');
    expect(await number.evaluate((input: any) => input.autocomplete)).toBe('off');
    expect(await number.evaluate((input: any) => input.style.fontSize)).toBe('18px');
    await number.pressSequentially(VISA);
    await page.evaluate(() => window.Spreedly.transferFocus('cvv'));
    await page.waitForFunction(() => window.recorded.some((e: unknown[]) => e[0] === 'fieldEvent' && e[1] === 'cvv' && e[2] === 'focus'));
    // Masked once the number field has lost focus; digits only in plain format.
    expect(await number.inputValue()).toBe('••••••••••••1111');
    await page.screenshot({ path: path.join(SHOTS, 'card-form-masked.png') });
    await page.evaluate(() => window.Spreedly.setNumberFormat('plainFormat'));
    await expect.poll(() => number.inputValue()).toBe(VISA);
    await expectNumberUnseen(page);
    // reload: new empty frames, ready again; removeHandlers: nothing more is recorded.
    await page.evaluate(() => {
      window.recorded.length = 0;
      window.Spreedly.reload();
    });
    await waitFor(page, 'ready');
    expect(await page.frameLocator('#spreedly-number iframe').locator('#field-input').inputValue()).toBe('');
    await page.evaluate(() => {
      window.Spreedly.removeHandlers();
      window.recorded.length = 0;
    });
    await page.frameLocator('#spreedly-number iframe').locator('#field-input').pressSequentially('4111');
    await page.waitForTimeout(300);
    expect(await recorded(page)).toEqual([]);
    await page.close();
  });

  it('consoleError when an element for a field is missing; SpreedlyPaymentFrame makes independent instances', async () => {
    const page = await openCheckout(shop);
    await waitFor(page, 'ready');
    expect(await page.evaluate(() => typeof window.SpreedlyPaymentFrame === 'function' && new window.SpreedlyPaymentFrame() !== window.Spreedly)).toBe(true);
    await page.evaluate(() => {
      window.recorded.length = 0;
      window.Spreedly.init('key', { numberEl: 'no-such-element', cvvEl: 'spreedly-cvv' });
    });
    await waitFor(page, 'consoleError');
    const event = (await recorded(page)).find((e) => e[0] === 'consoleError') as [string, Record<string, unknown>];
    expect(event[1]).toMatchObject({ msg: 'Unable to find the element for the number field' });
    await page.close();
  });

  it('an invalid number gives errors and no token', async () => {
    const page = await openCheckout(shop);
    await waitFor(page, 'ready');
    await fillCard(page, '4111111111111112');
    await page.click('#submit-button');
    await waitFor(page, 'errors');
    await page.screenshot({ path: path.join(SHOTS, 'card-form-invalid.png') });
    const events = await recorded(page);
    expect(events.find((entry) => entry[0] === 'errors')).toEqual(['errors', [{ attribute: 'number', key: 'errors.invalid', message: 'Number is invalid' }]]);
    expect(events.some((entry) => entry[0] === 'paymentMethod')).toBe(false);
    expect(await page.inputValue('#payment_method_token')).toBe('');
    await page.close();
  });

  it('a page from an origin the environment does not allow gets no form, only an error; its own calls are refused', async () => {
    const page = await openCheckout(elsewhere);
    await waitFor(page, 'errors');
    await page.screenshot({ path: path.join(SHOTS, 'card-form-refused-origin.png') });
    const events = await recorded(page);
    expect(events.find((entry) => entry[0] === 'errors')).toEqual([
      'errors',
      [{ key: 'errors.origin_not_allowed', message: 'This origin is not allowed to tokenize payment methods for the environment.' }],
    ]);
    expect(events.some((entry) => entry[0] === 'ready')).toBe(false);
    expect(await page.frameLocator('#spreedly-number iframe').locator('#field-input').count()).toBe(0);
    // The frames never get ready: after 15 s the page hears it through consoleError as well.
    await page.waitForFunction(() => window.recorded.some((e: unknown[]) => e[0] === 'consoleError'), undefined, { timeout: 20_000 });
    expect((await recorded(page)).find((e) => e[0] === 'consoleError')?.[1]).toMatchObject({ msg: 'The card form did not load (is this origin allowed?)' });
    // Calling the tokenization endpoint directly from that page: CORS keeps the answer from it.
    const direct = await page.evaluate(async ({ url, key, number }) => {
      try {
        const res = await fetch(`${url}/v1/payment_methods/restricted.json?environment_key=${key}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ payment_method: { credit_card: { number, first_name: 'A', last_name: 'B', month: 3, year: 2032 } } }),
        });
        return `status ${res.status}`;
      } catch (error) {
        return `refused: ${(error as Error).name}`;
      }
    }, { url: server.client.baseUrl, key: server.init.environment_key, number: VISA });
    expect(direct).toBe('refused: TypeError');
    // A page lying about its origin: the frame's CSP (frame-ancestors) keeps the browser from showing it.
    await page.evaluate(({ url, key, origin }) => {
      const frame = document.createElement('iframe');
      frame.id = 'forged';
      frame.src = `${url}/iframe/v1/frame.html?field=number&environment_key=${key}&origin=${encodeURIComponent(origin)}&channel=forgedchannel1`;
      document.body.appendChild(frame);
    }, { url: server.client.baseUrl, key: server.init.environment_key, origin: shop.origin });
    await page.waitForTimeout(1500);
    expect(await page.frameLocator('#forged').locator('#field-input').count()).toBe(0);
    await page.close();
  });

  describe('enhanced security', () => {
    let signedShop: MerchantSite;
    let environmentKey: string;
    let certificate: Awaited<ReturnType<typeof uploadSigningCertificate>>;

    beforeAll(async () => {
      const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, 'signed', false);
      environmentKey = environment.key;
      const client: ApiClient = server.client.withAuth({ user: environmentKey, password: server.init.access_secret });
      certificate = await uploadSigningCertificate(client);
      await setCardCapture(server.client, environmentKey, { enhanced_iframe_security: true });
      signedShop = await startMerchantSite({ cofferUrl: server.client.baseUrl, environmentKey });
    });
    afterAll(() => signedShop?.close());

    async function checkoutWith(initOptions: Record<string, string>): Promise<Recorded[]> {
      signedShop.settings = { ...signedShop.settings, initOptions };
      const page = await openCheckout(signedShop);
      await waitFor(page, 'ready');
      await fillCard(page, VISA);
      await page.click('#submit-button');
      await page.waitForFunction(() => (window as unknown as { recorded: Recorded[] }).recorded.some((e) => e[0] === 'paymentMethod' || e[0] === 'errors'));
      const events = await recorded(page);
      await page.close();
      return events;
    }

    const asInit = (signed: { nonce: string; timestamp: string; certificate_token: string; signature: string }) => ({
      nonce: signed.nonce,
      timestamp: signed.timestamp,
      certificateToken: signed.certificate_token,
      signature: signed.signature,
    });

    it('accepts a good signature, refuses a bad one and a replayed nonce', async () => {
      const signed = signTokenization(certificate.traditional, certificate.token);
      const good = await checkoutWith(asInit(signed));
      expect(good.find((e) => e[0] === 'paymentMethod')).toBeDefined();

      const bad = await checkoutWith(asInit({ ...signed, nonce: 'another-nonce' }));
      expect(bad.find((e) => e[0] === 'errors')).toEqual(['errors', [{ key: 'errors.invalid_signature', message: 'The signature of this tokenization request is missing or invalid.' }]]);

      const replay = await checkoutWith(asInit(signed));
      expect(replay.find((e) => e[0] === 'errors')).toEqual(['errors', [{ key: 'errors.nonce_already_used', message: 'The nonce of this tokenization request has already been used.' }]]);
      expect(replay.some((e) => e[0] === 'paymentMethod')).toBe(false);
    });
  });

  it('the transparent redirect form lands on redirect_url?token=…', async () => {
    const page = await context.newPage();
    await page.goto(`${shop.origin}/pay-by-form`);
    await page.fill('#first_name', 'Ann');
    await page.fill('#last_name', 'Lee');
    await page.fill('#number', '5555555555554444');
    await page.fill('#cvv', '321');
    await page.fill('#month', '4');
    await page.fill('#year', '2031');
    await page.screenshot({ path: path.join(SHOTS, 'transparent-redirect-form.png') });
    await Promise.all([page.waitForURL(`${shop.origin}/landing?**`), page.click('#pay')]);
    await page.screenshot({ path: path.join(SHOTS, 'transparent-redirect-landed.png') });
    const landed = new URL(page.url());
    const token = landed.searchParams.get('token') as string;
    expect(token).toMatch(/^[A-Za-z0-9]{20,}$/);
    const api = await server.client.get(`/v1/payment_methods/${token}.json`);
    expect(api.json().payment_method).toMatchObject({ storage_state: 'cached', number: 'XXXX-XXXX-XXXX-4444', card_type: 'master', first_name: 'Ann' });
    await page.close();
  });
});
