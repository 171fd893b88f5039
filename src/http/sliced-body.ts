import { Readable } from 'node:stream';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { BodyWriter } from './format/body-writer.js';

/*
 * Response bodies written a slice of the event loop at a time (docs/wire-compatibility.md, "Large
 * pages"). A page of 100 payment methods whose `data` is as large as input allows is hundreds of
 * MB of XML and seconds of encoding: written in one call, it held the event loop, and every other
 * tenant's request waited. Written here, no slice runs for more than about SLICE_MS, and between
 * two slices every other request gets its turn. The bytes are those of the one-call encoders.
 */

/** A slice stops after its step that ended past this long (ms). */
export const SLICE_MS = 1;

/** What one step may write: values and characters. Fresh per step (the writer lowers them). */
const STEP_VALUES = 256;
const STEP_CHARS = 32 * 1024;

/**
 * At most this many steps a slice, whatever the clock says (a coarse or a stalled clock): a slice
 * writes at most 4,096 values and 512 KiB.
 */
const SLICE_MAX_STEPS = 16;

/** Text up to this many characters is sent whole, as one-call encoding sent it (Content-Length, compressed in one go when small); larger is streamed. */
export const STREAM_AFTER_CHARS = 1024 * 1024;

/** Writes one slice; true when the body is done. */
function writeSlice(writer: BodyWriter): boolean {
  const deadline = performance.now() + SLICE_MS;
  for (let step = 0; step < SLICE_MAX_STEPS; step += 1) {
    if (writer.advance({ values: STEP_VALUES, chars: STEP_CHARS })) return true;
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
  let done: boolean;
  let text: string;
  try {
    done = writeSlice(writer);
    text = writer.take();
  } catch (error) {
    writer.close();
    throw error;
  }
  if (!done) return writeRest(writer, text, streamAfter);
  writer.close();
  return text;
}

async function writeRest(writer: BodyWriter, first: string, streamAfter: number): Promise<string | Readable> {
  const parts = [first];
  let length = first.length;
  try {
    for (;;) {
      await yieldToEventLoop();
      const done = writeSlice(writer);
      const part = writer.take();
      parts.push(part);
      length += part.length;
      if (done) {
        writer.close();
        return parts.join('');
      }
      if (length > streamAfter) return new SlicedStream(writer, parts.join(''));
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

  constructor(writer: BodyWriter, written: string) {
    super({ highWaterMark: 64 * 1024 });
    this.writer = writer;
    this.push(Buffer.from(written, 'utf8'));
  }

  override _read(): void {
    if (this.scheduled || this.writer === null) return;
    this.scheduled = true;
    // A slice of its own in the event loop: the requests waiting meanwhile go first.
    setImmediate(() => this.writeNext());
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
    let done: boolean;
    let text: string;
    try {
      done = writeSlice(writer);
      text = writer.take();
    } catch (error) {
      this.destroy(error as Error);
      return;
    }
    if (done) {
      writer.close();
      this.writer = null;
    }
    // Slice boundaries fall between values, never inside a string: no character is cut in two.
    if (text !== '') this.push(Buffer.from(text, 'utf8'));
    else if (!done) this._read(); // nothing final yet (see BodyWriter.take): on to the next slice
    if (done) this.push(null);
  }
}
