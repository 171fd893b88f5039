import type { Server, ServerOptions } from 'node:https';
import type { TLSSocket } from 'node:tls';

/**
 * HTTPS server options for the API listener.
 *
 * The API contract refuses TLS 1.0 and 1.1 (as PCI DSS requires for cardholder data), so
 * TLS 1.2 is set as an explicit floor rather than trusting the runtime default, which
 * `--tls-min-v1.0` or `NODE_OPTIONS` could lower. TLS 1.3 stays enabled as the ceiling.
 *
 * Cipher suites (docs/security.md): TLS 1.2 offers only AEAD suites with forward secrecy (ECDHE with
 * AES-GCM or ChaCha20-Poly1305): no CBC, no SHA-1 MAC, no ARIA, no CCM_8, no static RSA key
 * exchange. TLS 1.3's three standard suites (all AEAD, all forward-secret) stay; CCM_8 is left out.
 * Client-initiated renegotiation is refused (see `refuseRenegotiation`): it lets one client make
 * the server repeat handshakes at will, and nothing here needs it.
 */
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
] as const;

export const TLS13_CIPHERS = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'] as const;

/** Sent on every HTTPS response: clients that saw it keep to HTTPS for a year. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

export function serverTlsOptions(material: { key: string; cert: string }): ServerOptions {
  return {
    key: material.key,
    cert: material.cert,
    minVersion: 'TLSv1.2',
    maxVersion: 'TLSv1.3',
    ciphers: [...TLS13_CIPHERS, ...TLS12_CIPHERS].join(':'),
    // Prefer the server's ordering over whatever order a client happens to propose.
    honorCipherOrder: true,
  };
}

/**
 * Closes any TLS 1.2 connection whose client starts a second handshake (Node otherwise allows three
 * per ten minutes). Node's check raises ERR_TLS_RENEGOTIATION_DISABLED and the socket is destroyed,
 * so the client learns at once rather than waiting on an ignored request.
 */
export function refuseRenegotiation(server: Server): Server {
  server.on('secureConnection', (socket: TLSSocket) => socket.disableRenegotiation());
  return server;
}
