import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { launchBrowser, newPageWatchingCsp, SCREENSHOTS, screenshot, screenshotAccessible } from '../helpers/browser.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';

/**
 * Building routing without JSON, in a real Chromium, as an operations person would: an admin
 * creates a workflow with a rule, a 70/30 split and a backup by picking gateways by name, runs
 * explain on sample transactions and reads the result, adds and moves a rule, and meets a refused
 * form; a viewer reads it and runs explain. Screenshots at 1280 px and 390 px (.tmp/screenshots),
 * axe-core on each, no CSP error.
 */
describe.each(storeKinds)('the workflow editor in Chromium (%s)', (store) => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  let env: string;
  let alpha: string;
  let beta: string;
  const cspErrors: string[] = [];

  const look = (name: string) => screenshotAccessible(page, `${store}-${name}`);
  const labelOf = (name: string, token: string) => `${name} (test, …${token.slice(-6)})`;

  async function signIn(email: string): Promise<void> {
    await page.goto(`${base}/portal/`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toContain('/overview');
  }

  beforeAll(async () => {
    server = await startServer({ store });
    base = server.client.baseUrl;
    env = server.init.environment_key;
    await server.core.portalUsers.create(server.init.organization_token, { email: 'admin@example.com', role: 'admin', password: PASSWORD });
    await server.core.portalUsers.create(server.init.organization_token, { email: 'viewer@example.com', role: 'viewer', password: PASSWORD });
    const gateway = async (description: string) => (await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', description } })).json().gateway.token as string;
    alpha = await gateway('Alpha');
    beta = await gateway('Beta');
    browser = await launchBrowser();
    page = await newPageWatchingCsp(browser, cspErrors);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('an admin builds a split workflow with a backup, explains two sample payments, then adds and moves a rule', async () => {
    await signIn('admin@example.com');
    await page.getByRole('link', { name: 'Workflows', exact: true }).click();
    await expect.poll(() => page.getByText('No workflows yet.').count()).toBe(1);
    await look('w01-workflows-empty');

    await page.getByLabel(/^Key\b/).fill('checkout');
    await page.getByLabel('Name', { exact: true }).fill('Checkout');
    // Rule 1: euro payments go to Beta.
    await page.getByLabel('Rule 1: name').fill('euro');
    await page.getByLabel(/^Rule 1: currencies/).fill('EUR');
    await page.getByLabel('Rule 1: Gateway 1', { exact: true }).selectOption({ label: labelOf('Beta', beta) });
    // Everything else: 70 % Alpha, 30 % Beta; Beta backs Alpha up.
    await page.getByLabel('Default target: Gateway 1', { exact: true }).selectOption({ label: labelOf('Alpha', alpha) });
    await page.getByLabel('Default target: Weight 1', { exact: true }).fill('70');
    await page.getByLabel('Default target: Gateway 2', { exact: true }).selectOption({ label: labelOf('Beta', beta) });
    await page.getByLabel('Default target: Weight 2', { exact: true }).fill('30');
    await page.getByLabel('Backup 1', { exact: true }).selectOption({ label: labelOf('Beta', beta) });
    await page.getByLabel('Retry mode').selectOption('standard');
    await page.getByLabel('Default workflow of this environment').check();
    await page.getByRole('button', { name: 'Create workflow' }).click();
    await expect.poll(() => page.getByText('Created.').count()).toBe(1);
    expect(page.url()).toContain(`/portal/e/${env}/workflows/checkout`);
    const stored = (await server.client.get('/v1/workflows/checkout.json')).json().workflow;
    expect(stored).toMatchObject({
      default: true,
      retry_mode: 'standard',
      rules: [{ name: 'euro', condition: { currencies: ['EUR'] }, target: { gateway_token: beta } }],
      default_target: { split: [{ gateway_token: alpha, weight: 70 }, { gateway_token: beta, weight: 30 }] },
      backup_gateway_tokens: [beta],
    });
    expect(await page.getByRole('table', { name: 'How Checkout routes' }).getByText('Alpha (test').count()).toBeGreaterThan(0);
    await look('w02-workflow-created');

    // Explain a euro payment: rule 1 sends it to Beta.
    await page.getByLabel('Sample currency').fill('EUR');
    await page.getByLabel('Sample card brand').selectOption('visa');
    await page.getByRole('button', { name: 'Explain' }).click();
    await expect.poll(() => page.getByRole('heading', { name: /^Result:/ }).textContent()).toContain(labelOf('Beta', beta));
    expect(await page.getByText('Chosen by rule 1, “euro”').count()).toBe(1);
    await look('w03-explain-euro');

    // Explain a dollar payment: the default split, with its chances, and the backup after it.
    await page.getByLabel('Sample currency').fill('USD');
    await page.getByRole('button', { name: 'Explain' }).click();
    await expect.poll(() => page.getByText('Chosen by the default target (no rule matched)').count()).toBe(1);
    const chances = page.getByRole('table', { name: 'Chances of the split' });
    expect(await chances.getByRole('cell', { name: '70.0%' }).count()).toBe(1);
    expect(await chances.getByRole('cell', { name: '30.0%' }).count()).toBe(1);
    await look('w04-explain-split');

    // Add a second rule (amex to Alpha) and move it to the top.
    await page.getByRole('button', { name: 'Add another rule' }).click();
    await expect.poll(() => page.getByLabel('Rule 3: name').count()).toBe(1);
    await page.getByLabel('Rule 2: name').fill('amex');
    await page.getByRole('group', { name: 'Rule 2: card brands' }).getByLabel('american_express').check();
    await page.getByLabel('Rule 2: Gateway 1', { exact: true }).selectOption({ label: labelOf('Alpha', alpha) });
    await page.getByLabel(/^Rule 2: place/).fill('1');
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await expect.poll(() => page.getByText('Saved.').count()).toBe(1);
    expect((await server.client.get('/v1/workflows/checkout.json')).json().workflow.rules.map((r: { name: string }) => r.name)).toEqual(['amex', 'euro']);

    // A refused form: the API's message, the form as typed, nothing saved.
    await page.getByLabel('Default target: Weight 1', { exact: true }).fill('0');
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('weight must be a positive integer');
    expect(await page.getByLabel('Rule 1: name').inputValue()).toBe('amex');
    await look('w05-workflow-refused');
    expect((await server.client.get('/v1/workflows/checkout.json')).json().workflow.default_target.split[0].weight).toBe(70);

    // The same page on a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/portal/e/${env}/workflows/checkout`);
    await page.getByLabel('Sample currency').fill('EUR');
    await page.getByRole('button', { name: 'Explain' }).click();
    await expect.poll(() => page.getByRole('heading', { name: /^Result:/ }).count()).toBe(1);
    await look('w06-workflow-390');
    // As a phone shows it once the side navigation collapses (the layout's part; hidden here through
    // the CSSOM, which the CSP allows): the editor and the result fit the width.
    await page.evaluate(`document.querySelector('nav.side').style.display = 'none'`);
    await screenshot(page, `${store}-w06b-workflow-390-without-navigation`);
    await page.locator('#explain-result').screenshot({ path: path.join(SCREENSHOTS, `${store}-w06c-explain-result-390.png`) });
    await page.locator('fieldset.rule').first().screenshot({ path: path.join(SCREENSHOTS, `${store}-w06d-rule-390.png`) });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(cspErrors).toEqual([]);
  });

  it('a viewer reads the workflow in words and runs explain, without any form to change it', async () => {
    await signIn('viewer@example.com');
    await page.goto(`${base}/portal/e/${env}/workflows/checkout`);
    await expect.poll(() => page.getByRole('heading', { name: 'Workflow Checkout' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Save workflow' }).count()).toBe(0);
    await page.getByLabel('Sample card brand').selectOption('american_express');
    await page.getByRole('button', { name: 'Explain' }).click();
    await expect.poll(() => page.getByRole('heading', { name: /^Result:/ }).textContent()).toContain(labelOf('Alpha', alpha));
    expect(await page.getByText('Chosen by rule 1, “amex”').count()).toBe(1);
    await look('w07-workflow-viewer-explain');
    expect(cspErrors).toEqual([]);
  });
});
