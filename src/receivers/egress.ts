import dns from 'node:dns';
import net from 'node:net';

/**
 * The egress guard (ARCHITECTURE.md habit 8): every connection to a destination a user (or an
 * operator override) chose is resolved here ONCE, every resolved address is checked, and the
 * caller connects to the address returned, never resolving the name again. A second resolution
 * could answer differently (DNS rebinding) and reach the metadata service or the private network.
 */

/** A `dns.lookup` with `{ all: true }`; injectable so tests can answer what real DNS would not. */
export type LookupFunction = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

/** Where a checked URL may be reached: connect to `address`, speak to `hostname` (SNI, Host). */
export interface PinnedTarget {
  url: URL;
  /** The URL's host name, lower case, without IPv6 brackets. */
  hostname: string;
  /** The URL's port, or its scheme's default. */
  port: number;
  /** The one resolved address every connection of this call must use. */
  address: string;
  family: 4 | 6;
}

/** Why a destination was refused; the category is safe to show and to log. */
export type EgressRefusal =
  | 'unspecified address'
  | 'loopback address'
  | 'private address'
  | 'link-local address'
  | 'metadata address'
  | 'shared address space'
  | 'multicast address'
  | 'reserved address'
  | 'scheme not allowed'
  | 'credentials in the URL'
  | 'invalid host';

/**
 * A destination refused before anything was sent. The message names the host and the category,
 * never the URL (its path and query may carry template output) nor the resolved address (which
 * would map the private network for whoever asks).
 */
export class EgressRefusedError extends Error {
  constructor(
    readonly host: string,
    readonly reason: EgressRefusal,
  ) {
    super(`Egress to ${host} refused: ${reason}.`);
    this.name = 'EgressRefusedError';
  }
}

/** The host name could not be resolved (or resolved to nothing); nothing was sent. */
export class EgressLookupError extends Error {
  constructor(
    readonly host: string,
    readonly code: string,
  ) {
    super(`Unable to resolve ${host} (${code}).`);
    this.name = 'EgressLookupError';
  }
}

type AddressCategory = Exclude<EgressRefusal, 'scheme not allowed' | 'credentials in the URL' | 'invalid host'>;

