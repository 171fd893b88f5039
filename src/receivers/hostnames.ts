/**
 * A receiver's `hostnames`: a comma-separated list of scheme://host[:port] (no path), the only
 * destinations its deliveries and exports may reach.
 */
export interface Hostname {
  scheme: string;
  host: string;
  /** The explicit port, or the scheme's default. */
  port: number;
}

const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443, sftp: 22 };

/** Parses one entry; null when it is not scheme://host[:port] with an allowed scheme. */
export function parseHostname(entry: string, schemes: readonly string[]): Hostname | null {
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/?#@\s]+?)\/?$/i.exec(entry.trim());
  if (match === null) return null;
  const scheme = (match[1] as string).toLowerCase();
  if (!schemes.includes(scheme)) return null;
  let url: URL;
  try {
    url = new URL(`${scheme === 'sftp' ? 'http' : scheme}://${match[2] as string}`);
  } catch {
    return null;
  }
  if (url.username !== '' || url.password !== '') return null;
  const port = url.port === '' ? (DEFAULT_PORTS[scheme] ?? 0) : Number(url.port);
  return { scheme, host: url.hostname.toLowerCase(), port };
}

/** All entries of a hostnames list, or null when any of them is malformed. */
export function parseHostnames(list: string, schemes: readonly string[]): Hostname[] | null {
  const entries = list.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0) return null;
  const parsed = entries.map((entry) => parseHostname(entry, schemes));
  return parsed.some((entry) => entry === null) ? null : (parsed as Hostname[]);
}

/** Whether `url` goes to one of `allowed` (same scheme, host and port). */
export function urlMatchesHostnames(url: URL, allowed: readonly Hostname[]): boolean {
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  const port = url.port === '' ? (DEFAULT_PORTS[scheme] ?? 0) : Number(url.port);
  const host = url.hostname.toLowerCase();
  return allowed.some((entry) => entry.scheme === scheme && entry.host === host && entry.port === port);
}
