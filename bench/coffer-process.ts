import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Coffer as an operator runs it: `node bin/coffer serve` in a child process of its own, logs
 * (JSON lines on stdout) written to a file, the start-up lines read from stderr. The benches and
 * the drills start every server under test through this module.
 */

/** The repository root of this checkout (the compiled file sits two or three levels below it). */
export const repoRoot = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));

function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'bin', 'coffer')) && fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no Coffer checkout above ${start}`);
  }
}

/** The `coffer` command of this checkout. */
export const cofferBin = path.join(repoRoot, 'bin', 'coffer');

/** The credentials `coffer init` (or a first `serve`) prints. */
export interface InitCredentials {
  organization_token: string;
  environment_key: string;
  access_secret_key: string;
  access_secret: string;
}

/** A fresh master key for one run: the seeder and the server must share it. */
export function newMasterKey(): string {
  return randomBytes(32).toString('base64');
}

/**
 * The child's environment: the parent's without any COFFER_* variable, plus `env`. Rate limits
 * are lifted (`COFFER_RATE_LIMITS={"*":null}`) unless `env` sets its own: a load test from one
 * address would otherwise measure the limiter's 429s.
 */
export function cofferEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('COFFER_')) out[name] = value;
  }
  return { ...out, COFFER_RATE_LIMITS: '{"*":null}', COFFER_TLS: 'off', COFFER_LOG_LEVEL: 'info', ...env };
}

/** Runs `coffer <args>` to completion; its stdout, or an error with both streams. */
export function runCofferCommand(args: string[], env: Record<string, string>, bin = cofferBin): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: cofferEnv(env), cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`coffer ${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
    });
  });
}

/** `coffer init --json` on an empty store. */
export async function initStore(env: Record<string, string>, bin = cofferBin): Promise<InitCredentials> {
  return JSON.parse(await runCofferCommand(['init', '--json'], env, bin)) as InitCredentials;
}

/** A production environment and an access secret limited to it (a real gateway needs one). */
export async function createProductionEnvironment(
  env: Record<string, string>,
  organizationToken: string,
  bin = cofferBin,
): Promise<{ environment_key: string; access_secret: string }> {
  const environment = JSON.parse(
    await runCofferCommand(['environments', 'create', '--organization', organizationToken, '--name', 'live', '--production', '--json'], env, bin),
  ) as { environment_key: string };
  const secret = JSON.parse(
    await runCofferCommand(
      ['access-secrets', 'create', '--organization', organizationToken, '--environment', environment.environment_key, '--role', 'transact', '--json'],
      env,
      bin,
    ),
  ) as { access_secret: string };
  return { environment_key: environment.environment_key, access_secret: secret.access_secret };
}

export interface StartOptions {
  /** COFFER_* settings (data dir, database URL, endpoints, …). */
  env: Record<string, string>;
  /** Where the server's stdout (its JSON log lines) goes, appended to; stderr goes to `<logFile>.stderr`. */
  logFile: string;
  /** Node options before the script, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** Another checkout's `bin/coffer` (to compare two builds in one run). */
  bin?: string;
  timeoutMs?: number;
}

/** A running `coffer serve`. */
export interface RunningCoffer {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Everything the server wrote on stderr so far (start-up lines; may hold the init secret). */
  stderr(): string;
  /** Peak resident set size in MiB so far (Linux VmHWM), or null where /proc is not available. */
  peakRssMb(): number | null;
  /** SIGTERM and wait for a clean exit (a CPU profile is written then). */
  stop(): Promise<number | null>;
  /** SIGKILL and wait until the process is gone. */
  kill(): Promise<void>;
  /** Resolves with the exit code (null when ended by a signal). */
  exited: Promise<number | null>;
}

/** Spawns `coffer serve` and waits until it prints the address it listens on. */
export function startCoffer(options: StartOptions): Promise<RunningCoffer> {
  const log = fs.openSync(options.logFile, 'a');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.bin ?? cofferBin, 'serve'], {
    env: cofferEnv({ COFFER_PORT: '0', ...options.env }),
    cwd: repoRoot,
    stdio: ['ignore', log, 'pipe'],
  });
  fs.closeSync(log);
  let stderr = '';
  // Kept beside the log: a crash's stack goes to stderr, and the log scan reads this file too.
  const stderrFile = fs.createWriteStream(`${options.logFile}.stderr`, { flags: 'a' });
  child.stderr!.on('data', (chunk: string | Buffer) => stderrFile.write(withoutSecrets(String(chunk))));
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      stderrFile.end();
      resolve(code);
    }),
  );
  const pid = child.pid as number;
  const running = (url: string): RunningCoffer => ({
    url,
    pid,
    child,
    stderr: () => stderr,
    peakRssMb: () => peakRssMb(pid),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    exited,
  });
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      // The init block carries the admin secret: never quote it in an error.
      reject(new Error(`${message}\nstderr:\n${withoutSecrets(stderr)}`));
    };
    const timer = setTimeout(() => fail('coffer serve did not report listening in time'), options.timeoutMs ?? 60_000);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /^Coffer listening on (\S+)$/m.exec(stderr);
      if (match !== null && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve(running(match[1] as string));
      }
    });
    child.once('error', (error) => fail(error.message));
    void exited.then((code) => fail(`coffer serve exited (code ${code}) before listening`));
  });
}

/** stderr with the one-time init block's secret masked. */
export function withoutSecrets(stderr: string): string {
  return stderr.replace(/^( {2}access_secret +)\S+/m, '$1[FILTERED]');
}

/** VmHWM of a live process, in MiB; null when unknown. */
export function peakRssMb(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
    return match === null ? null : Math.round(Number(match[1]) / 1024);
  } catch {
    return null;
  }
}