/** Ranges no user-chosen destination may reach unless the operator allows them. First match names the category. */
const FORBIDDEN: ReadonlyArray<[AddressCategory, string[]]> = [
  ['metadata address', ['169.254.169.254/32', 'fd00:ec2::254/128']],
  ['unspecified address', ['0.0.0.0/8', '::/128']],
  ['loopback address', ['127.0.0.0/8', '::1/128']],
  ['private address', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']],
  ['link-local address', ['169.254.0.0/16', 'fe80::/10']],
  ['shared address space', ['100.64.0.0/10']],
  ['multicast address', ['224.0.0.0/4', 'ff00::/8']],
  // 240/4 includes the broadcast address; the others are protocol, documentation and benchmark
  // ranges, site-local (deprecated) and the IPv6 discard prefix: never a legitimate receiver.
  [
    'reserved address',
    ['240.0.0.0/4', '192.0.0.0/24', '192.0.2.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '2001:db8::/32', 'fec0::/10', '100::/64'],
  ],
];

/**
 * IPv6 prefixes that carry an IPv4 address, and where: a socket or a translator in the path turns
 * these into the embedded IPv4 destination, so that destination is what must be checked.
 */
const EMBEDDING: ReadonlyArray<{ prefix: string; bits: number; v4Offset: number }> = [
  { prefix: '::ffff:0:0', bits: 96, v4Offset: 12 }, // IPv4-mapped
  { prefix: '::ffff:0:0:0', bits: 96, v4Offset: 12 }, // IPv4-translated (SIIT, ::ffff:0:a.b.c.d)
  { prefix: '::', bits: 96, v4Offset: 12 }, // IPv4-compatible (deprecated)
  { prefix: '64:ff9b::', bits: 96, v4Offset: 12 }, // NAT64 well-known prefix
  { prefix: '64:ff9b:1::', bits: 48, v4Offset: 12 }, // NAT64 local-use prefix
  { prefix: '2002::', bits: 16, v4Offset: 2 }, // 6to4
];

function blockListOf(entries: readonly string[]): net.BlockList {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const type = net.isIPv6(address) ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

const FORBIDDEN_LISTS = FORBIDDEN.map(([category, ranges]) => ({ category, list: blockListOf(ranges) }));
const EMBEDDING_LISTS = EMBEDDING.map((embedding) => ({ ...embedding, list: blockListOf([`${embedding.prefix}/${embedding.bits}`]) }));

/** The 16 bytes of an IPv6 address (dotted IPv4 tail included). */
function ipv6Bytes(address: string): Buffer {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted !== null) {
    const v4 = (dotted[1] as string).split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${(((v4[0] ?? 0) << 8) | (v4[1] ?? 0)).toString(16)}:${(((v4[2] ?? 0) << 8) | (v4[3] ?? 0)).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : new Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  const bytes = Buffer.alloc(16);
  [...headGroups, ...zeros, ...tailGroups].forEach((group, index) => bytes.writeUInt16BE(parseInt(group, 16), index * 2));
  return bytes;
}

/** Teredo (2001::/32, RFC 4380): the server's IPv4 in bits 32-63, the client's, inverted, in the last 32. */
const TEREDO = blockListOf(['2001::/32']);

function dotted(bytes: Uint8Array): string {
  return [...bytes].join('.');
}

/**
 * The IPv4 addresses an IPv6 address stands for, when it is one of the embedding forms: prefixes
 * (mapped, translated, compatible, NAT64, 6to4), Teredo (both ends) and ISATAP interface
 * identifiers (`…:0:5efe:a.b.c.d` or `…:200:5efe:a.b.c.d` under any /64).
 */
function embeddedIpv4s(address: string): string[] {
  // '::' and '::1' sit in the IPv4-compatible prefix but are the IPv6 unspecified and loopback addresses.
  if (address === '::' || address === '::1') return [];
  const bytes = ipv6Bytes(address);
  const found: string[] = [];
  for (const embedding of EMBEDDING_LISTS) {
    if (embedding.list.check(address, 'ipv6')) found.push(dotted(bytes.subarray(embedding.v4Offset, embedding.v4Offset + 4)));
  }
  if (TEREDO.check(address, 'ipv6')) found.push(dotted(bytes.subarray(4, 8)), dotted(bytes.subarray(12, 16).map((byte) => byte ^ 0xff)));
  if ((bytes[8] === 0x00 || bytes[8] === 0x02) && bytes[9] === 0x00 && bytes[10] === 0x5e && bytes[11] === 0xfe) found.push(dotted(bytes.subarray(12, 16)));
  return found;
}

const MAPPED = blockListOf(['::ffff:0:0/96']);

/** The IPv4 address of an IPv4-mapped address (what a dual-stack socket connects to), for allowances. */
function mappedIpv4(address: string): string | null {
  return MAPPED.check(address, 'ipv6') ? dotted(ipv6Bytes(address).subarray(12, 16)) : null;
}

/** The forbidden category of an address, or null when it is an ordinary public address. */
export function forbiddenCategory(address: string): AddressCategory | null {
  const family = net.isIP(address);
  if (family === 0) return 'reserved address';
  const candidates: Array<[string, 'ipv4' | 'ipv6']> = [[address, family === 4 ? 'ipv4' : 'ipv6']];
  if (family === 6) for (const v4 of embeddedIpv4s(address)) candidates.push([v4, 'ipv4']);
  for (const [candidate, type] of candidates) {
    for (const { category, list } of FORBIDDEN_LISTS) if (list.check(candidate, type)) return category;
  }
  // Teredo tunnels through a relay to wherever its client says: never a receiver, whatever it embeds.
  if (family === 6 && TEREDO.check(address, 'ipv6')) return 'reserved address';
  return null;
}

const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443, sftp: 22 };

/** Lower case, no IPv6 brackets, no trailing root dot: the form allow entries are compared in. */
function normalizeHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
}

/**
 * Resolves destinations once, refuses forbidden ones, and returns the address to pin.
 * `allow` (COFFER_EGRESS_ALLOW) holds CIDRs, IP addresses and host names: an address inside an
 * allowed range passes; a host name that matches exactly passes whatever it resolves to.
 */
export class EgressGuard {
  private readonly allowedRanges: net.BlockList;
  private readonly allowedHosts: ReadonlySet<string>;

  constructor(
    allow: readonly string[],
    private readonly lookup: LookupFunction = dns.lookup,
  ) {
    const ranges = allow.filter((entry) => net.isIP(entry.split('/')[0] ?? '') !== 0);
    this.allowedRanges = blockListOf(ranges);
    this.allowedHosts = new Set(allow.filter((entry) => !ranges.includes(entry)).map(normalizeHost));
  }

  /**
   * Checks a URL before anything is sent: its scheme must be one of `schemes`, it must carry no
   * user name or password, and its host must resolve to allowed addresses only.
   */
  async check(url: URL, schemes: readonly string[]): Promise<PinnedTarget> {
    const hostname = normalizeHost(url.hostname);
    const scheme = url.protocol.replace(/:$/, '').toLowerCase();
    if (!schemes.includes(scheme)) throw new EgressRefusedError(hostname, 'scheme not allowed');
    if (url.username !== '' || url.password !== '') throw new EgressRefusedError(hostname, 'credentials in the URL');
    const { address, family } = await this.resolve(hostname);
    return { url, hostname, port: url.port === '' ? (DEFAULT_PORTS[scheme] ?? 0) : Number(url.port), address, family };
  }

  /**
   * Resolves `hostname` once (every address), refuses when ANY address is forbidden and not
   * allowed, and returns the first address: the one to connect to. IP literals skip DNS.
   */
  async resolve(hostname: string): Promise<{ address: string; family: 4 | 6 }> {
    const host = normalizeHost(hostname);
    if (host === '') throw new EgressRefusedError(hostname, 'invalid host');
    const literal = net.isIP(host);
    if (literal !== 0) {
      this.refuseForbidden(host, host);
      return { address: host, family: literal as 4 | 6 };
    }
    const addresses = await this.lookupAll(host);
    if (!this.allowedHosts.has(host)) for (const entry of addresses) this.refuseForbidden(host, entry.address);
    const first = addresses[0] as dns.LookupAddress;
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  }

  private refuseForbidden(host: string, address: string): void {
    const category = forbiddenCategory(address);
    if (category === null || this.isAllowedAddress(address)) return;
    throw new EgressRefusedError(host, category);
  }

  private isAllowedAddress(address: string): boolean {
    const family = net.isIP(address);
    if (this.allowedRanges.check(address, family === 6 ? 'ipv6' : 'ipv4')) return true;
    // ::ffff:127.0.0.1 is 127.0.0.1 on a dual-stack socket: an allowance for one covers the other.
    const v4 = family === 6 ? mappedIpv4(address) : null;
    return v4 !== null && this.allowedRanges.check(v4, 'ipv4');
  }

  private lookupAll(host: string): Promise<dns.LookupAddress[]> {
    return new Promise((resolve, reject) => {
      this.lookup(host, { all: true, verbatim: true }, (error, addresses) => {
        if (error !== null) reject(new EgressLookupError(host, error.code ?? 'ENOTFOUND'));
        else if (!Array.isArray(addresses) || addresses.length === 0) reject(new EgressLookupError(host, 'ENOTFOUND'));
        else resolve(addresses);
      });
    });
  }
}

/**
 * A `lookup` for net/tls.connect (undici's `connect.lookup`) that always answers the pinned
 * address, so the connection cannot resolve the name a second time. TLS still uses the name
 * (SNI and certificate verification); only the address is fixed.
 */
export function pinnedLookup(target: { address: string; family: 4 | 6 }): net.LookupFunction {
  return (_hostname, options, callback) => {
    // net asks for every address (all: true) when it races address families (autoSelectFamily).
    if ((options as dns.LookupAllOptions).all === true) (callback as unknown as (error: null, addresses: dns.LookupAddress[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}
