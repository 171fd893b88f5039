import { Readable } from 'node:stream';
import { nextBulkTurn } from '../limits/bulk-turns.js';
import type { BodyWriter } from './format/body-writer.js';

/*
 * Response bodies written a slice of the event loop at a time (docs/wire-compatibility.md, "Large
 * pages"). A page of 100 payment methods whose `data` is as large as input allows is hundreds of
 * MB of XML and seconds of encoding: written in one call, it held the event loop, and every other
 * tenant's request waited. Written here, no slice runs for more than about SLICE_MS, and slices
 * take bulk turns (src/limits/bulk-turns.ts): one slice of all the bodies being written per turn of
 * the event loop, the requests that came in meanwhile first. The bytes are those of the one-call
 * encoders.
 */

/** A slice stops after its step that ended past this long (ms). */
export const SLICE_MS = 1;

/** What one step may write: values and characters (a long text counts a value a piece, see long-text.ts). */
const STEP_VALUES = 128;
const STEP_CHARS = 16 * 1024;

/**
 * At most this many steps a slice, whatever the clock says (a coarse or a stalled clock): a slice
 * writes at most 2,048 values and about 256 KiB.
 */
const SLICE_MAX_STEPS = 16;

/** Text up to this many characters is sent whole, as one-call encoding sent it (Content-Length, compressed in one go when small); larger is streamed. */
export const STREAM_AFTER_CHARS = 1024 * 1024;

/**
 * Writes one slice, a step at a time, handing each step's text to `out` (which may encode it: its
 * time counts in the slice's); true when the body is done.
 */
function writeSlice(writer: BodyWriter, out: (text: string) => void): boolean {
  const deadline = performance.now() + SLICE_MS;
  for (let step = 0; step < SLICE_MAX_STEPS; step += 1) {
    const done = writer.advance({ values: STEP_VALUES, chars: STEP_CHARS });
    const text = writer.take();
    if (text !== '') out(text);
    if (done) return true;
    if (performance.now() >= deadline) return false;
  }
  return false;
}

/**
 * Writes `writer`'s body, a slice at a time, yielding to the event loop between slices. A body
 * done in the first slice is returned at once, as text; one done within `streamAfter` characters
 * resolves to its text; a longer one resolves, once it passes `streamAfter`, to a stream that
 * writes the rest as it is read (so no more than a slice or two of it is held at once). The writer
 * is closed when done, on a throw, or when the stream is destroyed (the client went away).
 */
export function writeInSlices(writer: BodyWriter, streamAfter: number): string | Promise<string | Readable> {
  const written = new Written();
  let done: boolean;
  try {
    done = writeSlice(writer, written.keep);
  } catch (error) {
    writer.close();
    throw error;
  }
  if (!done) return writeRest(writer, written, streamAfter);
  writer.close();
  return written.text();
}

/** The text of a body written so far, in its steps' pieces. */
class Written {
  readonly parts: string[] = [];
  length = 0;
  readonly keep = (text: string): void => {
    this.parts.push(text);
    this.length += text.length;
  };

  text(): string {
    return this.parts.length === 1 ? (this.parts[0] as string) : this.parts.join('');
  }
}

async function writeRest(writer: BodyWriter, written: Written, streamAfter: number): Promise<string | Readable> {
  try {
    for (;;) {
      await nextBulkTurn();
      const done = writeSlice(writer, written.keep);
      if (done) {
        writer.close();
        return written.text();
      }
      if (written.length > streamAfter) return new SlicedStream(writer, written.parts);
    }
  } catch (error) {
    writer.close();
    throw error;
  }
}

/**
 * The rest of a body, written a slice per read: the consumer (the socket, or the compressor before
 * it) pulls, so a slow client holds back the writing instead of a body piling up in memory. A
 * failure half way destroys the stream, and with it the connection: a chunked answer without its
 * last chunk, which every HTTP client reports as an error (never a page that looks complete).
 */
class SlicedStream extends Readable {
  private writer: BodyWriter | null;
  private scheduled = false;

  constructor(writer: BodyWriter, written: readonly string[]) {
    super({ highWaterMark: 64 * 1024 });
    this.writer = writer;
    for (const text of written) this.pushText(text);
  }

  override _read(): void {
    if (this.scheduled || this.writer === null) return;
    this.scheduled = true;
    void nextBulkTurn().then(() => this.writeNext());
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.writer?.close();
    this.writer = null;
    callback(error);
  }

  private writeNext(): void {
    this.scheduled = false;
    const writer = this.writer;
    if (writer === null) return;
    let pushed = false;
    let done: boolean;
    try {
      done = writeSlice(writer, (text) => {
        this.pushText(text);
        pushed = true;
      });
    } catch (error) {
      this.destroy(error as Error);
      return;
    }
    if (done) {
      writer.close();
      this.writer = null;
      this.push(null);
    } else if (!pushed) this._read(); // nothing final yet (see BodyWriter.take): on to the next slice
  }

  /** Step boundaries fall between values or long-text pieces, never inside a character: each encodes alone. */
  private pushText(text: string): void {
    this.push(Buffer.from(text, 'utf8'));
  }
}
