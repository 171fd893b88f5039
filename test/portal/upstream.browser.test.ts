import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshotAccessible, signInPortal } from '../helpers/browser.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const EGRESS = { COFFER_EGRESS_ALLOW: '127.0.0.0/8,::1' };

/**
 * The upstream settings on the environment page in a real Chromium (docs/portal.md, "Migration
 * from an upstream vault"), with a second Coffer as the upstream: an admin is refused a wrong
 * secret with the API's message, sets the upstream, starts the backfill and sees it copy every
 * retained card; the secret never appears again; a developer sees the status only. Screenshots go
 * to .tmp/screenshots (checked with axe-core); the pages cause no CSP violation.
 */
describe('the portal upstream settings in Chromium', () => {
  let up: TestServer;
  let down: TestServer;
  let browser: Browser;
  let upBase: string;
  let base: string;
  let publicUrl: string;
  let env: string;
  const upTokens: string[] = [];
  const contexts: BrowserContext[] = [];
  const cspErrors: string[] = [];

  async function signedIn(email: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (/Content.Security.Policy|Refused to/i.test(message.text())) cspErrors.push(message.text());
    });
    return signInPortal(page, base, email, PASSWORD);
  }

  async function fillUpstream(page: Page, secret: string): Promise<void> {
    await page.getByLabel('Upstream URL').fill(upBase);
    await page.getByLabel('Environment key at the upstream').fill(up.init.environment_key);
    await page.getByLabel('Access secret at the upstream').fill(secret);
    await page.getByLabel('Public URL of this Coffer').fill(publicUrl);
  }

  beforeAll(async () => {
    up = await startServer({ tls: false, env: EGRESS });
    down = await startServer({ tls: false, env: EGRESS });
    upBase = up.client.baseUrl.replace('localhost', '127.0.0.1');
    // The browser reaches the portal on localhost (a secure context over plain HTTP, so its Secure cookie is kept).
    base = down.client.baseUrl.replace('127.0.0.1', 'localhost');
    publicUrl = down.client.baseUrl.replace('localhost', '127.0.0.1');
    env = down.init.environment_key;
    for (const number of ['4111111111111111', '5555555555554444', '378282246310005']) {
      const made = await up.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { number, month: 12, year: 2035, first_name: 'Ada', last_name: 'Lovelace' }, retained: true } });
      upTokens.push(made.json().transaction.payment_method.token);
    }
    for (const [email, role] of [['alice@example.com', 'admin'], ['dev@example.com', 'developer']] as const) {
      await down.core.portalUsers.create(down.init.organization_token, { email, role, password: PASSWORD });
    }
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await down?.close();
    await up?.close();
  });

  it('an admin is refused a wrong secret, sets the upstream, and backfills every retained card', async () => {
    const alice = await signedIn('alice@example.com');
    await alice.goto(`${base}/portal/environments/${env}`);
    await expect.poll(() => alice.getByRole('heading', { name: 'Migration from an upstream vault' }).count()).toBe(1);
    await screenshotAccessible(alice, 'u01-upstream-form-empty');

    await fillUpstream(alice, 'not-the-secret');
    await alice.getByRole('button', { name: 'Set upstream' }).click();
    await expect.poll(() => alice.getByText('The upstream refused this environment key and access secret.').count()).toBe(1);
    expect(await alice.content()).not.toContain('not-the-secret');
    await screenshotAccessible(alice, 'u02-upstream-wrong-secret');

    await alice.goto(`${base}/portal/environments/${env}`);
    await fillUpstream(alice, up.init.access_secret);
    await alice.getByRole('button', { name: 'Set upstream' }).click();
    await expect.poll(() => alice.getByText('The upstream was saved.').count()).toBe(1);
    await expect.poll(() => alice.getByText('Set (never shown again)').count()).toBe(1);
    expect(await alice.getByLabel('Access secret at the upstream').inputValue()).toBe('');
    expect(await alice.content()).not.toContain(up.init.access_secret);
    await screenshotAccessible(alice, 'u03-upstream-set');

    await alice.getByRole('button', { name: 'Start backfill' }).click();
    await expect.poll(() => alice.getByText(/The backfill started|already running/).count()).toBe(1);
    await down.core.upstreams.backfill.drain();
    await alice.reload();
    await expect.poll(() => alice.getByText('done: 3 listed, 3 copied, 0 already here').count()).toBe(1);
    await screenshotAccessible(alice, 'u04-upstream-backfilled');
    for (const token of upTokens) expect((await down.client.get(`/v1/payment_methods/${token}.json`)).status).toBe(200);
  });

  it('shows a developer the status, without the forms', async () => {
    const dev = await signedIn('dev@example.com');
    await dev.goto(`${base}/portal/environments/${env}`);
    await expect.poll(() => dev.getByText('Set (never shown again)').count()).toBe(1);
    expect(await dev.getByRole('button', { name: /backfill|upstream/i }).count()).toBe(0);
    expect(await dev.getByLabel('Access secret at the upstream').count()).toBe(0);
    await screenshotAccessible(dev, 'u05-upstream-developer');
  });

  it('an admin clears the upstream', async () => {
    const alice = await signedIn('alice@example.com');
    await alice.goto(`${base}/portal/environments/${env}`);
    await alice.getByRole('button', { name: 'Clear upstream' }).click();
    await expect.poll(() => alice.getByText('The upstream was cleared').count()).toBe(1);
    await expect.poll(() => alice.getByRole('button', { name: 'Set upstream' }).count()).toBe(1);
    await screenshotAccessible(alice, 'u06-upstream-cleared');
    expect(cspErrors).toEqual([]);
  });
});
