import type { ServerOptions } from 'node:http';

/**
 * How long a client may take to send a request (docs/wire-compatibility.md, "Request body
 * limits"). Node's defaults (300 s for a request; none at all on a server Fastify creates with its
 * own default of 0) let a stranger hold a connection and a partly sent body for minutes: 400 such
 * connections held half a gigabyte. A slow request is answered 408 and its connection closed
 * (client-errors.ts).
 */

/** The whole request, headers and body, must arrive within this. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** The headers alone: a client that has not finished them by now is not going to. */
export const HEADERS_TIMEOUT_MS = 20_000;
/**
 * How often Node looks for requests past these times (its default, 30 s, would let a request
 * live up to twice the timeout).
 */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** The options every HTTP(S) server of the API is created with. */
export const SERVER_TIMEOUTS = {
  requestTimeout: REQUEST_TIMEOUT_MS,
  headersTimeout: HEADERS_TIMEOUT_MS,
  connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
} as const satisfies ServerOptions;
