import type { Socket } from 'node:net';
import type { Server } from 'node:https';

/** The first byte of every TLS connection: a handshake record (RFC 8446 §5.1, content type 22). */
const TLS_HANDSHAKE = 0x16;

const BODY = 'This port speaks HTTPS: send the request to https:// instead of http://.\n';

/** What nginx answers too (its 497 shown as 400): a plain-HTTP request reached the TLS port. */
const PLAIN_HTTP_ANSWER =
  'HTTP/1.1 400 Bad Request\r\n' +
  'Content-Type: text/plain; charset=utf-8\r\n' +
  `Content-Length: ${Buffer.byteLength(BODY)}\r\n` +
  'Connection: close\r\n' +
  '\r\n' +
  BODY;

/**
 * Answers a plain-HTTP request sent to the HTTPS port with a 400 that says to use https://, as
 * nginx does, rather than a dropped connection (docs/deployment.md, "TLS"). The first byte of a
 * connection decides: a TLS handshake record goes on to the TLS server as before (the byte is put
 * back; Node's TLS socket reads what its raw socket already buffered), anything else gets the 400
 * and the connection is closed. Nothing of the request is read beyond that first chunk or echoed.
 * A connection that sends nothing is closed after `firstByteTimeoutMs`, as the handshake timeout
 * would have.
 */
export function answerPlainHttp(server: Server, firstByteTimeoutMs: number): Server {
  const tlsListeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    socket.setTimeout(firstByteTimeoutMs, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.setTimeout(0);
      if (first[0] === TLS_HANDSHAKE) {
        socket.unshift(first);
        for (const listener of tlsListeners) listener.call(server, socket);
        return;
      }
      socket.end(PLAIN_HTTP_ANSWER);
    });
  });
  return server;
}
