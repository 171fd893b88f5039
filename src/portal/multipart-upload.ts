import { Readable } from 'node:stream';
import { AppError } from '../domain/errors.js';

/*
 * A browser's file upload (`multipart/form-data`, RFC 7578) read as it arrives: the short text
 * fields before the file are collected (the CSRF token among them, so the portal's guard checks
 * it before a byte of the file is used), and the file part is handed on as a stream that ends at
 * its boundary. The file is never held whole, never written, and never quoted in an error: its
 * bytes only ever flow to the stream's reader. Browsers send a form's fields in document order,
 * so a form that wants its fields read puts them before its file input; fields after the file are
 * read past and ignored.
 */

/** A text field's value, at most (a sender's armored OpenPGP key fits with room to spare). */
const MAX_FIELD_BYTES = 64 * 1024;
/** A part's headers, at most. */
const MAX_HEADER_BYTES = 8 * 1024;
/** Text fields before the file, at most. */
const MAX_FIELDS = 20;

/** What the upload's content-type parser hands the route. */
export interface Upload {
  /** The text fields before the file (`_csrf` among them). */
  fields: Record<string, string>;
  /** The file part's name and contents; null when the form carried no file part. */
  file: { field: string; stream: Readable } | null;
}

function unreadable(message = 'The upload could not be read.'): AppError {
  return new AppError({ key: 'errors.invalid', attribute: 'file', message });
}

/** The boundary of a `multipart/form-data` Content-Type (RFC 2046 §5.1.1: 1 to 70 characters). */
export function boundaryOf(contentType: string | undefined): string {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType ?? '');
  const boundary = match?.[1] ?? match?.[2];
  if (boundary === undefined) throw unreadable();
  return boundary;
}

/** A body read from its start: bytes come off a buffer refilled from the body's chunks. */
class BodyCursor {
  private buffer: Buffer = Buffer.alloc(0);
  private ended = false;
  private readonly chunks: AsyncIterator<Buffer | string>;

  constructor(body: Readable) {
    this.chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  }

  /** Appends the next chunk; false at the body's end. */
  private async more(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.chunks.next();
    if (next.done === true) {
      this.ended = true;
      return false;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    return true;
  }

  /** The bytes before `delimiter` (consumed with it), refused past `max` bytes or at the body's end. */
  async until(delimiter: Buffer, max: number): Promise<Buffer> {
    for (;;) {
      const at = this.buffer.indexOf(delimiter);
      if (at >= 0) {
        const before = this.buffer.subarray(0, at);
        this.buffer = this.buffer.subarray(at + delimiter.length);
        return before;
      }
      if (this.buffer.length > max + delimiter.length) throw unreadable();
      if (!(await this.more())) throw unreadable();
    }
  }

  /** The next `count` bytes (fewer at the body's end), consumed. */
  async take(count: number): Promise<Buffer> {
    while (this.buffer.length < count && (await this.more()));
    const taken = this.buffer.subarray(0, count);
    this.buffer = this.buffer.subarray(taken.length);
    return taken;
  }

  /**
   * The bytes before `delimiter`, chunk by chunk as they arrive (never more than a chunk and a
   * delimiter held), the delimiter consumed after them.
   */
  async *streamUntil(delimiter: Buffer): AsyncGenerator<Buffer> {
    for (;;) {
      const at = this.buffer.indexOf(delimiter);
      if (at >= 0) {
        if (at > 0) yield this.buffer.subarray(0, at);
        this.buffer = this.buffer.subarray(at + delimiter.length);
        return;
      }
      // What could be the start of the delimiter stays until the next chunk tells.
      const safe = this.buffer.length - (delimiter.length - 1);
      if (safe > 0) {
        const out = this.buffer.subarray(0, safe);
        this.buffer = this.buffer.subarray(safe);
        yield out;
      }
      if (!(await this.more())) throw unreadable('The upload ended before the end of the file. Send it again.');
    }
  }

  /** Reads the rest of the body and drops it. */
  async drain(): Promise<void> {
    this.buffer = Buffer.alloc(0);
    while (await this.more()) this.buffer = Buffer.alloc(0);
  }
}

/** `name` and `filename` of a part's Content-Disposition (RFC 7578 §4.2). */
function dispositionOf(headers: string): { name: string; filename: string | null } {
  const line = headers.split('\r\n').find((text) => /^content-disposition:/i.test(text));
  if (line === undefined || !/:\s*form-data\s*;/i.test(line)) throw unreadable();
  const name = /;\s*name="([^"]*)"/i.exec(line)?.[1];
  if (name === undefined) throw unreadable();
  const filename = /;\s*filename="([^"]*)"/i.exec(line)?.[1] ?? null;
  return { name, filename };
}

/**
 * Reads `body` up to its file part: the fields before it, and the file as a stream. The stream
 * reads the rest of the body when it ends (the closing boundary, any later fields), so the
 * connection can carry the next request; it fails when the body ends before the file does.
 */
export async function readUpload(body: Readable, contentType: string | undefined): Promise<Upload> {
  const boundary = boundaryOf(contentType);
  const cursor = new BodyCursor(body);
  const dashBoundary = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The preamble, which browsers leave empty, up to the first boundary.
  await cursor.until(dashBoundary, MAX_FIELD_BYTES);
  // No prototype: a field named `__proto__` is a field like any other.
  const fields = Object.create(null) as Record<string, string>;
  for (let count = 0; ; count += 1) {
    // After a boundary: "--" ends the body, CRLF starts a part.
    const after = (await cursor.take(2)).toString('latin1');
    if (after === '--') {
      await cursor.drain();
      return { fields, file: null };
    }
    if (after !== '\r\n' || count >= MAX_FIELDS) throw unreadable();
    const headers = (await cursor.until(Buffer.from('\r\n\r\n'), MAX_HEADER_BYTES)).toString('utf8');
    const { name, filename } = dispositionOf(headers);
    if (filename !== null) {
      const stream = Readable.from(
        (async function* file() {
          yield* cursor.streamUntil(delimiter);
          await cursor.drain();
        })(),
        // No read-ahead: the body is read as the file's reader asks, so a body cut short fails
        // that reader's read (after every byte before the cut), not a stream nobody reads yet.
        { objectMode: false, highWaterMark: 0 },
      );
      // A reader that stopped early (a refused file) leaves the stream unread; a failure then must not crash the process.
      stream.on('error', () => {});
      return { fields, file: { field: name, stream } };
    }
    fields[name] = (await cursor.until(delimiter, MAX_FIELD_BYTES)).toString('utf8');
  }
}
