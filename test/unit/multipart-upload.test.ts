import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readUpload } from '../../src/portal/multipart-upload.js';

/** The portal's upload reader (src/portal/multipart-upload.ts, busboy underneath): fields before the file, the file streamed. */

const BOUNDARY = '----WebKitFormBoundaryAbC123';
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

function body(fields: Record<string, string>, file: Buffer | null, after: Record<string, string> = {}): Buffer {
  const parts: Buffer[] = [];
  const field = (name: string, value: string) => parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  for (const [name, value] of Object.entries(fields)) field(name, value);
  if (file !== null) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="cards.jsonl"\r\nContent-Type: application/octet-stream\r\n\r\n`), file, Buffer.from('\r\n'));
  }
  for (const [name, value] of Object.entries(after)) field(name, value);
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

/** The body in chunks of `size` bytes, so boundaries fall across chunks. */
function chunked(bytes: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return Readable.from(chunks);
}

async function all(stream: Readable): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const chunk of stream) out.push(chunk as Buffer);
  return Buffer.concat(out);
}

describe('portal multipart upload', () => {
  it('reads the fields before the file and streams the file byte for byte, whatever the chunking', async () => {
    // Bytes that look like a boundary's start, CRLFs and binary (an OpenPGP file) inside the file.
    const file = Buffer.concat([Buffer.from([0xc1, 0x0d, 0x0a, 0x2d, 0x2d]), Buffer.from(`\r\n--${BOUNDARY.slice(0, 10)}`), Buffer.alloc(100_000, 7), Buffer.from('\r\n-')]);
    for (const size of [1, 7, 64, 65_536]) {
      const upload = await readUpload(chunked(body({ _csrf: 'tok', format: 'csv' }, file, { late: 'ignored' }), size), TYPE);
      expect(upload.fields).toEqual({ _csrf: 'tok', format: 'csv' });
      expect(upload.file?.field).toBe('file');
      expect((await all(upload.file?.stream as Readable)).equals(file)).toBe(true);
    }
  });

  it('keeps a field named __proto__ as a field', async () => {
    const fields = Object.fromEntries([['__proto__', 'x'], ['_csrf', 't']]) as Record<string, string>;
    const upload = await readUpload(chunked(body(fields, null), 9), TYPE);
    expect(Object.getPrototypeOf(upload.fields)).toBe(null);
    expect(Object.keys(upload.fields)).toEqual(['__proto__', '_csrf']);
    expect(upload.fields._csrf).toBe('t');
  });

  it('hands an empty file as an empty stream, and a form without a file as none', async () => {
    const empty = await readUpload(chunked(body({ _csrf: 't' }, Buffer.alloc(0)), 5), TYPE);
    expect((await all(empty.file?.stream as Readable)).length).toBe(0);
    const none = await readUpload(chunked(body({ _csrf: 't' }, null), 5), TYPE);
    expect(none).toEqual({ fields: { _csrf: 't' }, file: null });
  });

  it('fails the file stream when the body ends before the file does, never quoting it', async () => {
    const whole = body({ _csrf: 't' }, Buffer.from('4111111111111111 secret line'));
    const upload = await readUpload(chunked(whole.subarray(0, whole.length - 30), 8), TYPE);
    const error = await all(upload.file?.stream as Readable).then(
      () => null,
      (failure: unknown) => failure as Error,
    );
    expect(error?.message).toBe('The upload ended before the end of the file. Send it again.');
  });

  it('refuses a Content-Type without a boundary, a part without a name, too long a field and too many fields', async () => {
    await expect(readUpload(chunked(body({ _csrf: 't' }, null), 16), 'multipart/form-data')).rejects.toThrow('The upload could not be read.');
    const quoted = (await readUpload(chunked(body({ _csrf: 't' }, null), 16), `multipart/form-data; boundary="${BOUNDARY}"`)).fields;
    expect(quoted).toEqual({ _csrf: 't' });
    const nameless = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${BOUNDARY}--\r\n`);
    await expect(readUpload(chunked(nameless, 16), TYPE)).rejects.toThrow('The upload could not be read.');
    await expect(readUpload(chunked(body({ big: 'x'.repeat(70 * 1024) }, null), 4096), TYPE)).rejects.toThrow('The upload could not be read.');
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`f${index}`, 'v']));
    await expect(readUpload(chunked(body(many, null), 64), TYPE)).rejects.toThrow('The upload could not be read.');
  });
});
