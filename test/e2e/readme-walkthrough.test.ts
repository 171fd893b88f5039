import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/local-services.js';
import { binPath, cofferEnv, ensureBuilt, repoRoot } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/*
 * The README, followed as a newcomer follows it: a first `coffer serve` in a fresh directory (its
 * banner must be the one the README quotes, with no log line inside it), then every shell block of
 * the walk-through marked `sh walkthrough`, in order, in one bash session run from that directory.
 * Only what the reader is told to change is changed: the port (8443 and the echo server's 9000 may
 * be taken on a test machine) and the values the README tells the reader to export (taken from
 * the banner). Every curl's HTTP status is recorded; any that is not 2xx fails the test.
 */

const README = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/** The fenced blocks whose info string is exactly `info`, in document order. */
export function fencedBlocks(markdown: string, info: string): string[] {
  const blocks: string[] = [];
  const fence = /^```([^\n]*)\n([\s\S]*?)^```$/gm;
  for (let match = fence.exec(markdown); match !== null; match = fence.exec(markdown)) {
    if (match[1]!.trim() === info) blocks.push(match[2]!);
  }
  return blocks;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A README banner line as a pattern: its sample values (tokens, secrets, paths under `/…/`,
 * the port) stand for any value; everything else must be as written.
 */
function bannerLinePattern(line: string, port: number): RegExp {
  const field = /^( {2}\w+ +)(\S+)$/.exec(line);
  if (field !== null) {
    const value = field[2]!.includes('@') ? escapeRegExp(field[2]!) : '[A-Za-z0-9]+';
    return new RegExp(`^${escapeRegExp(field[1]!)}${value}$`);
  }
  return new RegExp(`^${escapeRegExp(line).replace(/\/…\//g, '/.+/').replace(/8443/g, String(port))}$`);
}

/** The sample values of the README's banner, by name (the README's exports use them). */
function bannerSamples(banner: string): Record<string, string> {
  const samples: Record<string, string> = {};
  for (const match of banner.matchAll(/^ {2}(\w+) +(\S+)$/gm)) samples[match[1]!] = match[2]!;
  return samples;
}

interface Served {
  child: ChildProcess;
  /** Standard output and standard error as one stream, as a terminal shows them. */
  output(): string;
}

/** `coffer serve` as `npm start` runs it, its two streams merged like a terminal's. */
function serveLikeATerminal(cwd: string, env: Record<string, string>): Promise<Served> {
  const child = spawn('bash', ['-c', `exec "${process.execPath}" "${binPath}" serve 2>&1`], { cwd, env: cofferEnv(env), stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`coffer serve did not listen within 30 s:\n${output}`)), 30_000);
    child.stdout!.on('data', () => {
      if (/^Coffer listening on \S+$/m.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`coffer serve exited (${code}):\n${output}`));
    });
  });
}

interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `script` with bash in `cwd`, in a process group of its own (so its background jobs can be ended with it). */
function runBash(script: string, cwd: string, timeoutMs: number): Promise<ScriptRun> {
  const child = spawn('bash', ['-c', script], { cwd, env: cofferEnv({}), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const endGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  return new Promise((resolve) => {
    const timer = setTimeout(endGroup, timeoutMs);
    // 'exit', not 'close': the background echo server keeps the pipes open until it is ended.
    child.once('exit', (code) => {
      clearTimeout(timer);
      endGroup();
      // Let the last chunks of the pipes arrive.
      setTimeout(() => resolve({ code, stdout, stderr }), 100);
    });
  });
}

describe('the README, followed top to bottom', () => {
  const work = tempDir('coffer-readme-');
  let port: number;
  let served: Served;

  beforeAll(async () => {
    await ensureBuilt();
    port = await freePort();
    // The receivers section asks for COFFER_EGRESS_ALLOW=127.0.0.1 (its echo server is local).
    served = await serveLikeATerminal(work.dir, { COFFER_PORT: String(port), COFFER_EGRESS_ALLOW: '127.0.0.1' });
  }, 120_000);

  afterAll(async () => {
    if (served !== undefined && served.child.exitCode === null) {
      const exited = new Promise((resolve) => served.child.once('exit', resolve));
      served.child.kill('SIGTERM');
      await exited;
    }
    work.cleanup();
  });

  it('prints the first-start banner the README quotes, in one piece, logs only after it', () => {
    const [quoted] = fencedBlocks(README, 'text first-start');
    expect(quoted, 'README has a ```text first-start block').toBeDefined();
    const expected = quoted!.trimEnd().split('\n');
    const lines = served.output().split('\n');
    const last = lines.findIndex((line) => line.startsWith('Coffer listening on '));
    const banner = lines.slice(0, last + 1);
    expect(banner.length, served.output()).toBe(expected.length);
    expected.forEach((line, index) => expect(banner[index], `README line ${index + 1}: ${line}`).toMatch(bannerLinePattern(line, port)));
    // Log lines (JSON) come after it.
    expect(banner.some((line) => line.startsWith('{'))).toBe(false);
    expect(served.output()).toContain(`Coffer listening on https://127.0.0.1:${port}`);
    // The local master key the banner names is the one the start made.
    expect(fs.existsSync(path.join(work.dir, 'data', 'master.key'))).toBe(true);
  });

  it('runs every walk-through block in order, every answer 2xx', async () => {
    const blocks = fencedBlocks(README, 'sh walkthrough');
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    const samples = bannerSamples(fencedBlocks(README, 'text first-start')[0]!);
    const actual = bannerSamples(served.output());
    const echoPort = await freePort();
    let script = blocks.join('\n');
    // What the reader substitutes: the printed values, here the ones this start printed.
    for (const name of ['environment_key', 'access_secret'] as const) {
      expect(script, `the walk-through exports the README's sample ${name}`).toContain(samples[name]!);
      script = script.split(samples[name]!).join(actual[name]!);
    }
    script = script.replace(/(localhost|127\.0\.0\.1):8443/g, `$1:${port}`).replace(/127\.0\.0\.1:9000/g, `127.0.0.1:${echoPort}`).replace(/listen\(9000\)/g, `listen(${echoPort})`);
    expect(script).not.toMatch(/:8443|9000/);
    const statuses = path.join(work.dir, 'statuses.log');
    // Every curl, however the README spells it ($COFFER or curl), reports its status to a file.
    const prelude = [
      'set -euo pipefail',
      `curl() { command curl --write-out '%{stderr}HTTP %{http_code} %{url_effective}\\n' "$@" 2>>${JSON.stringify(statuses)}; }`,
    ].join('\n');
    const run = await runBash(`${prelude}\n${script}`, work.dir, 60_000);
    const recorded = fs.existsSync(statuses) ? fs.readFileSync(statuses, 'utf8') : '';
    const calls = [...recorded.matchAll(/^HTTP (\d{3}) (\S+)$/gm)].map((match) => ({ status: Number(match[1]), url: match[2]! }));
    const toCoffer = calls.filter((call) => new URL(call.url).port === String(port));
    const context = `exit ${run.code}\nstatuses:\n${recorded}\nstderr:\n${run.stderr.slice(-4000)}\nstdout:\n${run.stdout.slice(-4000)}`;
    expect(run.code, context).toBe(0);
    expect(toCoffer.filter((call) => call.status < 200 || call.status > 299), context).toEqual([]);
    // Every block reached Coffer: the walk-through makes over thirty calls, the last one in its last block.
    expect(toCoffer.length, context).toBeGreaterThanOrEqual(30);
    expect(toCoffer.at(-1)!.url, context).toMatch(/\/v1\/environments\/[A-Za-z0-9]+\.json$/);
    // The echo server got the card, and what Coffer kept is scrubbed.
    expect(run.stdout).toContain('POST /cards {"number": "4111111111111111"');
    expect(run.stdout).toContain('[FILTERED]');
    // The receivers section ended by redacting the card.
    expect(run.stdout).toContain('"transaction_type":"RedactPaymentMethod"');
  }, 120_000);
});
