import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPageWatchingCsp, screenshotAccessible } from '../helpers/browser.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const VISA = '4111111111111111';

/**
 * The portal in a real Chromium: one person's day, in order (sign in, second factor, an
 * environment, a secret used and revoked, a gateway and a payment found again), then what a
 * viewer and a forged form cannot do. Every page is screenshotted and checked with axe-core.
 */
describe('the merchant portal in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  let env: string;
  const cspErrors: string[] = [];
  const checked: string[] = [];

  /** Screenshot and accessibility check of the page as it is now. */
  async function look(name: string): Promise<void> {
    await screenshotAccessible(page, name);
    checked.push(name);
  }

  async function signIn(target: Page, email: string): Promise<void> {
    await target.goto(`${base}/portal/`);
    await target.getByLabel('Email').fill(email);
    await target.getByLabel('Password').fill(PASSWORD);
    await target.getByRole('button', { name: 'Sign in' }).click();
  }

  beforeAll(async () => {
    server = await startServer();
    base = server.client.baseUrl;
    env = server.init.environment_key;
    await server.core.portalUsers.create(server.init.organization_token, { email: 'owner@example.com', role: 'owner', password: PASSWORD });
    await server.core.portalUsers.create(server.init.organization_token, { email: 'viewer@example.com', role: 'viewer', password: PASSWORD });
    browser = await launchBrowser();
    page = await newPageWatchingCsp(browser, cspErrors);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('refuses a wrong password with "Invalid email or password"', async () => {
    await page.goto(`${base}/portal/`);
    await expect.poll(() => page.url()).toContain('/portal/sign-in');
    await look('01-sign-in');
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill('not my password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Invalid email or password');
    await look('02-sign-in-wrong-password');
  });

  it('signs in, turns on TOTP, and signs in again with a code', async () => {
    await signIn(page, 'owner@example.com');
    await expect.poll(() => page.url()).toContain(`/portal/e/${env}/overview`);
    await look('03-overview');
    await page.getByRole('link', { name: 'Your account', exact: true }).click();
    await look('04-account');
    await page.getByRole('button', { name: 'Set up two-step verification' }).click();
    const secret = await page.getByLabel('Setup key').inputValue();
    await look('05-totp-setup');
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    await page.getByLabel('Authentication code').fill(totp.generate());
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Two-step verification is on');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, 'owner@example.com');
    await expect.poll(() => page.url()).toContain('/portal/sign-in/code');
    await look('06-sign-in-code');
    // The code that turned it on is spent (a code works once): the next step's, within the drift window.
    await page.getByLabel('Authentication code').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.url()).toContain('/overview');
  });

  it('creates and renames an environment and shows its key read-only', async () => {
    await page.getByRole('link', { name: 'Environments', exact: true }).click();
    await page.getByLabel('Name', { exact: true }).fill('Staging');
    await page.getByRole('button', { name: 'Create environment' }).click();
    const key = page.getByLabel('Environment key', { exact: true });
    await expect.poll(() => key.getAttribute('readonly')).not.toBeNull();
    expect(await key.inputValue()).toMatch(/^[A-Za-z0-9]{26}$/);
    await look('07-environment');
    await page.getByRole('link', { name: 'Environments', exact: true }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'Staging' }).count()).toBe(1);
    await look('08-environments');
  });

  it('sets an allowed origin and enhanced iFrame security on the environment page', async () => {
    await page.goto(`${base}/portal/environments/${env}`);
    await page.getByLabel('Allowed origins').fill('https://shop.example\nhttp://localhost:8080');
    await page.getByLabel('Enhanced iFrame security').check();
    await page.getByRole('button', { name: 'Save card capture settings' }).click();
    await expect.poll(() => page.getByText('Saved.').count()).toBe(1);
    expect(await page.getByLabel('Allowed origins').inputValue()).toBe('https://shop.example\nhttp://localhost:8080');
    const environment = await server.core.tenancy.findEnvironment(server.init.organization_token, env);
    expect(environment).toMatchObject({ allowedOrigins: ['https://shop.example', 'http://localhost:8080'], enhancedIframeSecurity: true });
    await look('08b-environment-card-capture');
  });

  it('creates an access secret shown once, uses it against the API, then revokes it', async () => {
    await page.goto(`${base}/portal/e/${env}/secrets`);
    await page.getByLabel('Name', { exact: true }).fill('browser-test');
    await page.getByLabel('Role', { exact: true }).selectOption('transact');
    await page.getByRole('button', { name: 'Create' }).click();
    const field = page.getByLabel('Access secret', { exact: true });
    const secret = await field.inputValue();
    expect(secret).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(await field.getAttribute('readonly')).not.toBeNull();
    await expect.poll(() => page.getByText('it will not be shown again').count()).toBe(1);
    await look('09-secret-created');
    const api = server.client.withAuth({ user: env, password: secret });
    expect((await api.get('/v1/gateways.json')).status).toBe(200);

    await page.reload();
    expect(await page.getByLabel('Access secret', { exact: true }).count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    await page.goto(`${base}/portal/e/${env}/secrets`);
    expect(await page.content()).not.toContain(secret);
    await look('10-secrets');

    const row = page.getByRole('row', { name: /browser-test/ });
    await row.getByText('Revoke').first().click();
    await look('11-secret-revoke-confirm');
    await row.getByRole('button', { name: 'Revoke browser-test' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('revoked');
    expect((await api.get('/v1/gateways.json')).status).toBe(401);
  });

  it('creates a test gateway, and finds a purchase made through the API', async () => {
    await page.getByRole('link', { name: 'Gateways', exact: true }).click();
    await page.getByLabel('Gateway type').selectOption('test');
    await page.getByRole('button', { name: 'Choose' }).click();
    await look('12-gateway-new');
    await page.getByLabel('Display name').fill('primary test');
    await page.getByRole('button', { name: /Create .* gateway/ }).click();
    await expect.poll(() => page.url()).toMatch(/\/gateways\/[A-Za-z0-9]+\?done=created/);
    await look('13-gateway');
    const gateway = /\/gateways\/([A-Za-z0-9]+)/.exec(page.url())?.[1] as string;

    const card = await server.client.sendJson('POST', '/v1/payment_methods.json', {
      payment_method: { credit_card: { first_name: 'Joe', last_name: 'Jones', number: VISA, verification_value: '123', month: 3, year: 2032 } },
    });
    const pm = card.json().transaction.payment_method.token as string;
    const purchase = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, {
      transaction: { payment_method_token: pm, amount: 1234, currency_code: 'USD', order_id: 'order-browser-1' },
    });
    expect(purchase.status).toBe(200);
    const token = purchase.json().transaction.token as string;

    await page.getByRole('link', { name: 'Transactions', exact: true }).click();
    await look('14-transactions');
    await page.getByLabel('Order id').fill('order-browser-1');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('link', { name: token }).count()).toBe(1);
    await expect.poll(() => page.getByRole('cell', { name: '12.34 USD' }).count()).toBe(1);
    await page.getByRole('link', { name: token }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Purchase succeeded' }).count()).toBe(1);
    expect(await page.content()).not.toContain(VISA);
    await look('15-transaction');

    await page.getByRole('link', { name: 'Payment methods', exact: true }).click();
    await page.getByLabel('Payment method token').fill(pm);
    await page.getByRole('button', { name: 'Look up' }).click();
    // Twice: the card at a glance, and the API's view under "All fields".
    await expect.poll(() => page.getByText('XXXX-XXXX-XXXX-1111').count()).toBe(2);
    expect(await page.content()).not.toContain(VISA);
    await look('16-payment-method');
  });

  it('shows the overview with charts of the purchase', async () => {
    await page.getByRole('link', { name: 'Overview', exact: true }).click();
    await expect.poll(() => page.getByRole('img', { name: /payments and approval rate, last 24 hours: 1 payments, 100\.0% approved/ }).count()).toBe(1);
    await look('19-overview-charts');
  });

  it('invites a team member, who joins through the link with a password of their own', async () => {
    await page.getByRole('link', { name: 'Team', exact: true }).click();
    await page.getByLabel('Email').fill('support@example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = await page.getByLabel('Invitation link').inputValue();
    expect(link).toMatch(/\/portal\/invitations\/[A-Za-z0-9_-]{43}$/);
    await look('20-team-invited');
    const added = await browser.newContext({ ignoreHTTPSErrors: true });
    try {
      const other = await added.newPage();
      await other.goto(link);
      await other.getByLabel('Password', { exact: true }).fill('support has its own password');
      await other.getByLabel('Repeat the password').fill('support has its own password');
      await other.getByRole('button', { name: 'Join default' }).click();
      await expect.poll(() => other.url()).toContain('/overview');
    } finally {
      await added.close();
    }
  });

  it('generates a certificate signing request and downloads it; lists receivers', async () => {
    await page.getByRole('link', { name: 'Certificates', exact: true }).click();
    await page.getByLabel('Common name (CN)').fill('payments.example.com');
    await page.getByRole('button', { name: 'Generate' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Download CSR' }).count()).toBe(1);
    await look('21-certificate');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSR' }).click()]);
    const stream = await download.createReadStream();
    let csr = '';
    for await (const chunk of stream) csr += String(chunk);
    expect(csr).toContain('-----BEGIN CERTIFICATE REQUEST-----');
    expect(csr).not.toContain('PRIVATE KEY');
    await page.getByRole('link', { name: 'Receivers', exact: true }).click();
    await look('22-receivers');
  });

  it('shows the audit log of what was done', async () => {
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    for (const action of ['environment.create', 'access_secret.create', 'access_secret.revoke', 'gateway.create', 'user.invite', 'user.join', 'certificate.generate']) {
      await expect.poll(() => page.getByRole('cell', { name: action }).count()).toBeGreaterThan(0);
    }
    await look('17-audit-log');
  });

  it('refuses a form posted without its CSRF token', async () => {
    const res = await page.request.post(`${base}/portal/environments`, { form: { name: 'forged' } });
    expect(res.status()).toBe(403);
    const names = (await server.core.tenancy.listEnvironments(server.init.organization_token, { sinceToken: null, order: 'asc', count: 100 })).map((e) => e.name);
    expect(names).not.toContain('forged');
  });

  it('lets a viewer look but change nothing, even by posting the form directly', async () => {
    const viewerContext = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    const viewer = await viewerContext.newPage();
    try {
      await signIn(viewer, 'viewer@example.com');
      await viewer.goto(`${base}/portal/e/${env}/secrets`);
      expect(await viewer.getByRole('button', { name: 'Create' }).count()).toBe(0);
      const previous = page;
      page = viewer;
      await look('18-viewer-secrets');
      page = previous;
      const csrf = await viewer.locator('input[name="_csrf"]').first().inputValue();
      const res = await viewer.request.post(`${base}/portal/e/${env}/secrets`, { form: { _csrf: csrf, name: 'viewer-made', role: 'admin' } });
      expect(res.status()).toBe(403);
      expect(await res.text()).toContain('Your role (viewer) does not allow this.');
      const secrets = await server.core.tenancy.listSecretsForEnvironment(server.init.organization_token, env);
      expect(secrets.map((s) => s.name)).not.toContain('viewer-made');
    } finally {
      await viewerContext.close();
    }
  });

  it('loaded every page without a CSP violation', () => {
    expect(checked.length).toBeGreaterThanOrEqual(22);
    expect(cspErrors).toEqual([]);
  });
});
