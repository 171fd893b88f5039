import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll } from 'vitest';

/**
 * Runs the real `bin/coffer` as a child process, the way an operator does. `bin/coffer`
 * imports dist/, so `ensureBuilt()` compiles src/ first whenever dist/ is stale.
 */

export const binPath = fileURLToPath(new URL('../../bin/coffer', import.meta.url));
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const srcDir = path.join(repoRoot, 'src');
const distEntry = path.join(repoRoot, 'dist', 'cli.js');
/** Build inputs besides src/ itself. */
const buildConfigs = ['tsconfig.json', 'tsconfig.build.json'].map((name) => path.join(repoRoot, name));

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (entry.isFile()) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** True when dist/cli.js is missing or older than any file in src/ or the build tsconfigs. */
export function distIsStale(): boolean {
  if (!fs.existsSync(distEntry)) return true;
  const inputs = Math.max(newestMtime(srcDir), ...buildConfigs.filter((file) => fs.existsSync(file)).map((file) => fs.statSync(file).mtimeMs));
  return fs.statSync(distEntry).mtimeMs < inputs;
}

let built: Promise<void> | null = null;

/**
 * Compiles src/ to dist/ when stale, once per test process. Test files run in parallel
 * processes, so the build is serialised through a lock directory in the OS temp dir.
 */
export function ensureBuilt(): Promise<void> {
  built ??= buildOnce();
  return built;
}

async function buildOnce(): Promise<void> {
  if (!distIsStale()) return;
  const lock = path.join(os.tmpdir(), `coffer-test-build-${createHash('sha256').update(repoRoot).digest('hex').slice(0, 16)}.lock`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock older than the deadline belongs to a crashed run.
      const stat = fs.statSync(lock, { throwIfNoEntry: false });
      if (stat !== undefined && Date.now() - stat.mtimeMs > 120_000) fs.rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${lock}`);
      await sleep(200);
    }
  }
  try {
    // Another process may have built while this one waited.
    if (!distIsStale()) return;
    const npmCli = process.env.npm_execpath;
    try {
      if (npmCli !== undefined && npmCli.endsWith('.js')) {
        execFileSync(process.execPath, [npmCli, 'run', 'build'], { cwd: repoRoot, stdio: 'pipe' });
      } else {
        execFileSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: 'pipe', shell: process.platform === 'win32' });
      }
    } catch (error) {
      const failure = error as { stdout?: Buffer; stderr?: Buffer; message: string };
      // tsc emits even when it reports errors: mark dist/ stale so the next run builds again.
      if (fs.existsSync(distEntry)) fs.utimesSync(distEntry, 0, 0);
      throw new Error(`npm run build failed: ${failure.message}\n${failure.stdout?.toString() ?? ''}${failure.stderr?.toString() ?? ''}`);
    }
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * process.env without any COFFER_* variable, plus the test's own. Rate limits are lifted
 * (`COFFER_RATE_LIMITS={"*":null}`) unless the test passes its own COFFER_RATE_LIMITS: suites
 * create hundreds of payment methods from one IP.
 */
export function cofferEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('COFFER_')) out[name] = value;
  }
  return { ...out, COFFER_RATE_LIMITS: '{"*":null}', ...env };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Non-empty stdout lines. */
  stdoutLines: string[];
  /** Non-empty stderr lines. */
  stderrLines: string[];
}

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

/** Runs `bin/coffer ...args` to completion; `input`, when given, is its standard input. */
export function runCoffer(args: string[], env: Record<string, string>, timeoutMs = 30_000, input?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, ...args], { env: cofferEnv(env), cwd: repoRoot, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (input !== undefined) child.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`coffer ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, stdoutLines: lines(stdout), stderrLines: lines(stderr) });
    });
  });
}

/** The credentials `serve` prints when it initialised an empty database. */
export interface ServeInit {
  organization_token: string;
  environment_key: string;
  access_secret_key: string;
  access_secret: string;
}

