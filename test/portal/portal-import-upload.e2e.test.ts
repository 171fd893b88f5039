import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../helpers/postgres.js';
import { signedInMember, type PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * Uploading an import file in the portal (docs/portal.md, "Imports"): owners and admins upload the
 * formats the API takes, in clear or encrypted to the import key (signed when a sender key is
 * given); the browser lands on the job's report. A bad file is a failed job with its reason and
 * nothing imported; a form without its CSRF token, a viewer, an empty or unreadable upload are
 * refused and import nothing. No page and no log line holds a card number (the helpers' leak guards).
 */

const PASSWORD = 'correct horse battery';
const VISA = '4111111111111111';
const MASTER = '5555555555554444';
const AMEX = '378282246310005';

function line(token: string, number: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ token, credit_card: { number, month: 1, year: 2040, first_name: 'Ada', last_name: 'Lovelace' }, ...extra });
}

describe.each(storeKinds)('portal import upload (%s)', (store) => {
  let server: TestServer;
  let admin: PortalClient;
  let viewer: PortalClient;
  let env: string;
  let importKey: openpgp.Key;

  const jobs = async () => server.core.imports.list(await server.core.tenancy.requireEnvironment(env));
  const held = async (token: string) => (await server.client.get(`/v1/payment_methods/${token}.json`)).status === 200;

  beforeAll(async () => {
    server = await startServer({ store });
    env = server.init.environment_key;
    admin = await signedInMember(server, 'admin@example.com', 'admin', PASSWORD);
    viewer = await signedInMember(server, 'viewer@example.com', 'viewer', PASSWORD);
    importKey = await openpgp.readKey({ armoredKey: (await server.core.importKeys.publicKey(env)).armored });
  });
  afterAll(() => server.close());

  it('shows the upload form to admins only', async () => {
    const page = await admin.get(`/portal/e/${env}/imports`);
    expect(page.text).toContain('enctype="multipart/form-data"');
    expect(page.text).toContain('Upload and import');
    const seen = await viewer.get(`/portal/e/${env}/imports`);
    expect(seen.status).toBe(200);
    expect(seen.text).not.toContain('Upload and import');
  });

  it('imports a clear file and sends the browser to its report', async () => {
    await admin.get(`/portal/e/${env}/imports`);
    const file = [line('UploadToken1', VISA), line('upload-token-2', MASTER), line('UploadToken3', AMEX, { credit_card: { number: AMEX, month: 1, year: 2040, verification_value: '1234' } })].join('\n');
    const posted = await admin.postFile(`/portal/e/${env}/imports`, {}, { field: 'file', name: 'cards.jsonl', content: file });
    expect(posted.status).toBe(303);
    const location = posted.headers.location as string;
    expect(location).toMatch(new RegExp(`^/portal/e/${env}/imports/\\w+\\?uploaded=1$`));
    const report = await admin.get(location);
    expect(report.status).toBe(200);
    expect(report.text).toContain('The file was imported.');
    expect(report.text).toContain('<code>cvv_present</code>');
    expect(report.text).toContain('upload-token-2');
    for (const number of [VISA, MASTER, AMEX]) expect(report.text).not.toContain(number);
    expect(await held('UploadToken1')).toBe(true);
    expect(await held('UploadToken3')).toBe(false);
    const [job] = await jobs();
    expect(job?.report).toMatchObject({ rows: 3, imported: 2, rejected: 1 });
    const audit = await server.core.audit.list(server.init.organization_token, { count: 20 });
    expect(audit.find((event) => event.action === 'payment_method_import.upload')).toMatchObject({ actor: 'admin@example.com', objectId: job?.token });
  });

  it('imports a CSV file with the format chosen, and a file encrypted to the import key and signed as required', async () => {
    await admin.get(`/portal/e/${env}/imports`);
    const csv = `token,number,month,year,first_name,last_name\nUploadCsv1,${VISA},1,2040,Ada,Lovelace\n`;
    const posted = await admin.postFile(`/portal/e/${env}/imports`, { format: 'csv' }, { field: 'file', name: 'cards.csv', content: csv });
    expect(posted.status).toBe(303);
    expect(await held('UploadCsv1')).toBe(true);

    const sender = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'sender' }], format: 'object' });
    const encrypted = Buffer.from(
      (await openpgp.encrypt({ message: await openpgp.createMessage({ text: line('UploadPgp1', MASTER) }), encryptionKeys: importKey, signingKeys: sender.privateKey, format: 'binary' })) as Uint8Array,
    );
    await admin.get(`/portal/e/${env}/imports`);
    const signed = await admin.postFile(`/portal/e/${env}/imports`, { signed_by: sender.publicKey.armor() }, { field: 'file', name: 'cards.jsonl.gpg', content: encrypted });
    expect(signed.status).toBe(303);
    expect((await admin.get(signed.headers.location as string)).text).toContain('(encrypted)');
    expect(await held('UploadPgp1')).toBe(true);
  });

  it('shows why a bad file was refused, importing nothing of it', async () => {
    const stranger = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'stranger' }], format: 'object' });
    const wrongKey = Buffer.from(
      (await openpgp.encrypt({ message: await openpgp.createMessage({ text: line('UploadWrongKey1', VISA) }), encryptionKeys: stranger.publicKey, format: 'binary' })) as Uint8Array,
    );
    await admin.get(`/portal/e/${env}/imports`);
    const posted = await admin.postFile(`/portal/e/${env}/imports`, {}, { field: 'file', name: 'cards.gpg', content: wrongKey });
    expect(posted.status).toBe(303);
    const report = await admin.get(posted.headers.location as string);
    expect(report.text).toContain('The import failed. The file cannot be decrypted with this environment&#39;s import key');
    expect(await held('UploadWrongKey1')).toBe(false);

    // A signature required of a clear file: refused as the API refuses it.
    await admin.get(`/portal/e/${env}/imports`);
    const sender = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'sender' }], format: 'object' });
    const unsigned = await admin.postFile(`/portal/e/${env}/imports`, { signed_by: sender.publicKey.armor() }, { field: 'file', name: 'cards.jsonl', content: line('UploadUnsigned1', VISA) });
    expect((await admin.get(unsigned.headers.location as string)).text).toContain('A signature is required');
    expect(await held('UploadUnsigned1')).toBe(false);
  });

  it('refuses an empty file, a missing file, a bad option and an unreadable upload on a page, starting nothing', async () => {
    const before = (await jobs()).length;
    await admin.get(`/portal/e/${env}/imports`);
    const empty = await admin.postFile(`/portal/e/${env}/imports`, {}, { field: 'file', name: 'empty.jsonl', content: '' });
    expect(empty.status).toBe(422);
    expect(empty.text).toContain('File can&#39;t be blank');
    const missing = await admin.postFile(`/portal/e/${env}/imports`, {}, null);
    expect(missing.status).toBe(422);
    const format = await admin.postFile(`/portal/e/${env}/imports`, { format: 'xlsx' }, { field: 'file', name: 'cards.jsonl', content: line('UploadFormat1', VISA) });
    expect(format.status).toBe(422);
    expect(format.text).toContain('Format is not included in the list');
    const truncated = await server.client.request('POST', `/portal/e/${env}/imports`, {
      auth: null,
      contentType: 'multipart/form-data; boundary=XYZ',
      body: `--XYZ\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${admin.csrf}\r\n--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n${line('UploadTruncated1', VISA)}`,
      headers: { cookie: `coffer_session=${admin.cookie('coffer_session') ?? ''}` },
    });
    // Cut off mid-file: refused with the reason, the job stops as failed, and the cut row is not imported.
    expect(truncated.status).toBe(422);
    expect(truncated.text).toContain('The upload ended before the end of the file. Send it again.');
    expect(truncated.text).not.toContain(VISA);
    expect((await jobs())[0]?.state).toBe('failed');
    const noBoundary = await server.client.request('POST', `/portal/e/${env}/imports`, { auth: null, contentType: 'multipart/form-data', body: 'x' });
    expect(noBoundary.status).toBeGreaterThanOrEqual(400);
    expect(await held('UploadFormat1')).toBe(false);
    expect(await held('UploadTruncated1')).toBe(false);
    expect((await jobs()).length).toBe(before + 1);
  });

  it('refuses a file over the upload limit (4 MiB) before reading it, starting nothing', async () => {
    const before = (await jobs()).length;
    await admin.get(`/portal/e/${env}/imports`);
    const big = Buffer.alloc(4 * 1024 * 1024 + 1, 0x20);
    const refused = await admin.postFile(`/portal/e/${env}/imports`, {}, { field: 'file', name: 'big.jsonl', content: big });
    expect(refused.status).toBe(413);
    expect(refused.text).toContain('The request body is larger than 4 MiB.');
    expect((await jobs()).length).toBe(before);
  });

  it('refuses a form without its CSRF token and a viewer, importing nothing', async () => {
    const before = (await jobs()).length;
    const noCsrf = await admin.postFile(`/portal/e/${env}/imports`, { _csrf: null }, { field: 'file', name: 'cards.jsonl', content: line('UploadCsrf1', VISA) });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.text).toContain('The form has expired');
    await viewer.get(`/portal/e/${env}/imports`);
    const byViewer = await viewer.postFile(`/portal/e/${env}/imports`, {}, { field: 'file', name: 'cards.jsonl', content: line('UploadViewer1', VISA) });
    expect(byViewer.status).toBe(403);
    expect(byViewer.text).toContain('Your role (viewer) does not allow this.');
    // A stranger (no session): refused before the body is read.
    const stranger = await server.client.request('POST', `/portal/e/${env}/imports`, {
      auth: null,
      contentType: 'multipart/form-data; boundary=XYZ',
      body: `--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n${line('UploadStranger1', VISA)}\r\n--XYZ--\r\n`,
    });
    expect(stranger.status).toBe(403);
    expect(stranger.text).toContain('Your session has ended. Sign in again.');
    expect(await held('UploadCsrf1')).toBe(false);
    expect(await held('UploadViewer1')).toBe(false);
    expect((await jobs()).length).toBe(before);
  });
});
