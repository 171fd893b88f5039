import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/spawn.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startMerchantSite, type MerchantSite } from './merchant-site.js';

/*
 * The card form's recache mode in real Chromium (docs/card-capture.md, "Recache"), during a live
 * migration (docs/portability.md): the merchant's page calls `Spreedly.setRecache(token, …)` for a
 * card only the upstream (a second Coffer) holds; the number frame shows it masked and read-only,
 * the shopper types the CVV, `Spreedly.recache()` sends it, and the `recache` event follows. The
 * card was pulled from the upstream under the same token and holds the new CVV.
 */

// The functions passed to page.evaluate run in the browser: these names exist there, not here.
declare const window: any;
declare const document: any;

const CHROMIUM = process.env.COFFER_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = path.join(repoRoot, '.tmp', 'screenshots');
const EGRESS = { COFFER_EGRESS_ALLOW: '127.0.0.0/8,::1' };

type Recorded = unknown[];

describe('card form recache mode in Chromium, pulling through from an upstream', () => {
  let up: TestServer;
  let down: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let shop: MerchantSite;
  let upToken: string;

  beforeAll(async () => {
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'build-card-capture.mjs')], { stdio: 'ignore' });
    fs.mkdirSync(SHOTS, { recursive: true });
    up = await startServer({ tls: false, env: EGRESS });
    down = await startServer({ tls: false, env: EGRESS });
    const upBase = up.client.baseUrl.replace('localhost', '127.0.0.1');
    const downBase = down.client.baseUrl.replace('localhost', '127.0.0.1');
    const made = await up.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { number: '4111111111111111', month: 12, year: 2035, first_name: 'Ada', last_name: 'Lovelace' }, retained: true } });
    upToken = made.json().transaction.payment_method.token;
    const set = await down.client.sendJson('PUT', `/v1/environments/${down.init.environment_key}.json`, {
      environment: { upstream: { url: upBase, environment_key: up.init.environment_key, access_secret: up.init.access_secret, public_url: downBase } },
    });
    expect(set.status).toBe(200);
    shop = await startMerchantSite({ cofferUrl: downBase, environmentKey: down.init.environment_key });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    context = await browser.newContext({ viewport: { width: 520, height: 520 } });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await shop?.close();
    await down?.close();
    await up?.close();
  });

  const recorded = (page: Page): Promise<Recorded[]> => page.evaluate(() => window.recorded as Recorded[]);
  const waitFor = (page: Page, event: string) =>
    page.waitForFunction((name) => (window.recorded as Recorded[]).some((entry) => entry[0] === name), event, { timeout: 15_000 });

  it('recaches the CVV of a card only the upstream holds, which is pulled under its token', async () => {
    const page = await context.newPage();
    await page.goto(`${shop.origin}/checkout`);
    await waitFor(page, 'ready');
    await page.evaluate((token) => {
      window.Spreedly.on('recacheReady', (paymentMethod: unknown) => window.recorded.push(['recacheReady', paymentMethod]));
      window.Spreedly.on('recache', (t: string, paymentMethod: unknown) => {
        window.recorded.push(['recache', t, paymentMethod]);
        // As a merchant's page would: say so (the screenshot then shows the outcome, not the earlier refusal).
        document.getElementById('message').textContent = 'Security code updated for the card ending 1111.';
      });
      window.Spreedly.on('errors', (errors: unknown) => window.recorded.push(['recacheErrors', errors]));
      window.Spreedly.setRecache(token, { card_type: 'visa', last_four_digits: '1111' });
    }, upToken);
    await waitFor(page, 'recacheReady');
    const number = page.frameLocator('#spreedly-number iframe').locator('#field-input');
    expect(await number.inputValue()).toBe('•••• •••• •••• 1111');
    expect(await number.evaluate((input: any) => input.readOnly)).toBe(true);

    // Without a CVV: refused in the frame, no request.
    await page.evaluate(() => window.Spreedly.recache());
    await waitFor(page, 'recacheErrors');
    expect((await recorded(page)).find((entry) => entry[0] === 'recacheErrors')?.[1]).toEqual([{ attribute: 'verification_value', key: 'errors.blank', message: "Verification value can't be blank" }]);

    await page.frameLocator('#spreedly-cvv iframe').locator('#field-input').pressSequentially('123');
    await page.screenshot({ path: path.join(SHOTS, 'card-form-recache-mode.png') });
    await page.evaluate(() => window.Spreedly.recache());
    await waitFor(page, 'recache');
    const [, token, paymentMethod] = (await recorded(page)).find((entry) => entry[0] === 'recache') as [string, string, Record<string, unknown>];
    expect(token).toBe(upToken);
    expect(paymentMethod).toMatchObject({ token: upToken, last_four_digits: '1111', card_type: 'visa', verification_value: 'XXX' });
    await page.screenshot({ path: path.join(SHOTS, 'card-form-recached.png') });

    // Pulled from the upstream under the same token, with the CVV just typed, and charged by that token.
    const shown = await down.client.get(`/v1/payment_methods/${upToken}.json`);
    expect(shown.json().payment_method).toMatchObject({ token: upToken, first_name: 'Ada', verification_value: 'XXX' });
    const gateway = (await down.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).json().gateway.token;
    const purchase = await down.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: upToken, amount: 100, currency_code: 'USD' } });
    expect(purchase.json().transaction.succeeded).toBe(true);
    expect(JSON.stringify(await recorded(page))).not.toContain('4111111111111111');
    await page.close();
  });
});
