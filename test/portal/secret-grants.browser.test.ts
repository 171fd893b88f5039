import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshotAccessible, signInPortal } from '../helpers/browser.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';

/**
 * The access-secrets page in Chromium as a developer and as an owner: the form offers only what
 * the role may create (docs/portal.md, "Access secrets a role may create"), Revoke appears only
 * on secrets within reach; screenshots in .tmp/screenshots/, checked with axe-core.
 */
describe('access secrets a role may create, in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let production: string;

  async function signedIn(email: string): Promise<Page> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    return signInPortal(page, server.client.baseUrl, email, PASSWORD);
  }

  const roleOptions = (page: Page) => page.getByLabel('Role', { exact: true }).locator('option').evaluateAll((options) => options.map((o) => (o as { value: string }).value));

  beforeAll(async () => {
    server = await startServer();
    const org = server.init.organization_token;
    production = (await server.core.tenancy.createEnvironment(org, 'live', true)).key;
    // About grants, not two-step: a production environment would otherwise require it of every member (docs/compliance.md).
    await server.core.peoplePolicy.setTwoStep({ type: 'operator', id: 'cli', address: null }, org, false);
    await server.core.tenancy.createAccessSecret(org, { name: 'live-reporting', role: 'read', environmentKeys: [production] });
    await server.core.tenancy.createAccessSecret(org, { name: 'live-checkout', role: 'transact', environmentKeys: [production] });
    for (const role of ['owner', 'developer'] as const) await server.core.portalUsers.create(org, { email: `${role}@example.com`, role, password: PASSWORD });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('a developer, in a production environment: read only, no scope choice, Revoke only on what they could create', async () => {
    const page = await signedIn('developer@example.com');
    await page.goto(`${server.client.baseUrl}/portal/e/${production}/secrets`);
    expect(await roleOptions(page)).toEqual(['read']);
    expect(await page.getByLabel('Scope').count()).toBe(0);
    expect(await page.getByRole('row', { name: /live-reporting/ }).locator('form[action$="/revoke"]').count()).toBe(1);
    expect(await page.getByRole('row', { name: /live-checkout/ }).locator('form[action$="/revoke"]').count()).toBe(0);
    // The organization-wide admin secret made at start.
    expect(await page.getByRole('row', { name: /All environments/ }).locator('form[action$="/revoke"]').count()).toBe(0);
    await screenshotAccessible(page, 'secrets-developer-production');
    await page.goto(`${server.client.baseUrl}/portal/e/${server.init.environment_key}/secrets`);
    expect(await roleOptions(page)).toEqual(['transact', 'read']);
    await screenshotAccessible(page, 'secrets-developer-test');
  });

  it('an owner: every role, and the scope choice', async () => {
    const page = await signedIn('owner@example.com');
    await page.goto(`${server.client.baseUrl}/portal/e/${production}/secrets`);
    expect(await roleOptions(page)).toEqual(['admin', 'transact', 'read']);
    await page.getByLabel('Name', { exact: true }).fill('organization reporting');
    await page.getByLabel('Role', { exact: true }).selectOption('read');
    await page.getByLabel('Scope').selectOption('organization');
    await screenshotAccessible(page, 'secrets-owner');
    await page.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => page.getByText('it will not be shown again').count()).toBe(1);
    const made = (await server.core.tenancy.listAccessSecrets(server.init.organization_token)).find((row) => row.name === 'organization reporting');
    expect(made).toMatchObject({ role: 'read', environmentKeys: null });
  });
});
