import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spoolBody } from '../../src/http/routes/import-spool.js';

/*
 * An API import body is received whole into a private temporary file before it is imported
 * (docs/portability.md, "API"): a clear one sealed under a key kept only in memory, never in clear
 * on disk; read back as often as asked; removed afterwards; a broken body or a changed file is an
 * error, never a silently different file.
 */

const VISA = '4111111111111111';
const FILE = Array.from({ length: 2_000 }, (_, index) => JSON.stringify({ token: `SpoolToken${index}`, credit_card: { number: VISA, month: 7, year: 2040 } })).join('\n');

// A temporary directory of this file's own: other suites spool imports at the same time.
const ownTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-test-'));
const tmpBefore = process.env.TMPDIR;
beforeAll(() => {
  process.env.TMPDIR = ownTmp;
});
afterAll(() => {
  if (tmpBefore === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmpBefore;
  fs.rmSync(ownTmp, { recursive: true, force: true });
});

/** The spool directories that exist now (coffer-import-* under the temporary directory). */
function spoolDirs(): Set<string> {
  return new Set(fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('coffer-import-')).map((name) => path.join(os.tmpdir(), name)));
}

function spooledFiles(before: Set<string>): string[] {
  return [...spoolDirs()].filter((dir) => !before.has(dir)).flatMap((dir) => fs.readdirSync(dir).map((name) => path.join(dir, name)));
}

describe('spoolBody', () => {
  it('keeps a clear body sealed on disk (0600), gives it back whole as often as asked, and removes it', async () => {
    const before = spoolDirs();
    const spooled = await spoolBody(Readable.from([Buffer.from(FILE.slice(0, 5_000)), Buffer.from(FILE.slice(5_000))]), true);
    const [file] = spooledFiles(before);
    expect(file).toBeDefined();
    const onDisk = fs.readFileSync(file as string);
    expect(onDisk.length).toBe(Buffer.byteLength(FILE));
    for (const encoding of ['latin1', 'utf16le', 'base64', 'hex'] as const) {
      expect(onDisk.toString(encoding)).not.toContain(encoding === 'hex' ? Buffer.from(VISA).toString('hex') : VISA);
    }
    expect(onDisk.toString('latin1')).not.toContain('SpoolToken');
    expect(fs.statSync(file as string).mode & 0o777).toBe(0o600);
    expect(await text(spooled.open())).toBe(FILE);
    expect(await text(spooled.open())).toBe(FILE);
    await spooled.remove();
    expect(fs.existsSync(file as string)).toBe(false);
    expect(spooledFiles(before)).toEqual([]);
  });

  it('writes an OpenPGP body as the ciphertext it already is', async () => {
    const before = spoolDirs();
    const ciphertext = Buffer.from([0xc1, 0x5e, 0x03, 0x01, 0x02, 0x03]);
    const spooled = await spoolBody(Readable.from([ciphertext]), false);
    const [file] = spooledFiles(before);
    expect(fs.readFileSync(file as string)).toEqual(ciphertext);
    expect(Buffer.concat(await spooled.open().toArray())).toEqual(ciphertext);
    await spooled.remove();
    expect(spooledFiles(before)).toEqual([]);
  });

  it('refuses a spooled file changed on disk instead of handing back other bytes', async () => {
    const before = spoolDirs();
    const spooled = await spoolBody(Readable.from([Buffer.from(FILE)]), true);
    const [file] = spooledFiles(before);
    const bytes = fs.readFileSync(file as string);
    bytes[10] = (bytes[10] as number) ^ 0xff;
    fs.writeFileSync(file as string, bytes);
    await expect(text(spooled.open())).rejects.toThrow(/authenticate/);
    await spooled.remove();
  });

  it('leaves nothing behind when the body breaks off', async () => {
    const before = spoolDirs();
    const broken = new Readable({
      read() {
        this.push(Buffer.from(FILE.slice(0, 1_000)));
        this.destroy(new Error('the client went away'));
      },
    });
    await expect(spoolBody(broken, true)).rejects.toThrow('the client went away');
    expect(spooledFiles(before)).toEqual([]);
  });
});
