import busboy from 'busboy';
import { PassThrough, Readable } from 'node:stream';
import { AppError } from '../domain/errors.js';

/*
 * A browser's file upload (`multipart/form-data`, RFC 7578) read as it arrives, by busboy (the
 * parser under @fastify/multipart; docs/decisions.md, "Dependencies"): the short text fields before
 * the file are collected (the CSRF token among them, so the portal's guard checks it before a byte
 * of the file is used), and the file part is handed on as a stream that ends at its boundary.
 * busboy reads the body only as fast as the file's reader takes it, so the file is never held
 * whole, never written, and never quoted in an error. Browsers send a form's fields in document
 * order, so a form that wants its fields read puts them before its file input; fields after the
 * file are read past and ignored.
 */

/** A text field's value, at most (a sender's armored OpenPGP key fits with room to spare). */
const MAX_FIELD_BYTES = 64 * 1024;
/** Text fields before the file, at most. */
const MAX_FIELDS = 20;
/** A part's header lines, at most. */
const MAX_HEADER_PAIRS = 20;

const CUT_SHORT = 'The upload ended before the end of the file. Send it again.';

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

/**
 * The file part as a stream read only as its reader asks: the part's bytes, then its end, or, when
 * the body ended early, the bytes that arrived and then the cut-short refusal at the read after
 * them. busboy drops what a failed part still buffers, so its bytes are moved into a buffer of our
 * own as they come (bounded: the pipe holds the part back while it is full).
 */
function fileStream(part: Readable): Readable {
  const received = new PassThrough();
  let cutShort = false;
  part.on('error', () => {
    cutShort = true;
    received.end();
  });
  part.pipe(received);
  const stream = Readable.from(
    (async function* bytes() {
      for await (const chunk of received) yield chunk as Buffer;
      if (cutShort) throw unreadable(CUT_SHORT);
    })(),
    { objectMode: false, highWaterMark: 0 },
  );
  // A reader that stopped early (a refused file) leaves the stream unread; a failure then must not crash the process.
  stream.on('error', () => {});
  return stream;
}

/**
 * Reads `body` up to its file part: the fields before it, and the file as a stream. The parser
 * reads the rest of the body once the file is read (the closing boundary, any later fields), so
 * the connection can carry the next request; the stream fails when the body ends before the file
 * does, with a message that says so and nothing of the file.
 */
export function readUpload(body: Readable, contentType: string | undefined): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType ?? '' },
        limits: { fieldSize: MAX_FIELD_BYTES, fields: MAX_FIELDS, files: 1, headerPairs: MAX_HEADER_PAIRS },
      });
    } catch {
      reject(unreadable());
      return;
    }
    // No prototype: a field named `__proto__` is a field like any other.
    const fields = Object.create(null) as Record<string, string>;
    let settled = false;
    let fileSeen = false;
    const fail = (error: AppError) => {
      if (!settled) {
        settled = true;
        reject(error);
      }
      // Fails the file part too (busboy destroys it), if it was handed on: its reader learns at its next read.
      parser.destroy(error);
      body.unpipe(parser);
      body.resume();
    };
    parser.on('field', (name, value, info) => {
      if (fileSeen) return;
      if (typeof name !== 'string' || name === '' || info.valueTruncated || info.nameTruncated) return fail(unreadable());
      fields[name] = value;
    });
    parser.on('fieldsLimit', () => fail(unreadable()));
    parser.on('file', (name, part) => {
      if (settled || fileSeen) {
        part.resume();
        return;
      }
      fileSeen = true;
      settled = true;
      resolve({ fields, file: { field: name, stream: fileStream(part) } });
    });
    parser.on('error', () => fail(unreadable(fileSeen ? CUT_SHORT : undefined)));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      resolve({ fields, file: null });
    });
    body.on('error', () => fail(unreadable(fileSeen ? CUT_SHORT : undefined)));
    body.pipe(parser);
  });
}
