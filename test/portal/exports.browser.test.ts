import fs from 'node:fs';
import * as openpgp from 'openpgp';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPaymentMethod } from '../helpers/fixtures.js';
import { launchBrowser, screenshotAccessible, signInPortal } from '../helpers/browser.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const VISA = '4111111111111111';

/**
 * Exports in the portal in a real Chromium (docs/portability.md, "Exporting"): one admin requests
 * an export through the form and cannot approve it; a second admin sees it among the pending
 * approvals, approves it and downloads it once; the file decrypts with the recipient's key. A
 * requester may cancel a pending request and another admin reject one; neither runs. A
 * viewer may not open the page. Each page is screenshotted (.tmp/screenshots) and checked with axe-core.
 */
describe('the portal Exports page in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let base: string;
  let env: string;
  let recipient: { publicKey: string; privateKey: openpgp.PrivateKey };
  const contexts: BrowserContext[] = [];

  async function signedIn(email: string): Promise<Page> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    contexts.push(context);
    const page = await context.newPage();
    return signInPortal(page, base, email, PASSWORD);
  }

  beforeAll(async () => {
    server = await startServer();
    base = server.client.baseUrl;
    env = server.init.environment_key;
    for (const [email, role] of [['alice@example.com', 'admin'], ['bob@example.com', 'admin'], ['viewer@example.com', 'viewer']] as const) {
      await server.core.portalUsers.create(server.init.organization_token, { email, role, password: PASSWORD });
    }
    await addPaymentMethod(server.client, { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: VISA, month: 4, year: 2035 }, retained: true });
    const generated = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'New Vault', email: 'ops@newvault.example' }], format: 'object' });
    recipient = { publicKey: generated.publicKey.armor(), privateKey: generated.privateKey };
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.close();
  });

  it('one admin requests, a second approves and downloads once, and the file decrypts for the recipient', async () => {
    const alice = await signedIn('alice@example.com');
    await alice.goto(`${base}/portal/e/${env}/payment-methods`);
    await alice.getByRole('link', { name: 'Exports to another vault' }).click();
    await expect.poll(() => alice.getByText('No exports yet.').count()).toBe(1);
    await screenshotAccessible(alice, 'x01-exports-empty');
    // A bad filter is refused with its reason, and nothing is requested.
    await alice.getByLabel("Recipient's OpenPGP public key").fill(recipient.publicKey);
    await alice.getByLabel('Created from').fill('yesterday');
    await alice.getByRole('button', { name: 'Request export' }).click();
    await expect.poll(() => alice.getByText('Created from is invalid').count()).toBe(1);
    await screenshotAccessible(alice, 'x01b-export-bad-filter');
    expect(await server.core.vaultExports.list(await server.core.tenancy.requireEnvironment(env))).toEqual([]);
    await alice.goto(`${base}/portal/e/${env}/exports`);
    await alice.getByLabel("Recipient's OpenPGP public key").fill(recipient.publicKey);
    await alice.getByRole('button', { name: 'Request export' }).click();
    await expect.poll(() => alice.getByText('Export requested.').count()).toBe(1);
    // The requester sees it waiting, with no approve button.
    await expect.poll(() => alice.getByText('Waiting for another admin').count()).toBeGreaterThan(0);
    expect(await alice.getByRole('button', { name: /^Approve/ }).count()).toBe(0);
    await screenshotAccessible(alice, 'x02-export-requested');

    const bob = await signedIn('bob@example.com');
    await bob.goto(`${base}/portal/e/${env}/exports`);
    const fingerprint = (await openpgp.readKey({ armoredKey: recipient.publicKey })).getFingerprint();
    await expect.poll(() => bob.getByText(fingerprint).count()).toBeGreaterThan(0);
    await expect.poll(() => bob.getByText('alice@example.com').count()).toBeGreaterThan(0);
    await screenshotAccessible(bob, 'x03-export-pending-approval');
    await bob.getByRole('button', { name: /^Approve/ }).first().click();
    await expect.poll(() => bob.getByText('Export approved.').count()).toBe(1);
    await screenshotAccessible(bob, 'x04-export-approved');

    const downloading = bob.waitForEvent('download');
    await bob.getByRole('button', { name: /^Download once/ }).first().click();
    const download = await downloading;
    const file = await download.path();
    const bytes = fs.readFileSync(file);
    expect(bytes.includes(Buffer.from(VISA))).toBe(false);
    const decrypted = await openpgp.decrypt({ message: await openpgp.readMessage({ binaryMessage: bytes }), decryptionKeys: recipient.privateKey, format: 'binary' });
    expect(JSON.parse(Buffer.from(decrypted.data as Uint8Array).toString('utf8'))).toMatchObject({ credit_card: { number: VISA } });

    await bob.goto(`${base}/portal/e/${env}/exports`);
    await expect.poll(() => bob.getByRole('cell', { name: 'downloaded', exact: true }).count()).toBe(1);
    expect(await bob.getByRole('button', { name: /^Download once/ }).count()).toBe(0);
    expect(await bob.content()).not.toContain(VISA);
    await screenshotAccessible(bob, 'x05-export-downloaded');

    const actions = (await server.core.audit.list(server.init.organization_token, { count: 50 })).filter((event) => event.objectType === 'payment_method_export');
    expect(actions.map((event) => `${event.action} ${event.actor}`).sort()).toEqual([
      'payment_method_export.approve bob@example.com',
      'payment_method_export.download bob@example.com',
      'payment_method_export.request alice@example.com',
    ]);
  });

  it('the requester cancels their own request, another admin rejects one; neither runs, and the wrong person is refused', async () => {
    const alice = await signedIn('alice@example.com');
    for (let i = 0; i < 2; i += 1) {
      await alice.goto(`${base}/portal/e/${env}/exports`);
      await alice.getByLabel("Recipient's OpenPGP public key").fill(recipient.publicKey);
      await alice.getByRole('button', { name: 'Request export', exact: true }).click();
      await expect.poll(() => alice.getByText('Export requested.').count()).toBe(1);
    }
    // The requester has Cancel (never Approve or Reject) on her pending requests.
    expect(await alice.getByRole('button', { name: /^Cancel request/ }).count()).toBe(2);
    expect(await alice.getByRole('button', { name: /^(Approve|Reject)/ }).count()).toBe(0);
    await screenshotAccessible(alice, 'x07-export-requester-can-cancel');

    // Rejecting her own request (a forged form: the page offers no such button) is refused, and audited.
    await alice.evaluate(`(() => { const form = document.querySelector('form[action$="/cancel"]'); form.action = form.action.replace(/\\/cancel$/, '/reject'); form.submit(); })()`);
    await expect.poll(() => alice.getByText('someone other than the person who requested it').count()).toBeGreaterThan(0);
    await screenshotAccessible(alice, 'x08-export-own-reject-refused');

    await alice.goto(`${base}/portal/e/${env}/exports`);
    await alice.getByRole('button', { name: /^Cancel request/ }).first().click();
    await expect.poll(() => alice.getByText('Export cancelled.').count()).toBe(1);
    await expect.poll(() => alice.getByRole('cell', { name: 'cancelled', exact: true }).count()).toBe(1);
    await expect.poll(() => alice.getByText(/cancelled by alice@example\.com/).count()).toBe(1);

    // Another admin sees Approve and Reject on the one left, and no Cancel.
    const bob = await signedIn('bob@example.com');
    await bob.goto(`${base}/portal/e/${env}/exports`);
    expect(await bob.getByRole('button', { name: /^Cancel request/ }).count()).toBe(0);
    expect(await bob.getByRole('button', { name: /^Reject/ }).count()).toBe(1);
    await screenshotAccessible(bob, 'x09-export-approver-can-reject');
    await bob.getByRole('button', { name: /^Reject/ }).click();
    await expect.poll(() => bob.getByText('Export rejected.').count()).toBe(1);
    await expect.poll(() => bob.getByRole('cell', { name: 'rejected', exact: true }).count()).toBe(1);
    await expect.poll(() => bob.getByText(/rejected by bob@example\.com/).count()).toBe(1);
    // Nothing is left to act on: no button on a closed export.
    expect(await bob.getByRole('button', { name: /^(Approve|Reject|Cancel request|Download once)/ }).count()).toBe(0);
    await screenshotAccessible(bob, 'x10-exports-cancelled-and-rejected');

    const actions = (await server.core.audit.list(server.init.organization_token, { count: 100 })).filter((event) => event.objectType === 'payment_method_export').map((event) => `${event.action} ${event.actor}`);
    expect(actions).toContain('payment_method_export.cancel alice@example.com');
    expect(actions).toContain('payment_method_export.reject bob@example.com');
    expect(actions).toContain('payment_method_export.reject_refused alice@example.com');
  });

  it('is not for a viewer', async () => {
    const viewer = await signedIn('viewer@example.com');
    const response = await viewer.goto(`${base}/portal/e/${env}/exports`);
    expect(response?.status()).toBe(403);
    await screenshotAccessible(viewer, 'x06-exports-viewer-refused');
  });
});
