import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { runCoffer, startServe, useCofferProcesses, type RunResult, type ServedCoffer } from '../helpers/spawn.js';
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
    // init made the portal owner first, as serve does on an empty database.
    expect(list.map((u: { email: string }) => u.email)).toEqual(['owner@coffer.local', 'dev@example.com', 'ops@example.com']);
    expect(JSON.stringify(list)).not.toContain('password');

    expect(okJson(await runCoffer(['users', 'disable', 'dev@example.com', '--json'], env))).toMatchObject([{ email: 'dev@example.com', organization_token: org, disabled: true }]);
    expect(okJson(await runCoffer(['users', 'enable', 'dev@example.com', '--json'], env))).toMatchObject([{ disabled: false }]);
    const reset = okJson(await runCoffer(['users', 'reset-password', 'dev@example.com', '--json'], env));
    expect(reset.password).toMatch(/^[A-Za-z0-9]{20}$/);
    const given = okJson(await runCoffer(['users', 'reset-password', 'dev@example.com', '--password-stdin', '--json'], env, 30_000, 'another long password'));
    expect(given.password).toBeUndefined();
  });

  it('fails with one line for a bad role, a short password, a member twice or an unknown user', async () => {
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
    expect(failed(await runCoffer(['users', 'create', '--organization', org, '--email', 'A@example.com', '--role', 'viewer'], env))).toBe('coffer: Email is already a member of this organization');
    expect(failed(await runCoffer(['users', 'disable', 'nobody@example.com'], env))).toBe('coffer: Unable to find the specified user.');
    expect(failed(await runCoffer(['users', 'create', '--organization', 'nope', '--email', 'b@example.com', '--role', 'viewer'], env))).toBe('coffer: Organization is invalid');
  });
});

/** Signs in to a served portal with email and password (CSRF cookie and all); the HTTP status. */
async function portalSignIn(served: ServedCoffer, agent: Agent, email: string, password: string): Promise<{ status: number; setCookie: string }> {
  const form = await request(`${served.url}/portal/sign-in`, { dispatcher: agent });
  const page = await form.body.text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] as string;
  const cookie = String(form.headers['set-cookie']).split(';')[0] as string;
  const signIn = await request(`${served.url}/portal/sign-in`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
  await signIn.body.dump();
  return { status: signIn.statusCode, setCookie: String(signIn.headers['set-cookie']) };
}

describe('coffer users across organizations, lockout and second factor', () => {
  it('adds an existing person to a second organization (their password stays theirs), removes one membership, unlocks and resets two-step, audited in each organization', async () => {
    const dir = dataDir();
    const env = { COFFER_DATA_DIR: dir, COFFER_RATE_LIMITS: '{"*":null}' };
    const orgA = okJson(await runCoffer(['init', '--json'], env)).organization_token as string;
    const orgB = okJson(await runCoffer(['organizations', 'create', '--name', 'Bravo', '--json'], env)).token as string;
    const PASSWORD = 'the person own password';
    okJson(await runCoffer(['users', 'create', '--organization', orgA, '--email', 'ops@example.com', '--role', 'admin', '--password-stdin', '--json'], env, 30_000, PASSWORD));
    expect(failed(await runCoffer(['users', 'create', '--organization', orgB, '--email', 'ops@example.com', '--role', 'owner', '--password-stdin'], env, 30_000, 'an operator picked one'))).toBe(
      'coffer: Email already has a portal account: its password stays its own (leave the password out)',
    );
    const second = okJson(await runCoffer(['users', 'create', '--organization', orgB, '--email', 'ops@example.com', '--role', 'owner', '--json'], env));
    expect(second).toMatchObject({ email: 'ops@example.com', organization_token: orgB, role: 'owner', existing_account: true });
    expect(second.password).toBeUndefined();
    const listed = okJson(await runCoffer(['users', 'list', '--json'], env)).filter((u: { email: string }) => u.email === 'ops@example.com');
    expect(listed.map((u: { organization_token: string; role: string }) => [u.organization_token, u.role]).sort()).toEqual([[orgA, 'admin'], [orgB, 'owner']].sort());

    const served = await startServe(env);
    const agent = new Agent({ connect: { ca: fs.readFileSync(served.caPath as string, 'utf8') } });
    try {
      for (let i = 0; i < 10; i += 1) expect((await portalSignIn(served, agent, 'ops@example.com', 'not the password!')).status).toBe(401);
      expect((await portalSignIn(served, agent, 'ops@example.com', PASSWORD)).status).toBe(401);
      expect(okJson(await runCoffer(['users', 'list', '--organization', orgB, '--json'], env))).toMatchObject([{ email: 'ops@example.com', locked: true }]);
      expect(okJson(await runCoffer(['users', 'unlock', 'ops@example.com', '--json'], env))).toEqual({ email: 'ops@example.com', locked: false });
      expect((await portalSignIn(served, agent, 'ops@example.com', PASSWORD)).status).toBe(303);
    } finally {
      await agent.close();
    }
    served.kill('SIGTERM');
    await served.exited;

    expect(okJson(await runCoffer(['users', 'reset-two-step', 'ops@example.com', '--json'], env))).toEqual({ email: 'ops@example.com', two_step: false, sessions_ended: true });
    expect(okJson(await runCoffer(['users', 'remove', 'ops@example.com', '--organization', orgA, '--json'], env))).toEqual({ email: 'ops@example.com', organization_token: orgA, removed: true });
    const after = okJson(await runCoffer(['users', 'list', '--json'], env)).filter((u: { email: string }) => u.email === 'ops@example.com');
    expect(after).toMatchObject([{ organization_token: orgB, role: 'owner' }]);
    expect(failed(await runCoffer(['users', 'remove', 'ops@example.com', '--organization', orgA], env))).toBe('coffer: Unable to find the specified user in that organization.');
    expect(failed(await runCoffer(['users', 'remove', 'ops@example.com', '--organization', orgB], env))).toBe('coffer: The last owner cannot be demoted, disabled or removed');

    const db = new Database(path.join(dir, 'coffer.sqlite'), { readonly: true });
    try {
      const audit = db.prepare("select organization_token as org, actor_type as type, action from audit_events where action in ('user.lock', 'user.unlock', 'user.totp_disable', 'user.remove') order by seq").all();
      expect(audit).toEqual([
        ...[orgA, orgB].map((org) => ({ org, type: 'user', action: 'user.lock' })),
        ...[orgA, orgB].map((org) => ({ org, type: 'operator', action: 'user.unlock' })),
        ...[orgA, orgB].map((org) => ({ org, type: 'operator', action: 'user.totp_disable' })),
        { org: orgA, type: 'operator', action: 'user.remove' },
      ]);
    } finally {
      db.close();
    }
  }, 300_000);
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
      const signIn = await portalSignIn(served, agent, email as string, password);
      expect(signIn.status).toBe(303);
      expect(signIn.setCookie).toContain('coffer_session=');
    } finally {
      await agent.close();
    }

    served.kill('SIGTERM');
    await served.exited;
    const second = await startServe({ COFFER_DATA_DIR: dir });
    expect(second.stderr()).not.toContain('portal_password');
  });
});
