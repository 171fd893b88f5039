import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorEntry } from '../domain/errors.js';
import type { Format } from './format/wire.js';
import { renderErrors } from './reply.js';

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a malformed request line, headers
 * over the size limit, a request that never finished arriving). Fastify's default answers them
 * with its own JSON body; here they get the contract's envelope like every other error (API.md
 * §3), in the format the request line names (`.xml` suffix) when the bytes the parser stopped in
 * still hold it, JSON otherwise (headers too large span several packets: the request line is
 * gone by then). The request id is not known yet; nothing of the request is echoed.
 */

const ANSWERS: Record<string, { status: number; entry: ErrorEntry }> = {
  HPE_HEADER_OVERFLOW: { status: 431, entry: { key: 'errors.request_header_fields_too_large', message: 'The request headers are too large.' } },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, entry: { key: 'errors.request_timeout', message: 'The request did not arrive in time.' } },
};
const MALFORMED = { status: 400, entry: { key: 'errors.malformed_request', message: 'The request could not be parsed as HTTP.' } satisfies ErrorEntry };

/** `.xml` at the end of the request target's path, if the first line got that far. */
function formatOfRawRequest(raw: unknown): Format {
  if (!Buffer.isBuffer(raw)) return 'json';
  const requestLine = raw.subarray(0, 8192).toString('latin1').split('\r\n', 1)[0] ?? '';
  const target = requestLine.split(' ')[1] ?? '';
  return /\.xml$/i.test(target.split('?', 1)[0] ?? '') ? 'xml' : 'json';
}

/** Fastify's `clientErrorHandler`: writes a whole response on the raw socket and closes it. */
export function clientErrorHandler(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  // A peer that went away cannot be answered.
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, entry } = ANSWERS[error.code ?? ''] ?? MALFORMED;
  const { contentType, payload } = renderErrors(formatOfRawRequest(error.rawPacket), [entry]);
  socket.end(
    [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, 'Connection: close', `Content-Type: ${contentType}`, `Content-Length: ${Buffer.byteLength(payload)}`, '', payload].join('\r\n'),
  );
}
