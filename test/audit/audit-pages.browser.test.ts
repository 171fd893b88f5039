import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPageWatchingCsp, screenshotAccessible } from '../helpers/browser.js';
import { addPaymentMethod, createTestGateway } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery staple';

/**
 * The payment method page's card data access log and the compliance page, in Chromium
 * (docs/portal.md, docs/compliance.md): screenshotted and checked with axe-core.
 */
describe('access log and compliance pages, in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  let env: string;
  let pm: string;
  let purchase: string;
  const cspErrors: string[] = [];

  beforeAll(async () => {
    server = await startServer();
    base = server.client.baseUrl;
    env = server.init.environment_key;
    await server.core.portalUsers.create(server.init.organization_token, { email: 'owner@example.com', role: 'owner', password: PASSWORD });
    await server.core.portalUsers.create(server.init.organization_token, { email: 'viewer@example.com', role: 'viewer', password: PASSWORD });
    const gateway = await createTestGateway(server.client);
    pm = (await addPaymentMethod(server.client, { credit_card: { first_name: 'Joe', last_name: 'Jones', number: '4111111111111111', verification_value: '123', month: 3, year: 2035 }, retained: true })).payment_method.token;
    const res = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 2500, currency_code: 'USD', payment_method_token: pm } });
    purchase = res.json().transaction.token;
    await server.client.sendJson('POST', `/v1/gateways/${gateway}/authorize.json`, { transaction: { amount: 900, currency_code: 'USD', payment_method_token: pm } });
    await server.core.auditChain.checkpoint();
    browser = await launchBrowser();
    page = await newPageWatchingCsp(browser, cspErrors);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function signIn(email: string): Promise<void> {
    await page.context().clearCookies();
    await page.goto(`${base}/portal/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toContain('/portal/e/');
  }

  it("shows who opened the card's data and why on the payment method page", async () => {
    await signIn('owner@example.com');
    await page.goto(`${base}/portal/e/${env}/payment-methods/${pm}`);
    await expect.poll(() => page.getByRole('heading', { name: 'Card data access' }).count()).toBe(1);
    const rows = page.locator('#access-log + p + table tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toContain('sent to a gateway for an authorization');
    expect(await rows.nth(1).innerText()).toContain('sent to a gateway for a purchase');
    expect(await rows.nth(1).innerText()).toContain(purchase);
    expect(await page.content()).not.toContain('4111111111111111');
    await screenshotAccessible(page, 'audit-01-access-log');
    // The card's transactions table links the purchase too: follow the access log's link.
    await rows.nth(1).getByRole('link', { name: purchase }).click();
    await expect.poll(() => page.url()).toContain(`/transactions/${purchase}`);
  });

  it('shows the compliance page to owners, with the chain verified', async () => {
    await page.goto(`${base}/portal/compliance`);
    await expect.poll(() => page.getByRole('heading', { name: 'Audit trail' }).count()).toBe(1);
    const text = await page.locator('main').innerText();
    expect(text).toContain('10.3.4');
    expect(text).toMatch(/verified\s+through entry \d+/);
    expect(text).toContain('owner@example.com');
    await screenshotAccessible(page, 'audit-02-compliance');
    expect(cspErrors).toEqual([]);
  });

  it('keeps both from viewers', async () => {
    await signIn('viewer@example.com');
    await page.goto(`${base}/portal/e/${env}/payment-methods/${pm}`);
    await expect.poll(() => page.getByRole('heading', { name: 'Payment method' }).count()).toBeGreaterThan(0);
    expect(await page.getByRole('heading', { name: 'Card data access' }).count()).toBe(0);
    const response = await page.goto(`${base}/portal/compliance`);
    expect(response?.status()).toBe(403);
    await screenshotAccessible(page, 'audit-03-viewer-refused');
  });
});
