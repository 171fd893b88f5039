import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type * as Ssh2 from 'ssh2';
import type { ConnectConfig, SFTPWrapper, ServerHostKeyAlgorithm } from 'ssh2';
import { parseSftpUrl } from './sftp-url.js';

export { parseSftpUrl, InvalidSftpUrlError, type SftpLocation } from './sftp-url.js';

const requireModule = createRequire(import.meta.url);
let loadedSsh2: typeof Ssh2 | null = null;

/**
 * ssh2, loaded when an SFTP receiver is first used or checked: most processes never use one, and
 * every library a process loads stays in its heap for good (docs/benchmarks.md, "Import").
 */
function ssh2(): typeof Ssh2 {
  loadedSsh2 ??= requireModule('ssh2') as typeof Ssh2;
  return loadedSsh2;
}

/**
 * Uploads one export file over SFTP (ssh2), for `POST receivers/<t>/export`.
 *
 * The file is written under a temporary name in the target directory, synced, and renamed onto
 * the final name, so a reader polling that directory never sees half a file. Error messages are
 * built here from fixed text: never the server's own status strings (a hostile server could echo
 * what it was sent), never the password, key or content, never the remote path (templated, it may
 * carry payment data).
 */

/** One upload's destination, credentials and limits. */
export interface SftpTarget {
  /** `sftp://host[:port]/path/file` (port 22 by default; `/~/…` is relative to the login directory). */
  url: string;
  user: string;
  /** One of password / privateKey is required; with both, the key is tried first. */
  password?: string;
  /** OpenSSH or PEM private key, unencrypted. */
  privateKey?: string;
  /**
   * Pin: an OpenSSH public key line ("ssh-ed25519 AAAA…") or a "SHA256:<base64>" fingerprint.
   * When absent, any host key is accepted. A line also restricts negotiation to its key type; a
   * fingerprint matches only the key the server offers first (ed25519 before ECDSA before RSA).
   */
  hostKey?: string;
  /** Hard limit for the whole upload: resolution, handshake, login, transfer and rename. */
  timeoutMs: number;
  /** Resolves the host once and returns the IP address to connect to (the egress guard; throws to refuse). */
  resolveHost: (hostname: string) => Promise<string>;
}

/** What a finished upload did. */
export interface SftpUploadResult {
  bytes: number;
  /** The final remote path as sent to the server. */
  remotePath: string;
  latencyMs: number;
  /** SHA256 fingerprint of the host key the server presented (record it to pin later). */
  hostKeyFingerprint: string;
}

/** Base of every failure of uploadFile other than a bad URL (InvalidSftpUrlError). */
export abstract class SftpUploadError extends Error {}

/** resolveHost refused the destination (or did not return an IP address); no connection was made. */
export class SftpRefusedError extends SftpUploadError {
  override readonly name = 'SftpRefusedError';
}

/** The server refused the login, or no usable credential was configured. */
export class SftpAuthError extends SftpUploadError {
  override readonly name = 'SftpAuthError';
}

/** The host key did not match the pin (nothing was sent), or the pin itself is malformed. */
export class SftpHostKeyError extends SftpUploadError {
  override readonly name = 'SftpHostKeyError';
  constructor(
    message: string,
    /** Fingerprint the server presented; null when the pin was rejected before connecting. */
    readonly presentedFingerprint: string | null,
  ) {
    super(message);
  }
}

