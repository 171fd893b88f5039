import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPageWatchingCsp, screenshot, screenshotAccessible } from '../helpers/browser.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const APPROVED = '4111111111111111';
const DECLINED = '4012888888881881';
const DECLINED_MASTER = '5105105105105100';
const APPROVED_MASTER = '5555555555554444';
const HOUR = 3_600_000;

/**
 * "How are payments going?" as an operations person asks it, in Chromium: a week of payments on
 * two gateways (approvals, declines, a burst of gateway errors that opens a breaker, a workflow
 * whose backup rescues a payment), then the overview at 24 hours, 7 and 30 days, at 1280 px and
 * 390 px, with axe-core, no CSP error, chart text of at least 12 px, and the JSON the page links to.
 */
describe.each(storeKinds)('the overview in Chromium (%s)', (store) => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  let env: string;
  const cspErrors: string[] = [];
  const clock = new ManualClock(Date.parse('2026-03-04T09:10:00.000Z'));

  const card = async (number: string) =>
    (await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number, verification_value: '123', month: 3, year: 2032 } } })).json().transaction.payment_method.token as string;
  const pay = async (gateway: string, number: string, amount = 1000) =>
    (await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: await card(number), amount, currency_code: 'USD' } })).json().transaction;

  async function signIn(): Promise<void> {
    await page.goto(`${base}/portal/`);
    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toContain('/overview');
  }

  /** The size of the smallest text of the charts shown (hidden ones left out), in px. */
  async function smallestChartText(): Promise<number> {
    return page.evaluate(`Math.min(...[...document.querySelectorAll('svg.figure text')].filter((t) => t.getBoundingClientRect().height > 0).map((t) => parseFloat(getComputedStyle(t).fontSize)))`) as Promise<number>;
  }

  /** The widths of the charts shown. */
  async function shownChartWidths(): Promise<number[]> {
    return page.evaluate(`[...document.querySelectorAll('svg.figure')].filter((svg) => svg.getBoundingClientRect().width > 0).map((svg) => Number(svg.getAttribute('width')))`) as Promise<number[]>;
  }

  beforeAll(async () => {
    server = await startServer({ store, clock });
    base = server.client.baseUrl;
    env = server.init.environment_key;
    await server.core.portalUsers.create(server.init.organization_token, { email: 'ops@example.com', role: 'viewer', password: PASSWORD });
    const gateway = async (description: string) => (await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', description } })).json().gateway.token as string;
    const alpha = await gateway('Alpha acquiring');
    const beta = await gateway('Beta backup');
    // A week of payments: three times a day, a few on each gateway, some declined.
    for (let day = 0; day < 7; day += 1) {
      for (const hour of [0, 5, 11]) {
        clock.set(Date.parse('2026-03-04T09:10:00.000Z') + day * 24 * HOUR + hour * HOUR);
        for (let i = 0; i < ((day + hour) % 3) + 2; i += 1) await pay(alpha, APPROVED, 1000 + i);
        if ((day + hour) % 2 === 0) await pay(alpha, DECLINED);
        await pay(beta, (day + hour) % 4 === 0 ? DECLINED_MASTER : APPROVED_MASTER);
      }
    }
    // Today: a burst of gateway errors opens Alpha's breaker; a workflow's backup rescues the next payment.
    for (let i = 0; i < 5; i += 1) await pay(alpha, APPROVED, 5070);
    const workflow = { key: 'checkout', name: 'Checkout', rules: [{ name: 'mastercard', condition: { card_brands: ['master'] }, target: { gateway_token: beta } }], default_target: { gateway_token: alpha }, backup_gateway_tokens: [beta] };
    expect((await server.client.sendJson('POST', '/v1/workflows.json', { workflow })).status).toBe(201);
    for (const number of [APPROVED, APPROVED_MASTER, APPROVED_MASTER]) {
      const routed = await server.client.sendJson('POST', '/v1/transactions/purchase.json', { transaction: { workflow_key: 'checkout', payment_method_token: await card(number), amount: 4200, currency_code: 'USD' } });
      expect(routed.json().transaction.succeeded).toBe(true);
    }
    browser = await launchBrowser();
    page = await newPageWatchingCsp(browser, cspErrors);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the last 24 hours, 7 and 30 days as readable charts, and the same figures as JSON', async () => {
    await signIn();
    await expect.poll(() => page.getByRole('heading', { name: 'Payments and approval rate per gateway' }).count()).toBe(1);
    for (const heading of ['Latency per gateway', 'Decline reasons', 'Breaker openings', 'Retries and failovers that rescued a payment', 'Routing decisions per workflow rule']) {
      expect(await page.getByRole('heading', { name: heading, exact: true }).count()).toBe(1);
    }
    expect(await page.getByRole('img', { name: /Alpha acquiring \(test\): payments and approval rate, last 24 hours/ }).count()).toBe(1);
    expect(await page.getByText('paused after repeated gateway errors').count()).toBe(1);
    expect(await smallestChartText()).toBeGreaterThanOrEqual(12);
    expect(new Set(await shownChartWidths())).toEqual(new Set([600]));
    // Hovering a bar names its hour and its numbers.
    expect(await page.locator('svg.figure title').filter({ hasText: /UTC: \d+ payments, \d+ approved/ }).count()).toBeGreaterThan(0);
    await screenshotAccessible(page, `${store}-o01-overview-24h-1280`);

    await page.getByRole('link', { name: 'Last 7 days' }).click();
    await expect.poll(() => page.url()).toContain('range=7d');
    expect(await page.getByRole('img', { name: /Beta backup \(test\): payments and approval rate, last 7 days/ }).count()).toBe(1);
    expect(await page.getByRole('img', { name: /Routing decisions per workflow rule/ }).count()).toBe(1);
    await screenshotAccessible(page, `${store}-o02-overview-7d-1280`);
    const facts = await page.locator('dl.facts').innerText();

    await page.getByRole('link', { name: 'these figures as JSON' }).click();
    const figures = JSON.parse(await page.locator('body').innerText()).overview;
    expect(figures.range).toBe('7d');
    expect(facts).toContain(`Payments\n${figures.totals.payments}`);
    expect(figures.totals.breaker_openings).toBe(1);
    expect(figures.totals.failover_rescues).toBe(1);
    expect(figures.routing.map((r: { rule: string | null; decisions: number }) => [r.rule, r.decisions])).toEqual([['mastercard', 2], [null, 1]]);
    expect(figures.decline_reasons[0].code).toBe('card_declined');

    await page.goto(`${base}/portal/e/${env}/overview?range=30d`);
    expect(await page.getByRole('img', { name: /last 30 days/ }).count()).toBeGreaterThan(1);
    await screenshotAccessible(page, `${store}-o03-overview-30d-1280`);
    expect(cspErrors).toEqual([]);
  });

  it('stays readable on a 390 px screen: each chart is drawn narrow, with the same text size', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/portal/e/${env}/overview?range=24h`);
    expect(await smallestChartText()).toBeGreaterThanOrEqual(12);
    // The narrow drawing of every chart is the one shown, the wide one hidden (a container query).
    const widths = await shownChartWidths();
    expect(widths.length).toBeGreaterThanOrEqual(6);
    expect(new Set(widths)).toEqual(new Set([280]));
    expect(await page.getByRole('region', { name: /Alpha acquiring \(test\): payments and approval rate/ }).count()).toBe(1);
    await screenshotAccessible(page, `${store}-o04-overview-24h-390`);
    // The charts as a phone shows them with the side navigation collapsed (the layout's part; hidden
    // here through the CSSOM, which the CSP allows, so the screenshot shows the charts at full size).
    await page.evaluate(`document.querySelector('nav.side').style.display = 'none'`);
    expect(await page.getByRole('region', { name: /Alpha acquiring \(test\): payments and approval rate/ }).evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    await screenshot(page, `${store}-o05-overview-charts-390`);
    expect(cspErrors).toEqual([]);
  });
});