export interface ServedCoffer {
  url: string;
  port: number;
  init: ServeInit | null;
  /** The CA path `serve` printed, when it made its own TLS material. */
  caPath: string | null;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  kill(signal?: NodeJS.Signals): boolean;
  /** Resolves with the exit code (null when ended by a signal). */
  exited: Promise<number | null>;
}

const INIT_FIELDS = ['organization_token', 'environment_key', 'access_secret_key', 'access_secret'] as const;

/** Parses the init block `serve` prints on stderr; null when absent. */
export function parseInitBlock(stderr: string): ServeInit | null {
  const found: Partial<Record<(typeof INIT_FIELDS)[number], string>> = {};
  for (const line of stderr.split('\n')) {
    const match = /^ {2}(organization_token|environment_key|access_secret_key|access_secret) +(\S+)\s*$/.exec(line);
    if (match !== null) found[match[1] as (typeof INIT_FIELDS)[number]] = match[2];
  }
  const present = INIT_FIELDS.filter((field) => found[field] !== undefined);
  if (present.length === 0) return null;
  if (present.length !== INIT_FIELDS.length) throw new Error(`incomplete init block on stderr:\n${stderr}`);
  return found as ServeInit;
}

/** Every child `startServe` spawned and that has not exited yet. */
const live = new Set<ChildProcess>();

/** SIGKILLs every served child still running (for afterEach/afterAll). */
export async function killAllServed(): Promise<void> {
  const waits = [...live].map(
    (child) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('close', () => resolve());
        child.kill('SIGKILL');
      }),
  );
  await Promise.all(waits);
}

/** Spawns `bin/coffer serve` on an ephemeral port and waits until it listens. */
export function startServe(env: Record<string, string>, timeoutMs = 30_000): Promise<ServedCoffer> {
  const child = spawn(process.execPath, [binPath, 'serve'], {
    env: cofferEnv({ COFFER_PORT: '0', ...env }),
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => {
    // 'close' (not 'exit'): by then every byte the child wrote has been read.
    child.once('close', (code) => {
      live.delete(child);
      resolve(code);
    });
  });
  return new Promise<ServedCoffer>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error !== null) {
        child.kill('SIGKILL');
        reject(new Error(`${error.message}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
        return;
      }
      const match = /^Coffer listening on (\S+)$/m.exec(stderr)!;
      const url = match[1]!;
      let init: ServeInit | null;
      try {
        init = parseInitBlock(stderr);
      } catch (parseError) {
        child.kill('SIGKILL');
        reject(parseError);
        return;
      }
      const ca = /^Local CA certificate .*: (\S+)$/m.exec(stderr);
      resolve({
        url,
        port: Number(new URL(url).port),
        init,
        caPath: ca === null ? null : ca[1]!,
        child,
        stdout: () => stdout,
        stderr: () => stderr,
        kill: (signal: NodeJS.Signals = 'SIGTERM') => child.kill(signal),
        exited,
      });
    };
    const timer = setTimeout(() => finish(new Error(`coffer serve did not report listening within ${timeoutMs} ms`)), timeoutMs);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (/^Coffer listening on \S+$/m.test(stderr)) finish(null);
    });
    child.once('error', (error) => finish(error));
    void exited.then((code) => finish(new Error(`coffer serve exited (code ${code}) before listening`)));
  });
}

/** Something a test leaves behind (a temp dir, a database) and that must go after it. */
export type Cleanup = () => void | Promise<void>;

/**
 * The hooks of a describe block (or file) that runs the real CLI: builds dist/ before its
 * tests, and after each test SIGKILLs every served child still running, then runs the test's
 * cleanups, newest first. Returns `defer`, which queues a cleanup for the end of the current test.
 */
export function useCofferProcesses(): (cleanup: Cleanup) => void {
  let cleanups: Cleanup[] = [];
  beforeAll(async () => {
    await ensureBuilt();
  }, 180_000);
  afterEach(async () => {
    await killAllServed();
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });
  return (cleanup) => {
    cleanups.push(cleanup);
  };
}
