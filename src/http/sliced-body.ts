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

/**
 * A slice stops after its step that ended past this long (ms). A request that comes in waits for
 * the slice under way (a request is answered within one turn of the loop): half a slice on average.
 */
export const SLICE_MS = 0.5;

/** What one step may write: values and characters (a long text counts a value a piece, see long-text.ts). */
const STEP_VALUES = 128;
const STEP_CHARS = 8 * 1024;

/**
 * At most this many steps a slice, whatever the clock says (a coarse or a stalled clock): a slice
 * writes at most 8,192 values and about 512 KiB.
 */
const SLICE_MAX_STEPS = 64;

/** A body up to this many bytes is sent whole, as one-call encoding sent it (with its Content-Length); larger is streamed. */
export const STREAM_AFTER_BYTES = 1024 * 1024;

/** A stream writes this far ahead of its reader (the socket, or the compressor): slices keep coming while the socket drains. */
const STREAM_AHEAD_BYTES = 1024 * 1024;

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
 * Writes `writer`'s body, a slice at a time, with a bulk turn of the event loop between two. A body
 * done in the first slice is returned at once; one done within `streamAfter` bytes resolves to its
 * bytes; a longer one resolves, once it passes `streamAfter`, to a stream that writes the rest as
 * it is read (so no more than about STREAM_AHEAD_BYTES of it is held at once). The writer is closed when
 * done, on a throw, or when the stream is destroyed (the client went away).
 */
export function writeInSlices(writer: BodyWriter, streamAfter: number): string | Buffer | Promise<string | Buffer | Readable> {
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
  return written.body();
}

/**
 * A body written so far. A body written in one step (nearly every answer) stays the text it is, as
 * it was sent before; past one step each step's text is encoded as it comes, its cost in its
 * slice: encoding a megabyte of text in one go (V8 joins the many pieces of each step's text then)
 * took tens of ms.
 */
class Written {
  private text: string | null = null;
  readonly chunks: Buffer[] = [];
  bytes = 0;

  readonly keep = (text: string): void => {
    if (this.text === null && this.chunks.length === 0) {
      this.text = text;
      return;
    }
    if (this.text !== null) {
      this.add(this.text);
      this.text = null;
    }
    this.add(text);
  };

  body(): string | Buffer {
    return this.text ?? (this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks));
  }

  /** The chunks so far, the first step's text among them. */
  allChunks(): Buffer[] {
    if (this.text !== null) {
      this.add(this.text);
      this.text = null;
    }
    return this.chunks;
  }

  private add(text: string): void {
    const chunk = Buffer.from(text, 'utf8');
    this.chunks.push(chunk);
    this.bytes += chunk.length;
  }
}

async function writeRest(writer: BodyWriter, written: Written, streamAfter: number): Promise<string | Buffer | Readable> {
  try {
    for (;;) {
      await nextBulkTurn();
      const done = writeSlice(writer, written.keep);
      if (done) {
        writer.close();
        return written.body();
      }
      if (written.bytes > streamAfter) return new SlicedStream(writer, written.allChunks());
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

  constructor(writer: BodyWriter, written: readonly Buffer[]) {
    super({ highWaterMark: STREAM_AHEAD_BYTES });
    this.writer = writer;
    for (const chunk of written) this.push(chunk);
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
