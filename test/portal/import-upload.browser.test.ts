import * as openpgp from 'openpgp';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshotAccessible, signInPortal } from '../helpers/browser.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const VISA = '4111111111111111';
const MASTER = '5555555555554444';

/**
 * Uploading an import file in a real Chromium (docs/portal.md, "Imports"): an admin chooses a
 * file encrypted to the environment's import key and lands on its report; a file encrypted to
 * another key is refused with its reason on the page and imports nothing; a viewer sees no
 * form. No page shows a card number, and the pages cause no CSP violation. Screenshots go to
 * .tmp/screenshots (checked with axe-core).
 */
describe('the portal import upload in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let base: string;
  let env: string;
  const contexts: BrowserContext[] = [];
  const cspErrors: string[] = [];

  async function signedIn(email: string): Promise<Page> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (/Content.Security.Policy|Refused to/i.test(message.text())) cspErrors.push(message.text());
    });
    return signInPortal(page, base, email, PASSWORD);
  }

  const encrypted = async (text: string, to: openpgp.Key) =>
    Buffer.from((await openpgp.encrypt({ message: await openpgp.createMessage({ text }), encryptionKeys: to, format: 'binary' })) as Uint8Array);
  const held = async (token: string) => (await server.client.get(`/v1/payment_methods/${token}.json`)).status === 200;

  beforeAll(async () => {
    server = await startServer();
    base = server.client.baseUrl;
    env = server.init.environment_key;
    for (const [email, role] of [['alice@example.com', 'admin'], ['viewer@example.com', 'viewer']] as const) {
      await server.core.portalUsers.create(server.init.organization_token, { email, role, password: PASSWORD });
    }
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.close();
  });

  it('an admin uploads an encrypted file and reads its report; a file for another key is refused on the page', async () => {
    const alice = await signedIn('alice@example.com');
    await alice.goto(`${base}/portal/e/${env}/imports`);
    await expect.poll(() => alice.getByRole('button', { name: 'Upload and import' }).count()).toBe(1);
    await screenshotAccessible(alice, 'i01-imports-upload-form');

    const importKey = await openpgp.readKey({ armoredKey: (await server.core.importKeys.publicKey(env)).armored });
    const file = [
      JSON.stringify({ token: 'BrowserUpload1', credit_card: { number: VISA, month: 1, year: 2040, first_name: 'Ada', last_name: 'Lovelace' } }),
      JSON.stringify({ token: 'BrowserUpload2', credit_card: { number: '4111111111111112', month: 1, year: 2040 } }),
    ].join('\n');
    await alice.getByLabel('Import file').setInputFiles({ name: 'cards.jsonl.gpg', mimeType: 'application/pgp-encrypted', buffer: await encrypted(file, importKey) });
    await alice.getByRole('button', { name: 'Upload and import' }).click();
    await expect.poll(() => alice.getByText('The file was imported.').count()).toBe(1);
    expect(alice.url()).toMatch(new RegExp(`/portal/e/${env}/imports/\\w+\\?uploaded=1$`));
    await expect.poll(() => alice.getByRole('cell', { name: 'succeeded (encrypted)' }).count()).toBe(1);
    await expect.poll(() => alice.getByText('luhn').count()).toBe(1);
    expect(await alice.content()).not.toContain(VISA);
    await screenshotAccessible(alice, 'i02-import-uploaded-report');
    expect(await held('BrowserUpload1')).toBe(true);

    const stranger = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'stranger' }], format: 'object' });
    await alice.goto(`${base}/portal/e/${env}/imports`);
    const other = JSON.stringify({ token: 'BrowserUpload3', credit_card: { number: MASTER, month: 1, year: 2040 } });
    await alice.getByLabel('Import file').setInputFiles({ name: 'cards.gpg', mimeType: 'application/octet-stream', buffer: await encrypted(other, stranger.publicKey) });
    await alice.getByRole('button', { name: 'Upload and import' }).click();
    await expect.poll(() => alice.getByText(/The import failed. The file cannot be decrypted/).count()).toBe(1);
    await screenshotAccessible(alice, 'i03-import-refused-wrong-key');
    expect(await held('BrowserUpload3')).toBe(false);

    // The list shows both, the refused one as failed.
    await alice.goto(`${base}/portal/e/${env}/imports`);
    await expect.poll(() => alice.getByRole('cell', { name: 'failed', exact: true }).count()).toBe(1);
    await expect.poll(() => alice.getByRole('cell', { name: 'succeeded', exact: true }).count()).toBe(1);
    await screenshotAccessible(alice, 'i04-imports-list-after-uploads');
    expect(cspErrors).toEqual([]);
  });

  it('shows a viewer the imports, without the upload form', async () => {
    const viewer = await signedIn('viewer@example.com');
    await viewer.goto(`${base}/portal/e/${env}/imports`);
    await expect.poll(() => viewer.getByRole('heading', { name: 'Import key' }).count()).toBe(1);
    expect(await viewer.getByRole('button', { name: 'Upload and import' }).count()).toBe(0);
    await screenshotAccessible(viewer, 'i05-imports-viewer');
  });
});
