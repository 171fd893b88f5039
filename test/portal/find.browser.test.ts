import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPageWatchingCsp, screenshotAccessible } from '../helpers/browser.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';

/**
 * A support agent's morning in Chromium (docs/portal.md, "Find a card", "Find a payment", "Tell
 * things apart", "Any screen"): a customer on the phone gives the last four of her card and her
 * name; the agent finds the card, its payments, the gateway that took them (by its name), exports
 * them, and does it again on a 390 px phone. Every page is screenshotted at 1280 and 390 px under
 * .tmp/screenshots/find-<store>-*.png and checked with axe-core (no serious or critical violation),
 * once per store: SQLite, and PostgreSQL when COFFER_TEST_DATABASE_URL is set.
 */
describe.each(storeKinds)('finding a card and a payment in Chromium (%s)', (store) => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  let env: string;
  const cspErrors: string[] = [];
  const tokens: Record<string, string> = {};

  /** Screenshot and axe check at 1280 px, then at 390 px, then back. */
  async function look(name: string): Promise<void> {
    await screenshotAccessible(page, `find-${store}-${name}-1280`);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshotAccessible(page, `find-${store}-${name}-390`);
    // Nothing is cut off: the page itself never scrolls sideways (wide tables scroll in their own box).
    expect(await page.evaluate<number>('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  beforeAll(async () => {
    server = await startServer({ store });
    base = server.client.baseUrl;
    env = server.init.environment_key;
    await server.core.portalUsers.create(server.init.organization_token, { email: 'agent@example.com', role: 'admin', password: PASSWORD });
    for (const [name, description] of [['eu', 'Stripe EU'], ['backup', 'Adyen backup'], ['old', 'Old acquirer']] as const) {
      tokens[name] = (await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', description } })).json().gateway.token as string;
    }
    await server.client.request('PUT', `/v1/gateways/${tokens.old}/redact.json`);
    const vault = async (first: string, last: string, number: string, email: string) =>
      (await server.client.sendJson('POST', '/v1/payment_methods.json', {
        payment_method: { email, retained: true, metadata: { customer: `${first.toLowerCase()}-1` }, credit_card: { first_name: first, last_name: last, number, verification_value: '123', month: 7, year: 2030 } },
      })).json().transaction.payment_method.token as string;
    tokens.ada = await vault('Ada', 'Lovelace', VISA, 'ada@example.com');
    tokens.bob = await vault('Bob', 'Stone', MASTERCARD, 'bob@example.com');
    tokens.grace = await vault('Grace', 'Hopper', VISA, 'grace@example.com');
    for (const [gateway, card, amount, currency, order] of [['eu', 'ada', 4200, 'USD', 'order-1001'], ['backup', 'ada', 1999, 'EUR', 'order-1002'], ['eu', 'bob', 120000, 'USD', 'order-1003'], ['backup', 'grace', 500, 'JPY', 'order-1004']] as const) {
      await server.client.sendJson('POST', `/v1/gateways/${tokens[gateway]}/purchase.json`, { transaction: { payment_method_token: tokens[card], amount, currency_code: currency, order_id: order, email: `${card}@example.com` } });
    }
    browser = await launchBrowser();
    page = await newPageWatchingCsp(browser, cspErrors);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('answers / with a page pointing to the portal, and signs in', async () => {
    await page.goto(`${base}/`);
    await look('00-home');
    await page.getByRole('link', { name: 'Merchant portal' }).click();
    await expect.poll(() => page.url()).toContain('/portal/sign-in');
    await look('00b-sign-in');
    await page.getByLabel('Email').fill('agent@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toContain('/overview');
    await look('00c-overview');
    // The favicon is linked on every page and served.
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    expect((await page.request.get(`${base}${icon as string}`)).status()).toBe(200);
  });

  it('job 1: finds the caller\'s card by its last four and her name, and opens it', async () => {
    await page.getByRole('link', { name: 'Payment methods', exact: true }).click();
    await look('01-payment-methods');
    await page.getByLabel('Last four').fill('1111');
    await page.getByLabel('Cardholder name').fill('ada');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.url()).toContain('last_four=1111&name=ada');
    const rows = page.locator('table tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('Ada Lovelace');
    expect(await rows.first().textContent()).toContain('XXXX-XXXX-XXXX-1111');
    await look('02-card-search-results');
    await page.getByRole('link', { name: /XXXX-XXXX-XXXX-1111/ }).click();
    await expect.poll(() => page.url()).toContain(`/payment-methods/${tokens.ada}`);
    await expect.poll(() => page.getByRole('cell', { name: 'order-1001' }).count()).toBe(1);
    expect(await page.content()).not.toContain(VISA);
    await look('03-card-page');
    // Every card with this number: Grace's card shares Ada's.
    await page.getByRole('link', { name: 'Every card with this number' }).click();
    await expect.poll(() => page.locator('table tbody tr').count()).toBe(2);
    await look('04-same-number');
  });

  it('job 1: refuses a full card number typed into a search box, without keeping it', async () => {
    await page.goto(`${base}/portal/e/${env}/payment-methods`);
    await page.getByLabel('Email').fill(VISA);
    await page.getByRole('button', { name: 'Search' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('A full card number cannot be searched for');
    expect(page.url()).not.toContain('4111');
    expect(await page.getByLabel('Email').inputValue()).toBe('');
    expect(await page.content()).not.toContain(VISA);
    await look('05-full-number-refused');
  });

  it('job 2: finds the payments of a card through a gateway picked by name, and exports them', async () => {
    await page.getByRole('link', { name: 'Transactions', exact: true }).click();
    await page.getByLabel('Card last four').fill('1111');
    await page.getByLabel('Gateway').selectOption({ label: 'Stripe EU (Spreedly Test)' });
    // Type, amounts, currency, dates and token wait behind "More filters".
    await page.locator('summary', { hasText: 'More filters' }).click();
    await page.getByLabel('Type').selectOption('Purchase');
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.locator('table tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    const row = (await rows.first().textContent()) ?? '';
    expect(row).toContain('42.00 USD');
    expect(row).toContain('Stripe EU');
    expect(row).toContain('Visa ····1111');
    expect(row).toContain('ada@example.com');
    expect(row).toContain('order-1001');
    await look('06-payment-search');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export to CSV' }).click()]);
    let csv = '';
    for await (const chunk of await download.createReadStream()) csv += String(chunk);
    const lines = csv.trimEnd().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('"42.00 USD","4200","USD","Stripe EU (Spreedly Test)"');
    expect(csv).not.toContain(VISA);
    // The whole list, with amounts in each currency's units.
    await page.getByRole('link', { name: 'Clear' }).click();
    await expect.poll(() => page.locator('table tbody tr').count()).toBeGreaterThanOrEqual(7);
    expect(await page.content()).toContain('500 JPY');
    expect(await page.content()).toContain('1,200.00 USD'.replace(',', ''));
    await look('07-transactions');
    await page.getByRole('link', { name: /order-1003|Mastercard ····4444/ }).first().click();
    await look('08-payment-method-from-list');
  });

  it('job 5: tells gateways apart by name, and shows a redacted one as redacted', async () => {
    await page.getByRole('link', { name: 'Gateways', exact: true }).click();
    for (const name of ['Stripe EU', 'Adyen backup', 'Old acquirer']) await expect.poll(() => page.getByRole('link', { name }).count()).toBe(1);
    await look('09-gateways');
    await page.getByRole('link', { name: 'Old acquirer' }).click();
    await expect.poll(() => page.title()).toBe('Old acquirer (Spreedly Test) · Coffer');
    expect(await page.locator('dl.summary').textContent()).toContain('redacted');
    await look('10-gateway-redacted');
  });

  it('job 6: on a 390 px phone the navigation folds behind a Menu button that the keyboard opens and Escape closes', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/portal/e/${env}/transactions`);
    const menu = page.getByRole('button', { name: 'Menu' });
    const nav = page.getByRole('navigation', { name: 'Portal' });
    expect(await menu.isVisible()).toBe(true);
    expect(await nav.isVisible()).toBe(false);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await page.screenshot({ path: `.tmp/screenshots/find-${store}-11-phone-menu-closed-390.png`, fullPage: false });
    // Keyboard only: the skip link first, then the Menu button.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | null | undefined>('document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | null | undefined>('document.activeElement?.textContent')).toBe('Menu');
    await page.keyboard.press('Enter');
    await expect.poll(() => nav.isVisible()).toBe(true);
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await page.evaluate<string | null | undefined>('document.activeElement?.textContent')).toBe('Overview');
    await screenshotAccessible(page, `find-${store}-12-phone-menu-open-390`);
    await page.keyboard.press('Escape');
    await expect.poll(() => nav.isVisible()).toBe(false);
    expect(await page.evaluate<string | null | undefined>('document.activeElement?.textContent')).toBe('Menu');
    // The menu leads somewhere: open it and go to Payment methods.
    await menu.click();
    await page.getByRole('link', { name: 'Payment methods', exact: true }).click();
    await expect.poll(() => page.url()).toContain('/payment-methods');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshotAccessible(page, `find-${store}-13-phone-payment-methods-390`);
    // At 1280 px the sidebar is always there and the button is not.
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await nav.isVisible()).toBe(true);
    expect(await menu.isVisible()).toBe(false);
  });

  it('caused no Content-Security-Policy error', () => {
    expect(cspErrors).toEqual([]);
  });
});
