import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { listItems, type BodyWriter, type WriteBudget } from '../../src/http/format/body-writer.js';
import { encodeJson, jsonListWriter } from '../../src/http/format/json-writer.js';
import { LONG_TEXT } from '../../src/http/format/long-text.js';
import { WireList, WireTime, type Wire } from '../../src/http/format/wire.js';
import { encodeXml, xmlListWriter } from '../../src/http/format/xml-writer.js';
import { STREAM_AFTER_BYTES, writeInSlices } from '../../src/http/sliced-body.js';
import { nextBulkTurn } from '../../src/limits/bulk-turns.js';
import { turnCounter } from '../helpers/turn-counter.js';

/*
 * Bodies written a slice of the event loop at a time (src/http/sliced-body.ts): between two slices
 * the loop turns (other requests are read and answered), the bytes are the one-call encoder's, a
 * body past STREAM_AFTER_BYTES is streamed as it is read, and a failure or a client gone away
 * stops the writing and frees what it held. Turns are counted, never timed.
 */

/** A writer of `steps` steps of `piece` each (then done), counting its calls; `failAt` throws at that step. */
function fakeWriter(steps: number, piece: string, failAt = -1): BodyWriter & { advances: number; closed: boolean } {
  let pending = '';
  const writer = {
    advances: 0,
    closed: false,
    advance(budget: WriteBudget): boolean {
      if (writer.advances === failAt) throw new RangeError('broken stored value');
      writer.advances += 1;
      budget.values = 0;
      pending += piece;
      return writer.advances >= steps;
    },
    take(): string {
      const text = pending;
      pending = '';
      return text;
    },
    close(): void {
      writer.closed = true;
    },
  };
  return writer;
}

