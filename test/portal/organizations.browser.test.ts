import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPageWatchingCsp, screenshotAccessible } from '../helpers/browser.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';

/**
 * A person in two organizations, in Chromium (docs/portal.md "Accounts and organizations"): one
 * sign-in, the chooser, the switcher in the header (submitted by the portal script on change),
 * an invitation joined with the person's own password, and a locked member unlocked from the
 * team page. Every page is screenshotted and checked with axe-core.
 */
describe('organizations in the portal, in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  let envA: string;
  let envB: string;
  const cspErrors: string[] = [];

  beforeAll(async () => {
    server = await startServer();
    base = server.client.baseUrl;
    envA = server.init.environment_key;
    const bravo = await server.core.tenancy.createOrganization('Bravo Payments');
    envB = (await server.core.tenancy.createEnvironment(bravo.token, 'Bravo sandbox', false)).key;
    await server.core.portalUsers.create(server.init.organization_token, { email: 'multi@example.com', role: 'owner', password: PASSWORD });
    await server.core.portalUsers.create(bravo.token, { email: 'multi@example.com', role: 'viewer', password: null });
    await server.core.portalUsers.create(server.init.organization_token, { email: 'locked@example.com', role: 'developer', password: PASSWORD });
    await server.core.portalUsers.create(bravo.token, { email: 'outsider@example.com', role: 'developer', password: 'outsider has this one' });
    browser = await launchBrowser();
    page = await newPageWatchingCsp(browser, cspErrors);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('signs in once and shows the organizations to choose from', async () => {
    await page.goto(`${base}/portal/sign-in`);
    await page.getByLabel('Email').fill('multi@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toContain('/portal/organizations');
    await expect.poll(() => page.getByRole('cell', { name: 'Bravo Payments', exact: true }).count()).toBe(1);
    await screenshotAccessible(page, 'org-01-chooser');
  });

  it('opens the other organization from the chooser: its environments, the role there', async () => {
    const current = await page.getByLabel('Organization').inputValue();
    const other = current === server.init.organization_token ? 'Bravo Payments' : 'default';
    await page.getByRole('button', { name: `Open ${other}` }).click();
    const expected = other === 'Bravo Payments' ? envB : envA;
    await expect.poll(() => page.url()).toContain(`/portal/e/${expected}/overview`);
    await screenshotAccessible(page, 'org-02-switched-by-chooser');
  });

  it('switches with the header menu (submitted on change), and the pages follow', async () => {
    await page.getByLabel('Organization').selectOption({ label: 'Bravo Payments' });
    await expect.poll(() => page.url()).toContain(`/portal/e/${envB}/overview`);
    expect(await page.locator('header .who').textContent()).toContain('viewer');
    await page.getByRole('link', { name: 'Team', exact: true }).click();
    expect(await page.getByRole('button', { name: 'Invite' }).count()).toBe(0);
    await screenshotAccessible(page, 'org-03-bravo-team-as-viewer');
    await page.getByLabel('Organization').selectOption({ label: 'default' });
    await expect.poll(() => page.url()).toContain(`/portal/e/${envA}/overview`);
    expect(await page.locator('header .who').textContent()).toContain('owner');
  });

  it('invites someone who has an account in another organization; they join with the password they already have', async () => {
    await page.getByRole('link', { name: 'Team', exact: true }).click();
    await page.getByLabel('Email').fill('outsider@example.com');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = await page.getByLabel('Invitation link').inputValue();
    await screenshotAccessible(page, 'org-04-invitation-shown');
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    try {
      const invited = await context.newPage();
      await invited.goto(link);
      await screenshotAccessible(invited, 'org-05-invitation-page');
      await invited.getByLabel('Password', { exact: true }).fill('outsider has this one');
      await invited.getByRole('button', { name: 'Join default' }).click();
      await expect.poll(() => invited.url()).toContain(`/portal/e/${envA}/overview`);
      // Now in two organizations: the switcher is there.
      expect(await invited.getByLabel('Organization').count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('shows a locked member with an Unlock button, and unlocks them', async () => {
    const person = await server.core.portalUsers.requireByEmail('locked@example.com');
    for (let i = 0; i < 10; i += 1) await server.core.portalUsers.lockout.fail(person, '203.0.113.9');
    await page.getByRole('link', { name: 'Team', exact: true }).click();
    const row = page.getByRole('row', { name: /locked@example\.com/ });
    await expect.poll(() => row.getByText('locked', { exact: true }).count()).toBe(1);
    await screenshotAccessible(page, 'org-06-team-locked-member');
    await row.getByRole('button', { name: 'Unlock locked@example.com' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('unlocked');
    expect(server.core.portalUsers.lockout.isLocked(await server.core.portalUsers.requireByEmail('locked@example.com'))).toBe(false);
    await screenshotAccessible(page, 'org-07-team-unlocked');
  });

  it('loaded every page without a CSP violation', () => {
    expect(cspErrors).toEqual([]);
  });
});