/** Any other failure: connection, timeout, SFTP status, rename. */
export class SftpTransferError extends SftpUploadError {
  override readonly name = 'SftpTransferError';
  constructor(
    message: string,
    /** False when the server cannot hold any of the bytes (nothing opened, or the temporary file was removed). */
    readonly mayHaveWritten: boolean,
    /** True when the rename was sent but its answer never came: the final file may exist complete. */
    readonly finalFileMayExist: boolean,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}

/** A host key pin, parsed. */
export type HostKeyPin = { kind: 'key'; keyType: string; blob: Buffer } | { kind: 'fingerprint'; sha256: string };

/** Host key algorithms that prove possession of a key of each type (RSA keys sign with SHA-2 first). */
const HOST_KEY_ALGORITHMS: Record<string, ServerHostKeyAlgorithm[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};

/** Parses a pin; throws SftpHostKeyError when it is neither a supported key line nor a SHA256 fingerprint. */
export function parseHostKeyPin(pin: string): HostKeyPin {
  const text = pin.trim();
  const fingerprint = /^SHA256:([A-Za-z0-9+/]{43})=?$/.exec(text);
  if (fingerprint?.[1] !== undefined) return { kind: 'fingerprint', sha256: fingerprint[1] };
  const [keyType, base64] = text.split(/\s+/);
  if (keyType !== undefined && base64 !== undefined && keyType in HOST_KEY_ALGORITHMS && /^[A-Za-z0-9+/]+={0,2}$/.test(base64)) {
    const blob = Buffer.from(base64, 'base64');
    // The blob names its own type first; a line whose label and blob disagree is a paste error.
    if (blob.length > 4 && blob.subarray(4, 4 + blob.readUInt32BE(0)).toString('latin1') === keyType) {
      return { kind: 'key', keyType, blob };
    }
  }
  throw new SftpHostKeyError('host key pin must be an OpenSSH public key line (ssh-ed25519, ecdsa-sha2-*, ssh-rsa) or a SHA256:<base64> fingerprint', null);
}

/** OpenSSH's fingerprint of a public key blob: SHA256, base64 without padding. */
export function hostKeyFingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

function pinMatches(pin: HostKeyPin, blob: Buffer): boolean {
  return pin.kind === 'key' ? pin.blob.equals(blob) : hostKeyFingerprint(blob) === `SHA256:${pin.sha256}`;
}

/** Parses the URL and uploads `content` to it; see SftpTarget and the error classes for the outcomes. */
export async function uploadFile(target: SftpTarget, content: Buffer): Promise<SftpUploadResult> {
  const location = parseSftpUrl(target.url);
  const pin = target.hostKey === undefined ? null : parseHostKeyPin(target.hostKey);
  const privateKey = target.privateKey === undefined ? undefined : checkPrivateKey(target.privateKey);
  if (privateKey === undefined && target.password === undefined) throw new SftpAuthError('no password or private key is configured');

  const started = performance.now();
  const where = `${location.hostname}:${location.port}`;
  const progress = new Progress();
  const client = new (ssh2().Client)();
  let presented: string | null = null;
  let hostKeyRejected = false;
  let transportError: Error | null = null;
  // ssh2 emits transport errors as events; without a listener one would crash the process.
  client.on('error', (error: Error) => {
    transportError ??= error;
  });

  const attempt = (async (): Promise<SftpUploadResult> => {
    let address: string;
    try {
      address = await target.resolveHost(location.hostname);
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'resolveHost refused';
      throw new SftpRefusedError(`refused to connect to ${where}: ${reason}`, { cause: error });
    }
    // A host name here would make the socket resolve again, defeating the pin.
    if (net.isIP(address) === 0) throw new SftpRefusedError(`refused to connect to ${where}: resolveHost did not return an IP address`);

    progress.stage = 'connecting';
    const config: ConnectConfig = {
      host: address,
      port: location.port,
      username: target.user,
      readyTimeout: target.timeoutMs,
      hostVerifier: (key: Buffer) => {
        presented = hostKeyFingerprint(key);
        hostKeyRejected = pin !== null && !pinMatches(pin, key);
        return !hostKeyRejected;
      },
      ...(pin?.kind === 'key' ? { algorithms: { serverHostKey: HOST_KEY_ALGORITHMS[pin.keyType] ?? [] } } : {}),
      ...(privateKey === undefined ? {} : { privateKey }),
      ...(target.password === undefined ? {} : { password: target.password }),
    };
    await new Promise<void>((resolve, reject) => {
      client.once('ready', resolve).once('error', reject).once('close', () => reject(new Error('connection closed')));
      client.connect(config);
    });
    progress.stage = 'starting SFTP';
    const sftp = await new Promise<SFTPWrapper>((resolve, reject) => client.sftp((error, session) => (error ? reject(error) : resolve(session))));
    sftp.on('error', (error: Error) => {
      transportError ??= error;
    });
    const remotePath = await writeThenRename(sftp, location.path, content, progress);
    return { bytes: content.length, remotePath, latencyMs: Math.round(performance.now() - started), hostKeyFingerprint: presented ?? '' };
  })();
  // When the deadline wins, the attempt still settles later (the client is destroyed); keep that quiet.
  attempt.catch(() => undefined);

  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded()), target.timeoutMs);
  });
  let finished = false;
  try {
    const result = await Promise.race([attempt, deadline]);
    finished = true;
    return result;
  } catch (error) {
    if (error instanceof SftpUploadError) throw error;
    if (hostKeyRejected) {
      throw new SftpHostKeyError(`host key of ${where} does not match the pinned key (server presented ${presented ?? 'no key'})`, presented);
    }
    const cause = transportError ?? (error as Error);
    if (!(error instanceof DeadlineExceeded) && isAuthFailure(cause)) throw new SftpAuthError(`login to ${where} as ${target.user} was refused`);
    throw progress.failure(where, error instanceof DeadlineExceeded ? error : cause, target.timeoutMs);
  } finally {
    clearTimeout(timer);
    closeClient(client, finished);
  }
}

