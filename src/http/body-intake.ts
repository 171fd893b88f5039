import { Transform, type Readable, type TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import { bodyLimitOfRequest, payloadTooLarge } from './body-limits.js';
import { ClientAbortedError } from './client-abort.js';
import { routeNotFound } from './errors.js';

/**
 * Every request body passes through here before it is read (a preParsing hook, so after
 * authentication, the public tokenization's environment and its rate limit):
 *
 * - the route's limit (body-limits.ts) applies to what the client declares: a Content-Length
 *   over it is refused at once, 413, and the connection closed, nothing read;
 * - bodies being received or held count against one budget for the whole process
 *   (`BodyBytesInFlight`): a body that would pass it is refused, 503 with Retry-After, so slow
 *   or withheld bodies cannot grow the heap without bound (docs/wire-compatibility.md, "Request body limits");
 * - a chunked body is counted as it arrives, against both;
 * - a client that goes away mid-body is a ClientAbortedError, never a store outage.
 *
 * The request timeout (server-timeouts.ts) bounds how long a body may take to arrive.
 */

/** Bodies in flight across the process, at most (docs/wire-compatibility.md, "Request body limits"). */
export const MAX_BODY_BYTES_IN_FLIGHT = 64 * 1024 * 1024;

/** Seconds a client refused for lack of room should wait. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** The bytes of request bodies reserved now, against a fixed capacity. */
export class BodyBytesInFlight {
  private used = 0;

  constructor(readonly capacity: number = MAX_BODY_BYTES_IN_FLIGHT) {}

  /** Reserves `bytes` if they fit; false (nothing reserved) otherwise. */
  tryReserve(bytes: number): boolean {
    if (this.used + bytes > this.capacity) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used -= bytes;
  }

  /** Bytes reserved now (for tests and the drill). */
  get inUse(): number {
    return this.used;
  }
}

function noRoom(): AppError {
  return new AppError(
    { key: 'errors.service_unavailable', message: 'The server is receiving too many request bodies at once. Try again shortly.' },
    { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
  );
}

/** The Content-Length the client declared, or null (chunked, or none). */
function declaredLength(request: FastifyRequest): number | null {
  const header = request.headers['content-length'];
  if (header === undefined || !/^\d+$/.test(header)) return null;
  return Number(header);
}

/** Whether Fastify will read a body for this request (the same test it uses). */
function carriesBody(request: FastifyRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return false;
  return request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');
}

/**
 * Passes a body through, counting it: past `limit` it fails with 413, past the process budget
 * with 503, and a client gone mid-body fails it with ClientAbortedError.
 */
class BodyMeter extends Transform {
  private received = 0;
  private reserved = 0;
  private released = false;

  constructor(
    private readonly limit: number,
    private readonly budget: BodyBytesInFlight,
    reservedUpFront: number,
    /** False for a streamed body: its bytes pass through and are not held, so nothing is reserved. */
    private readonly holds = true,
  ) {
    super();
    this.reserved = reservedUpFront;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.limit) return callback(payloadTooLarge(this.limit));
    const more = this.received - this.reserved;
    if (more > 0 && this.holds) {
      if (!this.budget.tryReserve(more)) return callback(noRoom());
      this.reserved += more;
    }
    callback(null, chunk);
  }

  /** Gives the reservation back, once (when the response is over, however it ended). */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.release(this.reserved);
  }
}

/** Feeds `source` into `meter`, turning the client's disappearance into ClientAbortedError. */
function feed(source: Readable, meter: BodyMeter): void {
  const aborted = () => {
    if (!source.readableEnded) meter.destroy(new ClientAbortedError());
  };
  source.once('aborted', aborted);
  source.once('error', aborted);
  source.once('close', aborted);
  source.pipe(meter);
  // A refusal mid-body stops the reading; the answer goes out with Connection: close.
  meter.once('error', () => source.unpipe(meter));
}

function refuseBeforeReading(reply: FastifyReply, error: AppError): AppError {
  // The body is left unread: the connection cannot carry another request after it.
  reply.header('Connection', 'close');
  return error;
}

/**
 * How much of a body left unread Node may drain to keep the connection for the next request
 * (Go's net/http drains 256 KiB likewise). A larger or unbounded rest is not worth reading.
 */
export const MAX_DRAINED_BYTES = 256 * 1024;

/**
 * Whether the answer leaves a body behind that is not worth draining: a refusal before the body
 * (401, 404, 429, 413), a public GET sent with a body. Then the connection closes after the
 * answer instead of reading on: a stranger looping 1 MiB bodies gets a new connection to set up
 * for each, not Coffer reading megabytes for nothing.
 */
function leavesLargeBodyUnread(request: FastifyRequest): boolean {
  if (request.raw.complete) return false;
  const declared = declaredLength(request);
  return declared === null ? request.headers['transfer-encoding'] !== undefined : declared > MAX_DRAINED_BYTES;
}

/**
 * Closes the connection as soon as the answer has been handed to the kernel. Left to itself, Node
 * half-closes first and keeps reading (and copying into memory) whatever of the body is in flight
 * until the half-close completes: one more 64 KiB read per refused request, for bytes nobody wants
 * (docs/reliability.md, "Availability"). The answer is not cut short: `finish` comes after its last
 * byte was written.
 */
function closeOnceAnswered(request: FastifyRequest, reply: FastifyReply): void {
  reply.raw.once('finish', () => request.raw.socket?.destroy());
}

/** Registers the hooks that every body goes through. */
export function registerBodyIntake(app: FastifyInstance, budget: BodyBytesInFlight): void {
  // Callback hooks, not async ones: on most requests they have nothing to wait for, and an async
  // hook costs every request a promise and a microtask (docs/benchmarks.md).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (leavesLargeBodyUnread(request)) {
      reply.header('Connection', 'close');
      closeOnceAnswered(request, reply);
    }
    done(null, payload);
  });
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (!carriesBody(request)) {
      done(null, payload);
      return;
    }
    // No route: the answer is 404 whatever the body holds, so it is not read.
    if (request.is404) return done(routeNotFound());
    const limit = bodyLimitOfRequest(request);
    const declared = declaredLength(request);
    if (declared !== null && declared > limit) return done(refuseBeforeReading(reply, payloadTooLarge(limit)));
    const holds = request.routeOptions.config.streamedBody !== true;
    const upFront = holds ? (declared ?? 0) : 0;
    if (!budget.tryReserve(upFront)) return done(refuseBeforeReading(reply, noRoom()));
    const meter = new BodyMeter(limit, budget, upFront, holds);
    reply.raw.once('close', () => meter.release());
    feed(payload, meter);
    done(null, meter);
  });
}
