import net from 'node:net';

/**
 * Parsing of export destinations (`sftp://host[:port]/path/file`, wire-reference §2.6).
 *
 * The path follows the convention of curl and the sftp URI draft: it is absolute on the server
 * (for a chrooted account, relative to the chroot), and a first segment of `~` makes it relative
 * to the login directory (`sftp://host/~/out/file.csv` → `out/file.csv`).
 */

/** Where an export goes: the host to resolve, the port, and the remote file path to write. */
export interface SftpLocation {
  /** Lower-case DNS name or IP literal (IPv6 without brackets). */
  hostname: string;
  /** TCP port; 22 unless the URL names one. */
  port: number;
  /** Remote file path with percent-escapes decoded: absolute, or relative to the login directory for `/~/…`. */
  path: string;
}

/** A URL that cannot be an SFTP destination. The message names the problem, never the URL (it may carry credentials). */
export class InvalidSftpUrlError extends Error {
  override readonly name = 'InvalidSftpUrlError';
}

export const SFTP_DEFAULT_PORT = 22;

const DNS_LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** Parses and checks an `sftp://` URL; throws InvalidSftpUrlError when it is not a usable destination. */
export function parseSftpUrl(url: string): SftpLocation {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidSftpUrlError('url is not a valid URL');
  }
  if (parsed.protocol !== 'sftp:') throw new InvalidSftpUrlError('url must use the sftp scheme');
  // Credentials belong in the receiver's protocol settings, where they are sealed; a URL ends up in logs.
  if (parsed.username !== '' || parsed.password !== '') throw new InvalidSftpUrlError('url must not contain a user name or password');
  if (parsed.search !== '' || parsed.hash !== '') throw new InvalidSftpUrlError('url must not contain a query or fragment');
  return { hostname: checkHostname(parsed.hostname), port: checkPort(parsed.port), path: checkPath(parsed.pathname) };
}

function checkHostname(raw: string): string {
  if (raw === '') throw new InvalidSftpUrlError('url must name a host');
  // `sftp:` is not a WHATWG "special" scheme, so the host arrives as written: brackets kept, case kept.
  const host = raw.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) {
    const literal = host.slice(1, -1);
    if (net.isIPv6(literal)) return literal;
    throw new InvalidSftpUrlError('url has an invalid IPv6 address');
  }
  if (net.isIPv4(host)) return host;
  const labels = host.endsWith('.') ? host.slice(0, -1).split('.') : host.split('.');
  if (host.length > 253 || !labels.every((label) => DNS_LABEL.test(label))) {
    throw new InvalidSftpUrlError('url has an invalid host name');
  }
  return host;
}

function checkPort(raw: string): number {
  if (raw === '') return SFTP_DEFAULT_PORT;
  const port = Number(raw);
  // The URL parser already limits the port to 0–65535; 0 cannot be connected to.
  if (!Number.isInteger(port) || port < 1) throw new InvalidSftpUrlError('url has an invalid port');
  return port;
}

function checkPath(pathname: string): string {
  if (pathname === '' || pathname === '/') throw new InvalidSftpUrlError('url must name a file to write');
  if (pathname.endsWith('/')) throw new InvalidSftpUrlError('url must end in a file name, not a directory');
  const segments = pathname.slice(1).split('/').map(decodeSegment);
  const homeRelative = segments[0] === '~';
  const rest = homeRelative ? segments.slice(1) : segments;
  if (rest.length === 0) throw new InvalidSftpUrlError('url must name a file to write');
  // Dot segments were already resolved by the URL parser; an empty one (`//`) is a typo we refuse to guess at.
  if (rest.some((segment) => segment === '')) throw new InvalidSftpUrlError('url path has an empty segment');
  return homeRelative ? rest.join('/') : `/${rest.join('/')}`;
}

function decodeSegment(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw new InvalidSftpUrlError('url path has an invalid percent-escape');
  }
  // An escaped slash or NUL would change which file is written; `..` after decoding would climb.
  if (decoded.includes('/') || decoded.includes('\0') || decoded === '.' || decoded === '..') {
    throw new InvalidSftpUrlError('url path has an invalid segment');
  }
  return decoded;
}