/** True when `privateKey` is an unencrypted private key ssh2 can sign with (validate receiver settings with it). */
export function isReadablePrivateKey(privateKey: string): boolean {
  const parsed = ssh2().utils.parseKey(privateKey);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  return key !== undefined && !(key instanceof Error) && key.isPrivateKey();
}

/** Checks the key before any connection is made; ssh2's own parse errors could quote key text. */
function checkPrivateKey(privateKey: string): string {
  if (!isReadablePrivateKey(privateKey)) throw new SftpAuthError('private key could not be read (expected an unencrypted OpenSSH or PEM private key)');
  return privateKey;
}

function isAuthFailure(error: Error): boolean {
  return (error as Error & { level?: string }).level === 'client-authentication';
}

class DeadlineExceeded extends Error {}

/** Writes in this many bytes per request, with this many requests in flight (about 1 MiB on the wire). */
const CHUNK_BYTES = 32 * 1024;
const MAX_IN_FLIGHT = 32;

/** Where an upload got to, so a failure can say whether bytes may remain on the server. */
class Progress {
  stage = 'resolving the host';
  /** The temporary file was created: bytes may be on the server until it is removed. */
  tempCreated = false;
  tempRemoved = false;
  /** The rename was sent and not answered. */
  renamePending = false;

  failure(where: string, cause: Error, timeoutMs: number): SftpTransferError {
    const timedOut = cause instanceof DeadlineExceeded || (cause as Error & { level?: string }).level === 'client-timeout';
    const what = cause instanceof DeadlineExceeded ? `timed out after ${timeoutMs} ms` : describeCause(cause);
    const mayHaveWritten = (this.tempCreated && !this.tempRemoved) || this.renamePending;
    const note = this.renamePending ? ' (the file may have been written)' : mayHaveWritten ? ' (a temporary file may remain)' : '';
    return new SftpTransferError(`SFTP upload to ${where} failed while ${this.stage}: ${what}${note}`, mayHaveWritten, this.renamePending, timedOut);
  }
}

const SFTP_STATUS: Record<number, string> = {
  1: 'end of file',
  2: 'no such file or directory',
  3: 'permission denied',
  4: 'failure',
  5: 'bad message',
  6: 'no connection',
  7: 'connection lost',
  8: 'operation unsupported',
};

/** A fixed description of a failure: SFTP status names and socket error codes, never text from the peer. */
function describeCause(error: Error): string {
  const { code, level } = error as Error & { code?: unknown; level?: string };
  if (typeof code === 'number') return `server answered "${SFTP_STATUS[code] ?? `status ${code}`}"`;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return `connection error ${code}`;
  if (level === 'client-timeout') return 'timed out waiting for the SSH handshake';
  if (level === 'handshake') return 'SSH handshake failed';
  if (error.message === 'No response from server' || error.message === 'connection closed') return 'the server closed the connection';
  return level === undefined ? 'SSH error' : `SSH error (${level})`;
}

