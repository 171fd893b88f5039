import type { ServerOptions } from 'node:https';

/**
 * HTTPS server options for the API listener.
 *
 * The API contract refuses TLS 1.0 and 1.1 (as PCI DSS requires for cardholder data), so
 * TLS 1.2 is set as an explicit floor rather than trusting the runtime default, which
 * `--tls-min-v1.0` or `NODE_OPTIONS` could lower. TLS 1.3 stays enabled as the ceiling.
 * Cipher suites are left at Node's defaults: they're maintained with each release and
 * already exclude export, RC4, 3DES and anonymous suites.
 */
export function serverTlsOptions(material: { key: string; cert: string }): ServerOptions {
  return {
    key: material.key,
    cert: material.cert,
    minVersion: 'TLSv1.2',
    maxVersion: 'TLSv1.3',
    // Prefer the server's ordering of the default list (forward-secret AEAD suites come first)
    // over whatever order a legacy client happens to propose.
    honorCipherOrder: true,
  };
}
