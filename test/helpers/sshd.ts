import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { describe } from 'vitest';

/**
 * A real OpenSSH server (sshd + internal-sftp) on 127.0.0.1 for the SFTP receiver tests.
 *
 * COFFER_TEST_SSHD turns the suites on: `1` (or `true`) uses /usr/sbin/sshd, an absolute path names
 * another binary. Outside CI the test run's global setup sets it when the machine has a usable sshd
 * (test/global-setup.ts). Unset, the suites are not defined, so `npm test` passes on a machine with
 * nothing but Node; in CI (CI=true) unset is a failure, never a silent skip. Configured but unusable (not
 * root, sshd missing or refusing to start) is a failure too.
 *
 * Password login is real: sshd (UsePAM no) checks the system password database, so each server
 * gets its own system user `coffer-sftp-<pid>-<hex>` with a random password (useradd + chpasswd,
 * password on stdin), removed by stop(). That needs root, like sshd itself. Users left by a killed
 * test process are removed by the next start (their pid is dead). Uploads land in the user's home,
 * a temp directory the test reads; `/~/` URLs are relative to it.
 */

const configured = process.env.COFFER_TEST_SSHD ?? '';
const DEFAULT_SSHD = '/usr/sbin/sshd';

/** The sshd binary to run, or null when the SFTP suites are off. */
export const sshdBinary: string | null = configured === '' ? null : ['1', 'true'].includes(configured) ? DEFAULT_SSHD : configured;

if (sshdBinary === null && process.env.CI === 'true') {
  throw new Error('CI must set COFFER_TEST_SSHD so the SFTP suites run (see .ci/run)');
}

/** True when COFFER_TEST_SSHD is set: define the suites that need a real sshd. */
export function sshdAvailable(): boolean {
  return sshdBinary !== null;
}

/** `describe`, defined only when a real sshd is configured (see the module comment). */
export function describeWithSshd(name: string, body: () => void): void {
  if (sshdAvailable()) describe(name, body);
}

/** A running sshd and what a test needs to talk to it and inspect what landed. */
export interface TestSshd {
  host: '127.0.0.1';
  port: number;
  /** The ed25519 host key as an OpenSSH public key line, and its SHA256 fingerprint (from ssh-keygen). */
  hostKeyLine: string;
  hostKeyFingerprint: string;
  /** A second host key (ECDSA P-256), offered after ed25519 in negotiation. */
  ecdsaHostKeyLine: string;
  user: string;
  password: string;
  /** ed25519 client key, OpenSSH format, authorized for `user`. */
  privateKey: string;
  /** RSA client key, PEM (PKCS#1) format, authorized for `user`. */
  pemPrivateKey: string;
  /** The user's home directory on this machine: files uploaded to `/~/x` land at `root/x`. */
  root: string;
  /** `sftp://127.0.0.1:<port>/~/<rel>`. */
  url(rel: string): string;
  readFile(rel: string): Buffer;
  /** Creates directories under root (like mkdir -p) owned by `user`, so uploads may write there. */
  mkdir(rel: string): void;
  /** Every entry under root (dot files too), relative, sorted; directories end in `/`. */
  files(): string[];
  /** sshd's log so far (LogLevel VERBOSE: connections, logins, disconnects; internal-sftp logs only to syslog). */
  logs(): string;
  stop(): Promise<void>;
}

const run = promisify(execFile);
const USER_PREFIX = 'coffer-sftp-';
const DIR_PREFIX = 'coffer-sshd-';

/** Starts a fresh sshd with its own keys, user and home; call stop() in afterAll. */
export async function startSshd(): Promise<TestSshd> {
  if (sshdBinary === null) throw new Error('COFFER_TEST_SSHD is not set');
  if (!path.isAbsolute(sshdBinary)) throw new Error('COFFER_TEST_SSHD must be 1 or an absolute path to sshd (sshd re-executes itself)');
  if (!fs.existsSync(sshdBinary)) throw new Error(`COFFER_TEST_SSHD is set but ${sshdBinary} does not exist (apt-get install openssh-server)`);
  if (process.getuid?.() !== 0) throw new Error('the sshd tests need root: sshd checks passwords in /etc/shadow and switches to the test user');
  await removeLeftovers();

  const base = fs.mkdtempSync(path.join(os.tmpdir(), `${DIR_PREFIX}${process.pid}-`));
  try {
    return await startIn(base, sshdBinary);
  } catch (error) {
    fs.rmSync(base, { recursive: true, force: true });
    throw error;
  }
}