async function writeThenRename(sftp: SFTPWrapper, finalPath: string, content: Buffer, progress: Progress): Promise<string> {
  const directory = path.posix.dirname(finalPath);
  // Same directory so the rename stays on one file system; a leading dot keeps it out of most pollers' globs.
  const tempPath = path.posix.join(directory, `.${path.posix.basename(finalPath)}.${randomBytes(6).toString('hex')}.part`);
  progress.stage = 'creating the temporary file';
  // 0600: exported files carry card data; the receiving side can widen access if its ingest needs it.
  const handle = await call<Buffer>((cb) => sftp.open(tempPath, 'wx', { mode: 0o600 }, cb));
  progress.tempCreated = true;
  try {
    progress.stage = 'writing';
    await writeAll(sftp, handle, content);
    progress.stage = 'syncing';
    await syncIfSupported(sftp, handle);
    progress.stage = 'closing the temporary file';
    await call((cb) => sftp.close(handle, cb));
  } catch (error) {
    await removeTemp(sftp, tempPath, progress);
    throw error;
  }
  progress.stage = 'renaming into place';
  progress.renamePending = true;
  try {
    await renameOver(sftp, tempPath, finalPath);
  } catch (error) {
    // A status answer means the rename did not happen; only a lost answer leaves the outcome open.
    if (typeof (error as { code?: unknown }).code === 'number') progress.renamePending = false;
    await removeTemp(sftp, tempPath, progress);
    throw error;
  }
  progress.renamePending = false;
  return finalPath;
}

/**
 * posix-rename@openssh.com replaces an existing file atomically. Plain SFTP v3 rename refuses an
 * existing target; we then fail rather than remove the old file first: remove-then-rename has a
 * window with no file at all and loses the old one if we die in between.
 */
function renameOver(sftp: SFTPWrapper, from: string, to: string): Promise<void> {
  return call((cb) => {
    try {
      sftp.ext_openssh_rename(from, to, cb);
    } catch {
      // ssh2 throws synchronously when the server did not advertise the extension.
      sftp.rename(from, to, cb);
    }
  });
}

async function syncIfSupported(sftp: SFTPWrapper, handle: Buffer): Promise<void> {
  try {
    await call((cb) => sftp.ext_openssh_fsync(handle, cb));
  } catch (error) {
    // Not advertised (thrown synchronously) or unsupported: the rename is still atomic, just not durable.
    const code = (error as { code?: unknown }).code;
    if (code === undefined || code === 8) return;
    throw error;
  }
}

async function removeTemp(sftp: SFTPWrapper, tempPath: string, progress: Progress): Promise<void> {
  try {
    await call((cb) => sftp.unlink(tempPath, cb));
    progress.tempRemoved = true;
  } catch {
    // Connection gone or permission missing: mayHaveWritten stays true and the caller is told so.
  }
}

/** Writes the whole buffer with several requests in flight (one at a time is bound by the round trip). */
function writeAll(sftp: SFTPWrapper, handle: Buffer, content: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    let next = 0;
    let inFlight = 0;
    let failed = false;
    const pump = (): void => {
      if (failed) return;
      if (next >= content.length && inFlight === 0) {
        resolve();
        return;
      }
      while (inFlight < MAX_IN_FLIGHT && next < content.length) {
        const offset = next;
        const length = Math.min(CHUNK_BYTES, content.length - offset);
        next += length;
        inFlight += 1;
        sftp.write(handle, content, offset, length, offset, (error) => {
          inFlight -= 1;
          if (error) {
            failed = true;
            reject(error);
          } else {
            pump();
          }
        });
      }
    };
    pump();
  });
}

/** Adapts one ssh2 callback call to a promise. */
function call<T = void>(start: (cb: (error: Error | undefined | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    start((error, value) => (error ? reject(error) : resolve(value)));
  });
}

/** After success ends the session politely (destroying it if the peer lingers); after a failure drops it at once. */
function closeClient(client: Ssh2.Client, politely: boolean): void {
  if (!politely) {
    client.destroy();
    return;
  }
  const force = setTimeout(() => client.destroy(), 2000);
  force.unref();
  client.once('close', () => clearTimeout(force));
  client.end();
}
