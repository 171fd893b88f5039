import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshotAccessible } from '../helpers/browser.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';

/**
 * Labels matched from their start: Playwright matches a label as a case-insensitive substring, and
 * the backup checkboxes are labelled with random gateway tokens, one of which held "Key" in CI.
 */
const FIELD = { key: /^Key\b/, rules: /^Rules\b/ } as const;

/**
 * The Workflows page in a real Chromium. An admin creates a workflow with a rule and a
 * split through the form and edits it; a viewer sees it without a form. Each page is
 * screenshotted (.tmp/screenshots) and checked with axe-core.
 */
describe('the portal Workflows page in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  let env: string;
  let gatewayA: string;
  let gatewayB: string;

  const look = (name: string) => screenshotAccessible(page, name);

  async function signIn(email: string): Promise<void> {
    await page.goto(`${base}/portal/`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toContain('/overview');
  }

  beforeAll(async () => {
    server = await startServer();
    base = server.client.baseUrl;
    env = server.init.environment_key;
    await server.core.portalUsers.create(server.init.organization_token, { email: 'admin@example.com', role: 'admin', password: PASSWORD });
    await server.core.portalUsers.create(server.init.organization_token, { email: 'viewer@example.com', role: 'viewer', password: PASSWORD });
    const gateway = async (description: string) => (await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', description } })).json().gateway.token as string;
    gatewayA = await gateway('primary');
    gatewayB = await gateway('secondary');
    browser = await launchBrowser();
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('an admin creates a workflow with a rule, a split and a backup, then edits it', async () => {
    await signIn('admin@example.com');
    await page.getByRole('link', { name: 'Workflows', exact: true }).click();
    await expect.poll(() => page.getByText('No workflows yet.').count()).toBe(1);
    await look('w01-workflows-empty');
    await page.getByLabel(FIELD.key).fill('checkout');
    await page.getByLabel('Name', { exact: true }).fill('Checkout');
    await page.getByLabel('Default target').fill(`${gatewayA}:70, ${gatewayB}:30`);
    await page.getByLabel(new RegExp(gatewayB)).check();
    await page.getByLabel('Retry mode').selectOption('standard');
    await page.getByLabel('Default workflow of this environment').check();
    await page.getByLabel(FIELD.rules).fill(JSON.stringify([{ name: 'euro', condition: { currencies: ['EUR'] }, target: { gateway_token: gatewayB } }], null, 2));
    await page.getByRole('button', { name: 'Create workflow' }).click();
    await expect.poll(() => page.getByText('Created.').count()).toBe(1);
    expect(page.url()).toContain(`/portal/e/${env}/workflows/checkout`);
    await look('w02-workflow-created');
    const stored = (await server.client.get('/v1/workflows/checkout.json')).json().workflow;
    expect(stored).toMatchObject({ default: true, retry_mode: 'standard', backup_gateway_tokens: [gatewayB], default_target: { split: [{ gateway_token: gatewayA, weight: 70 }, { gateway_token: gatewayB, weight: 30 }] } });

    await page.getByLabel('Name', { exact: true }).fill('Checkout (EU first)');
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await expect.poll(() => page.getByText('Saved.').count()).toBe(1);
    await page.getByRole('link', { name: 'Workflows', exact: true }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'Checkout (EU first)' }).count()).toBe(1);
    await look('w03-workflows-list');

    // A bad form: the API's message, as a page.
    await page.getByLabel(FIELD.key).fill('broken');
    await page.getByLabel('Name', { exact: true }).fill('Broken');
    await page.getByLabel('Default target').fill(`${gatewayA}:0`);
    await page.getByRole('button', { name: 'Create workflow' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('weight must be a positive integer');
    await look('w04-workflow-error');
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  it('a viewer sees the workflow without any form', async () => {
    await signIn('viewer@example.com');
    await page.goto(`${base}/portal/e/${env}/workflows/checkout`);
    await expect.poll(() => page.getByRole('heading', { name: 'Workflow Checkout (EU first)' }).count()).toBe(1);
    expect(await page.getByRole('definition').filter({ hasText: 'euro' }).count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Save workflow' }).count()).toBe(0);
    await look('w05-workflow-viewer');
  });
});
