/**
 * The client closed its connection before its request body arrived in full. Nothing is wrong on
 * Coffer's side and nobody is left to answer: it is never a 503 or a "store unavailable"
 * warning (store/unavailable.ts matches ECONNRESET, the code Node gives an aborted request, so
 * the body reader turns that error into this one before anything else sees it).
 */
export class ClientAbortedError extends Error {
  /** A client-side refusal for Fastify and the portal's error page; errors.ts answers it itself. */
  readonly statusCode = 400;
  readonly code = 'COFFER_CLIENT_ABORTED';

  constructor() {
    super('The client closed the connection before the request body arrived.');
    this.name = 'ClientAbortedError';
  }
}