async function bytesOf(body: string | Buffer | Readable): Promise<Buffer> {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (Buffer.isBuffer(body)) return body;
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** 100 stored rows whose `data` is large (long texts with surrogate pairs where pieces end, many values). */
function largeRows(): Array<{ token: string; data: string }> {
  const text = `${'&'.repeat(LONG_TEXT - 1)}😀${'é<'.repeat(LONG_TEXT)}`;
  const data = JSON.stringify({ text, values: Array.from({ length: 1000 }, (_, index) => [index, 'v', null]) });
  return Array.from({ length: 100 }, (_, index) => ({ token: `token${index}`, data }));
}

const view = (row: { token: string; data: string }): Wire => ({ token: row.token, created_at: new WireTime('2026-11-24T10:11:12Z'), data: JSON.parse(row.data) as Wire });

describe('bodies written a slice at a time', () => {
  it('a body done in one slice is returned at once, as its text', () => {
    const writer = fakeWriter(1, '{"a":1}');
    expect(writeInSlices(writer, STREAM_AFTER_BYTES)).toBe('{"a":1}');
    expect(writer.closed).toBe(true);
  });

  it('a longer body lets the event loop turn between its slices, and resolves to its bytes', async () => {
    // A slice is at most 64 steps, whatever the clock: 6,400 steps are at least 100 slices.
    const writer = fakeWriter(6400, 'ab');
    const counter = turnCounter();
    const written = writeInSlices(writer, STREAM_AFTER_BYTES);
    expect(written).toBeInstanceOf(Promise);
    const body = await written;
    counter.stop();
    expect(counter.turns()).toBeGreaterThanOrEqual(99);
    expect((await bytesOf(body)).toString()).toBe('ab'.repeat(6400));
    expect(writer.closed).toBe(true);
  });

  it('a large page (XML and JSON): other work runs between its slices, its bytes are the one-call encoding, streamed past 1 MiB', async () => {
    const rows = largeRows();
    const lists = [
      { writer: xmlListWriter('payment_methods', 'payment_method', listItems(rows, view)), expected: encodeXml('payment_methods', new WireList('payment_method', rows.map(view))) },
      { writer: jsonListWriter('payment_methods', listItems(rows, view)), expected: encodeJson('payment_methods', new WireList('payment_method', rows.map(view))) },
    ];
    for (const { writer, expected } of lists) {
      const counter = turnCounter();
      const body = await writeInSlices(writer, STREAM_AFTER_BYTES);
      expect(body).toBeInstanceOf(Readable);
      const bytes = await bytesOf(body);
      counter.stop();
      // 400,000 values: at least 48 slices by the per-slice cap of values alone, whatever the clock.
      expect(counter.turns()).toBeGreaterThanOrEqual(30);
      expect(bytes.length).toBe(Buffer.byteLength(expected));
      expect(bytes.equals(Buffer.from(expected, 'utf8'))).toBe(true);
    }
  });

  it('two large bodies at once take one slice per turn of the event loop between them (bulk turns), each its own bytes', async () => {
    const one = fakeWriter(640, 'x');
    const two = fakeWriter(640, 'y');
    const order: string[] = [];
    const watch = (writer: ReturnType<typeof fakeWriter>, name: string): BodyWriter => ({
      advance: (budget) => (order.push(name), writer.advance(budget)),
      take: () => writer.take(),
      close: () => writer.close(),
    });
    const counter = turnCounter();
    const [first, second] = await Promise.all([writeInSlices(watch(one, '1'), STREAM_AFTER_BYTES), writeInSlices(watch(two, '2'), STREAM_AFTER_BYTES)]);
    counter.stop();
    expect((await bytesOf(first as string)).toString()).toBe('x'.repeat(640));
    expect((await bytesOf(second as string)).toString()).toBe('y'.repeat(640));
    // Each run of one body's steps is a slice; the bodies take turns, and every slice after the
    // first two (written at once, as the requests came) has a turn of the loop of its own.
    const slices = order.join('').match(/1+|2+/g) ?? [];
    expect(slices.length).toBeGreaterThanOrEqual(20);
    expect(counter.turns()).toBeGreaterThanOrEqual(slices.length - 2);
  });

  it('the next bulk turn comes after what was queued meanwhile: a request waits for one slice, not one per large body', async () => {
    const order: string[] = [];
    const second = nextBulkTurn().then(() => order.push('first job'));
    const third = nextBulkTurn().then(() => order.push('second job'));
    setImmediate(() => order.push('request'));
    await Promise.all([second, third]);
    expect(order).toEqual(['first job', 'request', 'second job']);
  });

  it('a throw in the first slice is thrown; in a later slice, the promise rejects; the writer is closed either way', async () => {
    const first = fakeWriter(10_000, 'x', 0);
    expect(() => writeInSlices(first, STREAM_AFTER_BYTES)).toThrow(RangeError);
    expect(first.closed).toBe(true);
    const later = fakeWriter(10_000, 'x', 200);
    await expect(writeInSlices(later, STREAM_AFTER_BYTES)).rejects.toThrow(RangeError);
    expect(later.closed).toBe(true);
  });

  it('a throw once streaming has begun destroys the stream (the answer is cut, never complete), and closes the writer', async () => {
    const piece = 'z'.repeat(64 * 1024);
    const writer = fakeWriter(10_000, piece, 64 * 40);
    const body = (await writeInSlices(writer, STREAM_AFTER_BYTES)) as Readable;
    expect(body).toBeInstanceOf(Readable);
    await expect(bytesOf(body)).rejects.toThrow(RangeError);
    expect(writer.closed).toBe(true);
  });

  it('a client gone away (the stream destroyed) stops the writing and closes the writer', async () => {
    const writer = fakeWriter(1_000_000, 'w'.repeat(1024));
    const body = (await writeInSlices(writer, STREAM_AFTER_BYTES)) as Readable;
    const advancesAtStart = writer.advances;
    body.destroy();
    for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(writer.closed).toBe(true);
    expect(writer.advances).toBe(advancesAtStart);
  });

  it('a stream that is not read is not written ahead: a slow client holds the writing back', async () => {
    const writer = fakeWriter(1_000_000, 'w'.repeat(1024));
    const body = (await writeInSlices(writer, STREAM_AFTER_BYTES)) as Readable;
    for (let turn = 0; turn < 50; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    const idle = writer.advances;
    for (let turn = 0; turn < 50; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(writer.advances).toBe(idle);
    // About the 1 MiB written before streaming began and a slice more: nowhere near the whole body.
    expect(idle * 1024).toBeLessThan(4 * STREAM_AFTER_BYTES);
    body.destroy();
  });
});
