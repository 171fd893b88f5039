import { expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
export const SCREENSHOTS = path.resolve('.tmp/screenshots');

/** The system Chromium (COFFER_CHROMIUM, else /usr/bin/chromium), headless; --no-sandbox as CI runs as root. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = process.env.COFFER_CHROMIUM ?? '/usr/bin/chromium';
  if (!fs.existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}: install it (apt-get install chromium) or set COFFER_CHROMIUM`);
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** Signs `email` in on the portal's sign-in page at `base` and waits for the overview. */
export async function signInPortal(page: Page, base: string, email: string, password: string): Promise<Page> {
  await page.goto(`${base}/portal/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.url()).toContain('/overview');
  return page;
}

/**
 * A page in a fresh context (1280×800, the test CA ignored) whose console messages about the
 * Content-Security-Policy are pushed to `cspErrors`: a portal page must cause none.
 */
export async function newPageWatchingCsp(browser: Browser, cspErrors: string[]): Promise<Page> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) cspErrors.push(message.text());
  });
  return page;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * Runs axe-core in the page. Its source is evaluated through the DevTools protocol, which the
 * page's CSP does not govern, so the test needs no CSP exception.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Saves a full-page screenshot under .tmp/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Screenshots the page as it is now and fails on any serious or critical axe-core violation. */
export async function screenshotAccessible(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  const violations = await seriousViolations(page);
  expect(violations, `${name}: ${JSON.stringify(violations, null, 1)}`).toEqual([]);
}
