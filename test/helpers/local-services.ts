import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

/**
 * Real servers for a newcomer's `npm test` (README, "Development"). When COFFER_TEST_DATABASE_URL,
 * COFFER_TEST_REDIS_URL or COFFER_TEST_SSHD is not set and CI is not set, the test run starts
 * what the machine has: a throw-away PostgreSQL cluster (initdb in a temp dir, its own port),
 * a throw-away redis-server, and marks sshd usable for the SFTP suites (which start their own).
 * What cannot run is named, with the reason, in one line (test/global-setup.ts).
 *
 * The decisions are pure functions over a `Machine` so that a test can hide a binary and check
 * what would happen (test/unit/local-services.test.ts).
 */

/** What the detection needs to know about the machine. */
export interface Machine {
  env: Record<string, string | undefined>;
  exists(file: string): boolean;
  /** Entries of a directory, [] when it does not exist. */
  list(dir: string): string[];
  uid: number | null;
  /** Whether a user of that name exists (PostgreSQL refuses to run as root). */
  userExists(name: string): boolean;
}

export const thisMachine: Machine = {
  env: process.env,
  exists: (file) => fs.existsSync(file),
  list: (dir) => {
    try {
      return fs.readdirSync(dir);
    } catch {
      return [];
    }
  },
  uid: process.getuid?.() ?? null,
  userExists: (name) => {
    try {
      return new RegExp(`^${name}:`, 'm').test(fs.readFileSync('/etc/passwd', 'utf8'));
    } catch {
      return false;
    }
  },
};

/** A service either usable (`how`) or not (`why`). */
export type Availability<T> = { ok: true; value: T; how: string } | { ok: false; why: string };

const PATH_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

function onPath(machine: Machine, name: string): string | null {
  const dirs = [...(machine.env.PATH ?? '').split(':').filter((dir) => dir !== ''), ...PATH_DIRS];
  return dirs.map((dir) => path.join(dir, name)).find((file) => machine.exists(file)) ?? null;
}

/** sshd for the SFTP suites: it needs the binary, ssh-keygen, useradd/chpasswd and root (test/helpers/sshd.ts). */
export function detectSshd(machine: Machine): Availability<string> {
  const binary = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((file) => machine.exists(file)) ?? onPath(machine, 'sshd');
  if (binary === null) return { ok: false, why: 'no sshd binary (apt-get install openssh-server)' };
  const missing = ['ssh-keygen', 'useradd', 'chpasswd', 'userdel'].filter((tool) => onPath(machine, tool) === null);
  if (missing.length > 0) return { ok: false, why: `${missing.join(', ')} not found` };
  if (machine.uid !== 0) return { ok: false, why: 'sshd password logins need root (a throw-away system user per server)' };
  return { ok: true, value: binary, how: `local ${binary}` };
}

/** How to run the PostgreSQL server binaries: their directory, and the user to run them as when we are root. */
export interface PostgresBinaries {
  bin: string;
  /** The user to run them as, through `runuser` (its absolute path), when we are root. */
  runAs: { user: string; runuser: string } | null;
}

/** initdb + postgres from /usr/lib/postgresql/<version>/bin (newest first) or PATH. */
export function detectPostgres(machine: Machine): Availability<PostgresBinaries> {
  const versions = machine
    .list('/usr/lib/postgresql')
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  const candidates = [...versions.map((version) => `/usr/lib/postgresql/${version}/bin`)];
  const initdb = onPath(machine, 'initdb');
  if (initdb !== null) candidates.push(path.dirname(initdb));
  const bin = candidates.find((dir) => machine.exists(path.join(dir, 'initdb')) && machine.exists(path.join(dir, 'postgres')));
  if (bin === undefined) return { ok: false, why: 'no initdb/postgres binaries (apt-get install postgresql)' };
  if (machine.uid !== 0) return { ok: true, value: { bin, runAs: null }, how: `temporary cluster from ${bin}` };
  // initdb and postgres refuse to run as root: run them as an unprivileged user through runuser.
  const runuser = onPath(machine, 'runuser');
  if (runuser === null) return { ok: false, why: 'running as root and runuser is missing (PostgreSQL refuses root)' };
  const user = ['postgres', 'nobody'].find((name) => machine.userExists(name));
  if (user === undefined) return { ok: false, why: 'running as root and no postgres/nobody user to run PostgreSQL as' };
  return { ok: true, value: { bin, runAs: { user, runuser } }, how: `temporary cluster from ${bin} as ${user}` };
}

