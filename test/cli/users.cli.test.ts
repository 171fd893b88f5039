import fs from 'node:fs';
import { Agent, request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { runCoffer, startServe, useCofferProcesses, type RunResult } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/** `coffer users …` and the first owner `serve` creates, as an operator sees them. */

vi.setConfig({ testTimeout: 90_000 });
const defer = useCofferProcesses();

function dataDir(): string {
  const temp = tempDir('coffer-users-');
  defer(temp.cleanup);
  return temp.dir;
}

function okJson(result: RunResult): any {
  const context = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  expect(result.code, context).toBe(0);
  expect(result.stdoutLines, context).toHaveLength(1);
  return JSON.parse(result.stdoutLines[0]!);
}

function failed(result: RunResult): string {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderrLines).toHaveLength(1);
  return result.stderrLines[0]!;
}

describe('coffer users', () => {
  it('creates (password on stdin), lists, disables, enables and resets passwords', async () => {
    const dir = dataDir();
    const env = { COFFER_DATA_DIR: dir };
    const init = okJson(await runCoffer(['init', '--json'], env));
    const org = init.organization_token as string;

    const created = okJson(await runCoffer(['users', 'create', '--organization', org, '--email', 'Dev@Example.com', '--role', 'developer', '--password-stdin', '--json'], env, 30_000, 'a long enough password\n'));
    expect(created).toMatchObject({ email: 'dev@example.com', role: 'developer', organization_token: org, disabled: false, two_step: false });
    expect(created.password).toBeUndefined();

    const generated = okJson(await runCoffer(['users', 'create', '--organization', org, '--email', 'ops@example.com', '--role', 'admin', '--json'], env));
    expect(generated.password).toMatch(/^[A-Za-z0-9]{20}$/);

    const list = okJson(await runCoffer(['users', 'list', '--organization', org, '--json'], env));
    expect(list.map((u: { email: string }) => u.email)).toEqual(['dev@example.com', 'ops@example.com']);
    expect(JSON.stringify(list)).not.toContain('password');

    expect(okJson(await runCoffer(['users', 'disable', 'dev@example.com', '--json'], env)).disabled).toBe(true);
    expect(okJson(await runCoffer(['users', 'enable', 'dev@example.com', '--json'], env)).disabled).toBe(false);
    const reset = okJson(await runCoffer(['users', 'reset-password', 'dev@example.com', '--json'], env));
    expect(reset.password).toMatch(/^[A-Za-z0-9]{20}$/);
    const given = okJson(await runCoffer(['users', 'reset-password', 'dev@example.com', '--password-stdin', '--json'], env, 30_000, 'another long password'));
    expect(given.password).toBeUndefined();
  });

  it('fails with one line for a bad role, a short password, a taken email or an unknown user', async () => {
    const dir = dataDir();
    const env = { COFFER_DATA_DIR: dir };
    const org = okJson(await runCoffer(['init', '--json'], env)).organization_token as string;
    expect(failed(await runCoffer(['users', 'create', '--organization', org, '--email', 'a@example.com', '--role', 'boss'], env))).toBe(
      'coffer: --role must be one of owner, admin, developer, viewer (got boss)',
    );
    expect(failed(await runCoffer(['users', 'create', '--organization', org, '--email', 'a@example.com', '--role', 'viewer', '--password-stdin'], env, 30_000, 'short'))).toBe(
      'coffer: Password is too short (minimum is 12 characters)',
    );
    okJson(await runCoffer(['users', 'create', '--organization', org, '--email', 'a@example.com', '--role', 'viewer', '--json'], env));
    expect(failed(await runCoffer(['users', 'create', '--organization', org, '--email', 'A@example.com', '--role', 'viewer'], env))).toBe('coffer: Email is already taken');
    expect(failed(await runCoffer(['users', 'disable', 'nobody@example.com'], env))).toBe('coffer: Unable to find the specified user.');
    expect(failed(await runCoffer(['users', 'create', '--organization', 'nope', '--email', 'b@example.com', '--role', 'viewer'], env))).toBe('coffer: Organization is invalid');
  });
});

describe('the first serve', () => {
  it('prints a portal owner and a generated password once, which sign in to the portal', async () => {
    const dir = dataDir();
    const served = await startServe({ COFFER_DATA_DIR: dir });
    const stderr = served.stderr();
    const email = /^ {2}portal_email +(\S+)$/m.exec(stderr)?.[1];
    const password = /^ {2}portal_password +(\S+)$/m.exec(stderr)?.[1] as string;
    expect(email).toBe('owner@coffer.local');
    expect(password).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(stderr).toContain(`Merchant portal: ${served.url}/portal/`);
    expect(served.stdout()).not.toContain(password);

    const agent = new Agent({ connect: { ca: fs.readFileSync(served.caPath as string, 'utf8') } });
    try {
      const form = await request(`${served.url}/portal/sign-in`, { dispatcher: agent });
      const page = await form.body.text();
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] as string;
      const cookie = String(form.headers['set-cookie']).split(';')[0] as string;
      const body = new URLSearchParams({ _csrf: csrf, email: email as string, password }).toString();
      const signIn = await request(`${served.url}/portal/sign-in`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body,
      });
      await signIn.body.dump();
      expect(signIn.statusCode).toBe(303);
      expect(String(signIn.headers['set-cookie'])).toContain('coffer_session=');
    } finally {
      await agent.close();
    }

    served.kill('SIGTERM');
    await served.exited;
    const second = await startServe({ COFFER_DATA_DIR: dir });
    expect(second.stderr()).not.toContain('portal_password');
  });
});
