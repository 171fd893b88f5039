import type { FastifyReply, FastifyRequest } from 'fastify';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ClientAbortedError } from '../../src/http/client-abort.js';
import { errorHandler } from '../../src/http/errors.js';
import { createLogger } from '../../src/logger.js';

/** What errorHandler answered and logged for one error. */
function handle(error: Error): { status: number; headers: Record<string, string>; lines: Array<{ level: number; msg: string }> } {
  const lines: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  let status = 0;
  const headers: Record<string, string> = {};
  const reply = {
    headers: (values: Record<string, string>) => Object.assign(headers, values),
    code: (code: number) => {
      status = code;
      return reply;
    },
    type: () => reply,
    send: () => reply,
  };
  const request = { id: 'req-1', raw: { headers: {} } };
  errorHandler(createLogger('info', sink))(error, request as unknown as FastifyRequest, reply as unknown as FastifyReply);
  return { status, headers, lines };
}

describe('an upload the client aborted', () => {
  it('is answered as a client error, logged at info, never 503 and never "store unavailable"', async () => {
    const outcome = handle(new ClientAbortedError());
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcome.status).toBe(422);
    expect(outcome.headers['Retry-After']).toBeUndefined();
    expect(outcome.lines.map(({ level, msg }) => ({ level, msg }))).toEqual([{ level: 30, msg: 'client closed the connection before its request body arrived' }]);
  });

  it("is not the store's ECONNRESET, which still reads as an outage", async () => {
    const outcome = handle(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcome.status).toBe(503);
    expect(outcome.lines.map(({ msg }) => msg)).toEqual(['store unavailable']);
  });
});