export function detectRedis(machine: Machine): Availability<string> {
  const binary = onPath(machine, 'redis-server');
  if (binary === null) return { ok: false, why: 'no redis-server binary (apt-get install redis-server)' };
  return { ok: true, value: binary, how: `temporary ${binary}` };
}

/** A server this test run started; stop() kills it and removes its directory. */
export interface LocalServer {
  url: string;
  stop(): Promise<void>;
}

const run = promisify(execFile);

/**
 * Runs "$0" "$@" and exits with it; a background reader kills it (with $SIGNAL) once our end of
 * its stdin closes, so a test run killed before teardown leaves no server behind.
 */
const WATCHDOG = 'exec 3<&0 0</dev/null; "$0" "$@" 3<&- & server=$!; { while read -r _ <&3; do :; done; kill -"$SIGNAL" "$server" 2>/dev/null; } & wait "$server"';

type RunAs = PostgresBinaries['runAs'];

function asUser(runAs: RunAs, command: string, args: string[]): [string, string[]] {
  return runAs === null ? [command, args] : [runAs.runuser, ['-u', runAs.user, '--', command, ...args]];
}

function watched(runAs: RunAs, signal: string, command: string, args: string[]): { child: ChildProcess; log: string[] } {
  const [file, argv] = asUser(runAs, '/bin/sh', ['-c', WATCHDOG, command, ...args]);
  const child = spawn(file, argv, { detached: true, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, SIGNAL: signal } });
  const log: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
  return { child, log };
}

async function stopWatched(child: ChildProcess): Promise<void> {
  child.stdin?.end();
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const timedOut = await Promise.race([exited.then(() => false), sleep(10_000).then(() => true)]);
  if (timedOut && child.pid !== undefined) {
    process.kill(-child.pid, 'SIGKILL');
    await exited;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitUntil(child: ChildProcess, ready: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    if (await ready()) return true;
    await sleep(50);
  }
  return false;
}

/** A temp dir owned by `runAs` (when set) so the server may write there. */
async function serverDir(prefix: string, runAs: RunAs): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (runAs !== null) {
    const uid = Number((await run('id', ['-u', runAs.user])).stdout.trim());
    const gid = Number((await run('id', ['-g', runAs.user])).stdout.trim());
    fs.chownSync(dir, uid, gid);
  }
  return dir;
}

/** initdb in a temp dir, then postgres on a free 127.0.0.1 port (trust auth, user postgres, no fsync). */
export async function startLocalPostgres(binaries: PostgresBinaries): Promise<LocalServer> {
  const dir = await serverDir('coffer-pg-', binaries.runAs);
  const data = path.join(dir, 'data');
  try {
    const [initdb, initArgs] = asUser(binaries.runAs, path.join(binaries.bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
    await run(initdb, initArgs);
    for (let attempt = 1; ; attempt += 1) {
      const port = await freePort();
      // SIGINT is PostgreSQL's fast shutdown: clients are disconnected, nothing waits.
      const { child, log } = watched(binaries.runAs, 'INT', path.join(binaries.bin, 'postgres'), [
        '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=300',
      ]);
      if (await waitUntil(child, async () => log.join('').includes('ready to accept connections') && (await canConnect(port)), 30_000)) {
        return {
          url: `postgres://postgres@127.0.0.1:${port}/postgres`,
          stop: async () => {
            await stopWatched(child);
            fs.rmSync(dir, { recursive: true, force: true });
          },
        };
      }
      await stopWatched(child);
      if (attempt >= 3 || !/could not bind|in use/i.test(log.join(''))) throw new Error(`postgres did not start: ${lastLine(log)}`);
    }
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** redis-server on a free 127.0.0.1 port, nothing persisted. */
export async function startLocalRedis(binary: string): Promise<LocalServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-redis-'));
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const { child, log } = watched(null, 'TERM', binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir]);
    if (await waitUntil(child, async () => log.join('').includes('Ready to accept connections') && (await canConnect(port)), 15_000)) {
      return {
        url: `redis://127.0.0.1:${port}`,
        stop: async () => {
          await stopWatched(child);
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await stopWatched(child);
    if (attempt >= 3 || !/in use/i.test(log.join(''))) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not start: ${lastLine(log)}`);
    }
  }
}

function lastLine(log: string[]): string {
  return (
    log
      .join('')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .at(-1) ?? 'no output'
  );
}