async function startIn(base: string, binary: string): Promise<TestSshd> {
  // The test user must reach authorized_keys and its home through base; everything else there is root's.
  fs.chmodSync(base, 0o711);
  const file = (name: string) => path.join(base, name);
  await Promise.all([
    keygen(file('host_ed25519'), ['-t', 'ed25519']),
    keygen(file('host_ecdsa'), ['-t', 'ecdsa', '-b', '256']),
    keygen(file('client_ed25519'), ['-t', 'ed25519']),
    keygen(file('client_rsa'), ['-t', 'rsa', '-b', '2048', '-m', 'PEM']),
  ]);
  const publicKey = (name: string) => fs.readFileSync(file(`${name}.pub`), 'utf8').trim();
  fs.writeFileSync(file('authorized_keys'), `${publicKey('client_ed25519')}\n${publicKey('client_rsa')}\n`, { mode: 0o644 });
  const { stdout: fingerprintLine } = await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', file('host_ed25519.pub')]);
  const hostKeyFingerprint = fingerprintLine.split(' ')[1] ?? '';

  const root = file('home');
  fs.mkdirSync(root, { mode: 0o750 });
  const user = `${USER_PREFIX}${process.pid}-${randomBytes(3).toString('hex')}`;
  const password = randomBytes(18).toString('base64url');
  await createUser(user, root, password);
  let running: RunningSshd;
  try {
    // OpenSSH 9.8+ penalises addresses that fail logins; the tests fail logins on purpose, all from 127.0.0.1.
    const penalties = (await opensshVersion(binary)) >= 9.08 ? ['PerSourcePenalties no'] : [];
    running = await launch(binary, (port) => {
      fs.writeFileSync(file('sshd_config'), sshdConfig(base, port, user, penalties), { mode: 0o600 });
      return file('sshd_config');
    });
  } catch (error) {
    await deleteUser(user);
    throw error;
  }

  const owner = fs.statSync(root);
  const files = (dir = root, prefix = ''): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const rel = `${prefix}${entry.name}`;
      return entry.isDirectory() ? [`${rel}/`, ...files(path.join(dir, entry.name), `${rel}/`)] : [rel];
    }).sort();
  return {
    host: '127.0.0.1',
    port: running.port,
    hostKeyLine: publicKey('host_ed25519'),
    hostKeyFingerprint,
    ecdsaHostKeyLine: publicKey('host_ecdsa'),
    user,
    password,
    privateKey: fs.readFileSync(file('client_ed25519'), 'utf8'),
    pemPrivateKey: fs.readFileSync(file('client_rsa'), 'utf8'),
    root,
    url: (rel) => `sftp://127.0.0.1:${running.port}/~/${rel}`,
    readFile: (rel) => fs.readFileSync(path.join(root, rel)),
    mkdir: (rel) => {
      let dir = root;
      for (const segment of rel.split('/').filter((part) => part !== '')) {
        dir = path.join(dir, segment);
        if (!fs.existsSync(dir)) fs.mkdirSync(dir, { mode: 0o750 });
        fs.chownSync(dir, owner.uid, owner.gid);
      }
    },
    files: () => files(),
    logs: () => running.log.join(''),
    stop: async () => {
      await running.stop();
      await deleteUser(user);
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

function sshdConfig(base: string, port: number, user: string, extra: string[]): string {
  const quoted = (name: string) => `"${path.join(base, name)}"`;
  return [
    `ListenAddress 127.0.0.1:${port}`,
    `HostKey ${quoted('host_ed25519')}`,
    `HostKey ${quoted('host_ecdsa')}`,
    'PidFile none',
    'UsePAM no',
    // authorized_keys sits in the temp dir, below the world-writable /tmp that StrictModes refuses.
    'StrictModes no',
    `AuthorizedKeysFile ${quoted('authorized_keys')}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication yes',
    'KbdInteractiveAuthentication no',
    'PermitRootLogin no',
    `AllowUsers ${user}`,
    'Subsystem sftp internal-sftp',
    'ForceCommand internal-sftp',
    'AllowTcpForwarding no',
    'AllowAgentForwarding no',
    'X11Forwarding no',
    'PermitTTY no',
    'UseDNS no',
    'LogLevel VERBOSE',
    ...extra,
    '',
  ].join('\n');
}

/** Runs "$0" "$@" (sshd) and exits with it; a background reader kills it once stdin reaches end of file. */
const WATCHDOG = 'exec 3<&0 0</dev/null; "$0" "$@" 3<&- & server=$!; { while read -r _ <&3; do :; done; kill "$server" 2>/dev/null; } & wait "$server"';

interface RunningSshd {
  port: number;
  log: string[];
  stop(): Promise<void>;
}

/** Runs sshd on a free port (retrying if another process takes it first) and waits until it listens. */
async function launch(binary: string, writeConfig: (port: number) => string): Promise<RunningSshd> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const config = writeConfig(port);
    await ensurePrivsepDir(binary, config);
    const log: string[] = [];
    // detached: its own process group, so stop() reaches the shell and sshd together. The shell
    // kills sshd when our end of its stdin closes, so a test process killed before stop() leaves no server.
    const child = spawn('/bin/sh', ['-c', WATCHDOG, binary, '-D', '-e', '-f', config], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
    const listening = await waitForListening(child, log, port);
    if (listening) return { port, log, stop: () => stopProcessGroup(child) };
    await stopProcessGroup(child);
    const text = log.join('');
    if (attempt < 5 && /Address already in use/.test(text)) continue;
    throw new Error(`sshd did not start:\n${text}`);
  }
}

async function waitForListening(child: ChildProcess, log: string[], port: number): Promise<boolean> {
  const marker = `Server listening on 127.0.0.1 port ${port}`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (log.join('').includes(marker)) return true;
    if (child.exitCode !== null || child.signalCode !== null) return false;
    await sleep(20);
  }
  await stopProcessGroup(child);
  return false;
}

async function stopProcessGroup(child: ChildProcess): Promise<void> {
  child.stdin?.end();
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid, 'SIGTERM');
  const timedOut = await Promise.race([exited.then(() => false), sleep(5000).then(() => true)]);
  if (timedOut) {
    process.kill(-child.pid, 'SIGKILL');
    await exited;
  }
}

/** sshd refuses to start without its privilege separation directory, which only its init script creates. */
async function ensurePrivsepDir(binary: string, config: string): Promise<void> {
  try {
    await run(binary, ['-t', '-f', config]);
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '');
    const missing = /Missing privilege separation directory: (\S+)/.exec(stderr)?.[1];
    if (missing === undefined) throw new Error(`sshd rejected the test configuration:\n${stderr}`);
    fs.mkdirSync(missing, { recursive: true, mode: 0o755 });
  }
}

/** The OpenSSH version as major + minor / 100 (9.2 → 9.02, 9.10 → 9.10). */
async function opensshVersion(binary: string): Promise<number> {
  // `sshd -V` prints "OpenSSH_9.2p1 …" on stderr; older versions exit non-zero after printing it.
  const output = await run(binary, ['-V']).then(
    ({ stdout, stderr }) => `${stdout}${stderr}`,
    (error: { stderr?: unknown }) => String(error.stderr ?? ''),
  );
  const [, major = '0', minor = '0'] = /OpenSSH_(\d+)\.(\d+)/.exec(output) ?? [];
  return Number(major) + Number(minor) / 100;
}

async function keygen(file: string, args: string[]): Promise<void> {
  await run('ssh-keygen', ['-q', ...args, '-N', '', '-C', 'coffer-test', '-f', file]);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function createUser(user: string, home: string, password: string): Promise<void> {
  const shell = ['/usr/sbin/nologin', '/sbin/nologin', '/bin/false'].find((candidate) => fs.existsSync(candidate)) ?? '/bin/false';
  await shadowTool('useradd', ['--system', '--no-create-home', '--home-dir', home, '--shell', shell, user]);
  const { stdout } = await run('id', ['-u', user]);
  const { stdout: group } = await run('id', ['-g', user]);
  fs.chownSync(home, Number(stdout.trim()), Number(group.trim()));
  // On stdin, never on the command line (visible to every process).
  await shadowTool('chpasswd', [], `${user}:${password}\n`);
}

async function deleteUser(user: string): Promise<void> {
  // -f: a session child of the stopped sshd may still be exiting under this user.
  await shadowTool('userdel', ['-f', user]).catch(() => undefined);
}

/** Users and directories of test processes that are gone (killed before stop() ran); both carry the pid. */
async function removeLeftovers(): Promise<void> {
  const passwd = fs.readFileSync('/etc/passwd', 'utf8');
  const users = [...passwd.matchAll(new RegExp(`^(${USER_PREFIX}(\\d+)-[0-9a-f]+):`, 'gm'))];
  for (const [, user, pid] of users) if (user !== undefined && !processAlive(Number(pid))) await deleteUser(user);
  for (const name of fs.readdirSync(os.tmpdir())) {
    const pid = new RegExp(`^${DIR_PREFIX}(\\d+)-`).exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** useradd/userdel/chpasswd refuse while another test process holds the passwd lock: retry for a while. */
async function shadowTool(command: string, args: string[], input?: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await new Promise<void>((resolve, reject) => {
        const child = execFile(command, args, (error, _stdout, stderr) => (error ? reject(Object.assign(error, { stderr })) : resolve()));
        child.stdin?.end(input ?? '');
      });
      return;
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? '');
      if (attempt < 50 && /lock|try again/i.test(stderr)) {
        await sleep(100);
        continue;
      }
      throw new Error(`${command} ${args.join(' ')} failed: ${stderr.trim()}`);
    }
  }
}
