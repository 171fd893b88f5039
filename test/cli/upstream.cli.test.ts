import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCoffer, useCofferProcesses, type RunResult } from '../helpers/spawn.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

/** `coffer upstream set|show|backfill|clear` as an operator runs them, against a second Coffer as the upstream. */

vi.setConfig({ testTimeout: 90_000 });
const defer = useCofferProcesses();

function okJson(result: RunResult): any {
  const context = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  expect(result.code, context).toBe(0);
  return JSON.parse(result.stdoutLines.at(-1)!);
}

function failed(result: RunResult): string {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  return result.stderrLines.join('\n');
}

describe('coffer upstream', () => {
  let up: TestServer;
  beforeAll(async () => {
    up = await startServer({ tls: false });
  }, 60_000);
  afterAll(async () => {
    await up?.close();
  });

  it('sets (secret on stdin), shows without the secret, backfills and clears; refuses bad input in one line', async () => {
    const temp = tempDir('coffer-upstream-');
    defer(temp.cleanup);
    const env = { COFFER_DATA_DIR: temp.dir, COFFER_EGRESS_ALLOW: '127.0.0.0/8' };
    const init = okJson(await runCoffer(['init', '--json'], env));
    const key = init.environment_key as string;
    const url = up.client.baseUrl.replace('localhost', '127.0.0.1');
    const args = ['upstream', 'set', '--environment', key, '--url', url, '--upstream-environment', up.init.environment_key, '--public-url', 'http://127.0.0.1:9', '--json'];

    expect(failed(await runCoffer(args, env, 30_000, 'wrong-secret\n'))).toContain('refused this environment key and access secret');
    expect(failed(await runCoffer(['upstream', 'show', '--environment', key, '--json'], env))).toContain('no upstream');

    const set = okJson(await runCoffer(args, env, 30_000, `${up.init.access_secret}\n`));
    expect(set).toMatchObject({ environment_key: key, url, upstream_environment_key: up.init.environment_key, public_url: 'http://127.0.0.1:9' });
    const shown = await runCoffer(['upstream', 'show', '--environment', key, '--json'], env);
    expect(shown.stdout).not.toContain(up.init.access_secret);
    expect(okJson(shown)).toMatchObject({ url, failed: 0 });

    // An upstream with no retained card: the walk ends at once, done.
    expect(okJson(await runCoffer(['upstream', 'backfill', '--environment', key, '--json'], env))).toMatchObject({ backfill_state: 'done', backfill_seen: 0 });

    expect(okJson(await runCoffer(['upstream', 'clear', '--environment', key, '--json'], env))).toMatchObject({ upstream: null });
    expect(failed(await runCoffer(['upstream', 'clear', '--environment', key, '--json'], env))).toContain('no upstream');
    expect(failed(await runCoffer(['upstream', 'show', '--environment', 'nope', '--json'], env))).toContain('no upstream');
  });
});
