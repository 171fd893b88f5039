import fs from 'node:fs';
import path from 'node:path';
import * as openpgp from 'openpgp';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createPostgresDatabase, storeKinds } from '../helpers/postgres.js';
import { runCoffer, useCofferProcesses, type RunResult } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/**
 * `coffer export request|approve|reject|cancel|download|list|show` as operators run them, on SQLite and
 * PostgreSQL: the admin secret on stdin says who acts; the requester cannot approve or reject, another admin cannot cancel; the file is
 * written once (mode 0600) and decrypts with the recipient's key; a second download is refused.
 */

vi.setConfig({ testTimeout: 180_000 });
const defer = useCofferProcesses();
const drops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

const VISA = '4111111111111111';

function okJson(result: RunResult): any {
  const context = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  expect(result.code, context).toBe(0);
  return JSON.parse(result.stdoutLines[result.stdoutLines.length - 1]!);
}

describe.each(storeKinds)('coffer export (%s)', (store) => {
  it('requests with one admin, refuses that admin’s approval, approves with another, downloads once', async () => {
    const temp = tempDir('coffer-export-');
    defer(temp.cleanup);
    const env: Record<string, string> = { COFFER_DATA_DIR: temp.dir };
    if (store === 'postgres') {
      const database = await createPostgresDatabase();
      drops.push(database.drop);
      env.COFFER_DATABASE_URL = database.url;
    }
    const init = okJson(await runCoffer(['init', '--json'], env));
    const environmentKey = init.environment_key as string;
    const other = okJson(await runCoffer(['access-secrets', 'create', '--organization', init.organization_token, '--environment', environmentKey, '--role', 'admin', '--name', 'second', '--json'], env));
    const reader = okJson(await runCoffer(['access-secrets', 'create', '--organization', init.organization_token, '--environment', environmentKey, '--role', 'read', '--name', 'reader', '--json'], env));
    const cards = path.join(temp.dir, 'cards.jsonl');
    fs.writeFileSync(cards, `${JSON.stringify({ token: 'CliExportOne1', credit_card: { number: VISA, month: 2, year: 2040, first_name: 'Ex', last_name: 'Port' } })}\n`);
    okJson(await runCoffer(['import', '--environment', environmentKey, cards, '--json'], env));
    const generated = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'Recipient' }], format: 'object' });
    const recipientFile = path.join(temp.dir, 'recipient.asc');
    fs.writeFileSync(recipientFile, generated.publicKey.armor());

    // Who acts is the secret on stdin: none, or a read secret, is refused and nothing is requested.
    const noSecret = await runCoffer(['export', 'request', '--environment', environmentKey, '--recipient', recipientFile], env, 30_000, '');
    expect(noSecret.code).toBe(1);
    expect(noSecret.stderr).toContain('pipe an admin access secret');
    const readOnly = await runCoffer(['export', 'request', '--environment', environmentKey, '--recipient', recipientFile], env, 30_000, reader.access_secret);
    expect(readOnly.code).toBe(1);
    expect(readOnly.stderr).toContain('not an admin access secret');
    const badState = await runCoffer(['export', 'request', '--environment', environmentKey, '--recipient', recipientFile, '--storage-state', 'redacted'], env, 30_000, init.access_secret);
    expect(badState.code).toBe(1);
    expect(badState.stderr).toContain('--storage-state is invalid');
    const noKeyFile = await runCoffer(['export', 'request', '--environment', environmentKey, '--recipient', path.join(temp.dir, 'missing.asc')], env, 30_000, init.access_secret);
    expect(noKeyFile.code).toBe(1);
    expect(noKeyFile.stderr).toContain('cannot read');
    const badPair = await runCoffer(['export', 'request', '--environment', environmentKey, '--recipient', recipientFile, '--metadata', 'novalue'], env, 30_000, init.access_secret);
    expect(badPair.code).toBe(1);
    expect(badPair.stderr).toContain('--metadata takes key=value');
    const privateFile = path.join(temp.dir, 'private.asc');
    fs.writeFileSync(privateFile, generated.privateKey.armor());
    const privateKey = await runCoffer(['export', 'request', '--environment', environmentKey, '--recipient', privateFile], env, 30_000, init.access_secret);
    expect(privateKey.code).toBe(1);
    expect(privateKey.stderr).toContain('is a private key');
    expect(okJson(await runCoffer(['export', 'list', '--environment', environmentKey, '--json'], env))).toEqual([]);

    const requested = okJson(await runCoffer(['export', 'request', '--environment', environmentKey, '--recipient', recipientFile, '--metadata', 'x=y', '--json'], env, 30_000, `${init.access_secret}\n`));
    expect(requested).toMatchObject({ state: 'pending', recipient_fingerprint: generated.publicKey.getFingerprint(), metadata: ['x=y'] });
    const unfiltered = okJson(await runCoffer(['export', 'request', '--environment', environmentKey, '--recipient', recipientFile, '--json'], env, 30_000, init.access_secret));

    const own = await runCoffer(['export', 'approve', unfiltered.id, '--environment', environmentKey], env, 30_000, init.access_secret);
    expect(own.code).toBe(1);
    expect(own.stderr).toContain('someone other than the person who requested it');
    const early = await runCoffer(['export', 'download', unfiltered.id, '--environment', environmentKey, '--out', path.join(temp.dir, 'early.gpg')], env, 30_000, other.access_secret);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain('not been approved yet');
    expect(fs.existsSync(path.join(temp.dir, 'early.gpg'))).toBe(false);

    expect(okJson(await runCoffer(['export', 'approve', unfiltered.id, '--environment', environmentKey, '--json'], env, 30_000, other.access_secret))).toMatchObject({ state: 'approved', approved_by: other.access_secret_key });
    const out = path.join(temp.dir, 'export.jsonl.gpg');
    // An existing file is never overwritten; the export is then spent (the download began).
    fs.writeFileSync(path.join(temp.dir, 'taken.gpg'), 'keep me');
    const spare = okJson(await runCoffer(['export', 'request', '--environment', environmentKey, '--recipient', recipientFile, '--json'], env, 30_000, init.access_secret));
    okJson(await runCoffer(['export', 'approve', spare.id, '--environment', environmentKey, '--json'], env, 30_000, other.access_secret));
    const taken = await runCoffer(['export', 'download', spare.id, '--environment', environmentKey, '--out', path.join(temp.dir, 'taken.gpg')], env, 30_000, other.access_secret);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('exists already');
    expect(fs.readFileSync(path.join(temp.dir, 'taken.gpg'), 'utf8')).toBe('keep me');
    expect(okJson(await runCoffer(['export', 'show', spare.id, '--environment', environmentKey, '--json'], env))).toMatchObject({ state: 'failed' });
    const downloaded = okJson(await runCoffer(['export', 'download', unfiltered.id, '--environment', environmentKey, '--out', out, '--json'], env, 30_000, init.access_secret));
    expect(downloaded).toMatchObject({ state: 'downloaded', payment_methods: 1 });
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    const bytes = fs.readFileSync(out);
    expect(bytes.includes(Buffer.from(VISA))).toBe(false);
    const decrypted = await openpgp.decrypt({ message: await openpgp.readMessage({ binaryMessage: bytes }), decryptionKeys: generated.privateKey, format: 'binary' });
    const line = JSON.parse(Buffer.from(decrypted.data as Uint8Array).toString('utf8'));
    expect(line).toMatchObject({ token: 'CliExportOne1', credit_card: { number: VISA, month: 2, year: 2040 } });

    const again = await runCoffer(['export', 'download', unfiltered.id, '--environment', environmentKey, '--out', path.join(temp.dir, 'again.gpg')], env, 30_000, other.access_secret);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('downloaded already');
    const shown = okJson(await runCoffer(['export', 'show', unfiltered.id, '--environment', environmentKey, '--json'], env));
    expect(shown).toMatchObject({ state: 'downloaded', requested_by: init.access_secret_key ?? expect.any(String), downloaded_by: expect.any(String) });
    const missing = await runCoffer(['export', 'show', 'NoSuchExport', '--environment', environmentKey], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Unable to find the specified export');
    // A pending export ends without running: its requester cancels, another admin rejects; not the other way round.
    const otherCancels = await runCoffer(['export', 'cancel', requested.id, '--environment', environmentKey], env, 30_000, other.access_secret);
    expect(otherCancels.code).toBe(1);
    expect(otherCancels.stderr).toContain('Only the person who requested an export can cancel it');
    const ownReject = await runCoffer(['export', 'reject', requested.id, '--environment', environmentKey], env, 30_000, init.access_secret);
    expect(ownReject.code).toBe(1);
    expect(ownReject.stderr).toContain('someone other than the person who requested it');
    const cancelled = okJson(await runCoffer(['export', 'cancel', requested.id, '--environment', environmentKey, '--json'], env, 30_000, init.access_secret));
    expect(cancelled).toMatchObject({ state: 'cancelled', closed_by: requested.requested_by, closed_at: expect.any(String) });
    const lateApproval = await runCoffer(['export', 'approve', requested.id, '--environment', environmentKey], env, 30_000, other.access_secret);
    expect(lateApproval.code).toBe(1);
    expect(lateApproval.stderr).toContain('This export was cancelled');
    const toReject = okJson(await runCoffer(['export', 'request', '--environment', environmentKey, '--recipient', recipientFile, '--json'], env, 30_000, init.access_secret));
    expect(okJson(await runCoffer(['export', 'reject', toReject.id, '--environment', environmentKey, '--json'], env, 30_000, other.access_secret))).toMatchObject({ state: 'rejected', closed_by: other.access_secret_key });
    const lateDownload = await runCoffer(['export', 'download', toReject.id, '--environment', environmentKey, '--out', path.join(temp.dir, 'rejected.gpg')], env, 30_000, other.access_secret);
    expect(lateDownload.code).toBe(1);
    expect(lateDownload.stderr).toContain('This export was rejected');
    expect(fs.existsSync(path.join(temp.dir, 'rejected.gpg'))).toBe(false);
    const unknownCancel = await runCoffer(['export', 'cancel', 'NoSuchExport', '--environment', environmentKey], env, 30_000, init.access_secret);
    expect(unknownCancel.code).toBe(1);
    expect(unknownCancel.stderr).toContain('Unable to find the specified export');

    for (const result of [own, early, again, missing]) expect(`${result.stdout}${result.stderr}`).not.toContain(VISA);
  });
});
