import fs from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import type { Command } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { program } from '../../src/cli.js';
import { runCoffer, startServe, useCofferProcesses, type RunResult } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/** `coffer` as an operator runs it: a child process over the compiled dist/, SQLite in a fresh data dir. */

// Each test runs several short-lived node processes (~1 s each); leave room on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const defer = useCofferProcesses();

function dataDir(): string {
  const temp = tempDir('coffer-cli-');
  defer(temp.cleanup);
  return temp.dir;
}

/** Runs coffer against `dir`, with any extra variables. */
function coffer(dir: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return runCoffer(args, { COFFER_DATA_DIR: dir, ...env });
}

/** Asserts a successful --json command: exit 0, exactly one stdout line holding JSON; returns it parsed. */
function okJson(result: RunResult): any {
  const context = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  expect(result.code, context).toBe(0);
  expect(result.stdoutLines, context).toHaveLength(1);
  return JSON.parse(result.stdoutLines[0]!);
}

/** Asserts a failed command: exit 1, nothing on stdout, exactly one `coffer:` line on stderr; returns that line. */
function failedWithOneLine(result: RunResult): string {
  const context = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  expect(result.code, context).toBe(1);
  expect(result.stdout, context).toBe('');
  expect(result.stderrLines, context).toHaveLength(1);
  expect(result.stderr.endsWith('\n'), context).toBe(true);
  expect(result.stderrLines[0]!, context).toMatch(/^coffer: \S/);
  return result.stderrLines[0]!;
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('coffer init', () => {
  it('prints the credentials once as one JSON line, then refuses a second init', async () => {
    const dir = dataDir();
    const first = okJson(await coffer(dir, ['init', '--json']));
    // The portal owner too, as serve makes it on an empty database (README, "The `coffer` CLI").
    expect(Object.keys(first).sort()).toEqual(['access_secret', 'access_secret_key', 'environment_key', 'organization_token', 'portal_email', 'portal_password']);
    expect(first.portal_email).toBe('owner@coffer.local');
    for (const value of Object.values(first)) {
      expect(typeof value).toBe('string');
      expect((value as string).length).toBeGreaterThan(0);
    }

    const second = await coffer(dir, ['init']);
    const line = failedWithOneLine(second);
    expect(line).toMatch(/already holds organizations/);

    const secondJson = await coffer(dir, ['init', '--json']);
    failedWithOneLine(secondJson);
  });
});

describe('coffer organizations', () => {
  it('creates, lists, deactivates and activates organizations', async () => {
    const dir = dataDir();
    const init = okJson(await coffer(dir, ['init', '--json']));

    const acme = okJson(await coffer(dir, ['organizations', 'create', '--name', 'Acme', '--json']));
    expect(acme).toMatchObject({ name: 'Acme', active: true });
    expect(typeof acme.token).toBe('string');
    expect(acme.token).not.toBe(init.organization_token);

    const list = okJson(await coffer(dir, ['organizations', 'list', '--json']));
    expect(Array.isArray(list)).toBe(true);
    expect(list).toHaveLength(2);
    expect(list).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ token: init.organization_token, name: 'default', active: true }),
        expect.objectContaining({ token: acme.token, name: 'Acme', active: true }),
      ]),
    );

    const deactivated = okJson(await coffer(dir, ['organizations', 'deactivate', acme.token, '--json']));
    expect(deactivated).toMatchObject({ token: acme.token, name: 'Acme', active: false });
    const afterDeactivate = okJson(await coffer(dir, ['organizations', 'list', '--json']));
    expect(afterDeactivate.find((row: any) => row.token === acme.token).active).toBe(false);
    expect(afterDeactivate.find((row: any) => row.token === init.organization_token).active).toBe(true);

    const activated = okJson(await coffer(dir, ['organizations', 'activate', acme.token, '--json']));
    expect(activated).toMatchObject({ token: acme.token, active: true });
    const afterActivate = okJson(await coffer(dir, ['organizations', 'list', '--json']));
    expect(afterActivate.find((row: any) => row.token === acme.token).active).toBe(true);
  });

  it('fails with one stderr line for an unknown organization token', async () => {
    const dir = dataDir();
    okJson(await coffer(dir, ['init', '--json']));
    const line = failedWithOneLine(await coffer(dir, ['organizations', 'deactivate', 'NoSuchOrganization', '--json']));
    expect(line).toContain('NoSuchOrganization');
    failedWithOneLine(await coffer(dir, ['organizations', 'activate', 'NoSuchOrganization']));
  });

  it('prints a human-readable list without --json', async () => {
    const dir = dataDir();
    okJson(await coffer(dir, ['init', '--json']));
    const acme = okJson(await coffer(dir, ['organizations', 'create', '--name', 'Acme', '--json']));
    const result = await coffer(dir, ['organizations', 'list']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^name +Acme$/m);
    expect(result.stdout).toMatch(/^name +default$/m);
    expect(result.stdout).toMatch(new RegExp(`^token +${acme.token}$`, 'm'));
    expect(() => JSON.parse(result.stdout)).toThrow();
  });
});

describe('coffer environments', () => {
  it('creates a production environment and lists it', async () => {
    const dir = dataDir();
    const init = okJson(await coffer(dir, ['init', '--json']));
    const org = init.organization_token as string;

    const prod = okJson(await coffer(dir, ['environments', 'create', '--organization', org, '--name', 'prod', '--production', '--json']));
    expect(prod).toMatchObject({ organization_token: org, name: 'prod', production: true });
    expect(typeof prod.environment_key).toBe('string');
    expect(prod.environment_key.length).toBeGreaterThan(0);

    const staging = okJson(await coffer(dir, ['environments', 'create', '--organization', org, '--name', 'staging', '--json']));
    expect(staging).toMatchObject({ name: 'staging', production: false });

    const list = okJson(await coffer(dir, ['environments', 'list', '--organization', org, '--json']));
    expect(list.map((row: any) => row.environment_key).sort()).toEqual([init.environment_key, prod.environment_key, staging.environment_key].sort());
    expect(list.find((row: any) => row.environment_key === prod.environment_key)).toMatchObject({ name: 'prod', production: true });
    expect(list.find((row: any) => row.environment_key === init.environment_key)).toMatchObject({ name: 'sandbox', production: false });
  });

  it('fails with one stderr line for an unknown organization', async () => {
    const dir = dataDir();
    okJson(await coffer(dir, ['init', '--json']));
    const line = failedWithOneLine(await coffer(dir, ['environments', 'create', '--organization', 'NoSuchOrganization', '--name', 'prod', '--json']));
    expect(line).toContain('NoSuchOrganization');
  });
});

describe('coffer access-secrets', () => {
  it('creates a read secret, lists it without the secret, revokes it once', async () => {
    const dir = dataDir();
    const init = okJson(await coffer(dir, ['init', '--json']));
    const org = init.organization_token as string;

    const created = okJson(
      await coffer(dir, ['access-secrets', 'create', '--organization', org, '--environment', init.environment_key, '--role', 'read', '--json']),
    );
    expect(Object.keys(created).sort()).toEqual(['access_secret', 'access_secret_key']);
    expect(created.access_secret.length).toBeGreaterThan(0);
    expect(created.access_secret_key.length).toBeGreaterThan(0);

    const listRun = await coffer(dir, ['access-secrets', 'list', '--json']);
    const list = okJson(listRun);
    const row = list.find((entry: any) => entry.access_secret_key === created.access_secret_key);
    expect(row).toMatchObject({ organization_token: org, role: 'read', revoked: false, environments: [init.environment_key] });
    expect(list.find((entry: any) => entry.access_secret_key === init.access_secret_key)).toMatchObject({ role: 'admin', environments: 'all' });
    // No secret value, in any field of any row, in any output form.
    expect(listRun.stdout).not.toContain(created.access_secret);
    expect(listRun.stdout).not.toContain(init.access_secret);
    for (const entry of list) expect(Object.keys(entry)).not.toContain('access_secret');
    const human = await coffer(dir, ['access-secrets', 'list', '--organization', org]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(created.access_secret_key);
    expect(human.stdout).not.toContain(created.access_secret);

    const revoked = okJson(await coffer(dir, ['access-secrets', 'revoke', created.access_secret_key, '--json']));
    expect(revoked).toEqual({ access_secret_key: created.access_secret_key, revoked: true });
    const afterRevoke = okJson(await coffer(dir, ['access-secrets', 'list', '--json']));
    expect(afterRevoke.find((entry: any) => entry.access_secret_key === created.access_secret_key).revoked).toBe(true);

    const again = failedWithOneLine(await coffer(dir, ['access-secrets', 'revoke', created.access_secret_key, '--json']));
    expect(again).toContain(created.access_secret_key);
  });

  it('refuses an unknown role with one stderr line and creates nothing', async () => {
    const dir = dataDir();
    const init = okJson(await coffer(dir, ['init', '--json']));
    const line = failedWithOneLine(
      await coffer(dir, ['access-secrets', 'create', '--organization', init.organization_token, '--role', 'bogus', '--json']),
    );
    expect(line).toContain('bogus');
    const list = okJson(await coffer(dir, ['access-secrets', 'list', '--json']));
    expect(list).toHaveLength(1);
  });
});

describe('coffer migrate', () => {
  it('has nothing left to apply after init; refuses a data dir without a database', async () => {
    const dir = dataDir();
    const line = failedWithOneLine(await coffer(dir, ['migrate', '--json']));
    expect(line).toContain(`no database at ${path.join(dir, 'coffer.sqlite')}`);
    expect(fs.readdirSync(dir)).toEqual([]);
    okJson(await coffer(dir, ['init', '--json']));
    expect(fs.existsSync(path.join(dir, 'coffer.sqlite'))).toBe(true);
    const second = okJson(await coffer(dir, ['migrate', '--json']));
    expect(second).toEqual({ applied: 'none' });
  });
});

describe('only init and serve create a database', () => {
  it('every other command, run where there is none, says where it looked, exits 1 and creates nothing', async () => {
    const parent = dataDir();
    const dir = path.join(parent, 'data');
    for (const args of [['organizations', 'list'], ['organizations', 'create', '--name', 'A', '--json'], ['access-secrets', 'list'], ['users', 'list'], ['keys', 'rotate-master']]) {
      const line = failedWithOneLine(await coffer(dir, args));
      expect(line).toBe(`coffer: no database at ${path.join(dir, 'coffer.sqlite')} (data directory ${dir}); run \`coffer init\` (or \`coffer serve\`) first, or set COFFER_DATA_DIR / COFFER_DATABASE_URL`);
      expect(fs.existsSync(dir)).toBe(false);
    }
    // A database without its local master key is not given a new one.
    okJson(await coffer(dir, ['init', '--json']));
    fs.rmSync(path.join(dir, 'master.key'));
    const line = failedWithOneLine(await coffer(dir, ['organizations', 'list']));
    expect(line).toContain(`no master key: COFFER_MASTER_KEY is not set and ${path.join(dir, 'master.key')} does not exist`);
    expect(fs.existsSync(path.join(dir, 'master.key'))).toBe(false);
  }, 240_000);
});

describe('coffer --version and help', () => {
  it('prints the package version', async () => {
    const manifest = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-V']) {
      const result = await coffer(dataDir(), [flag]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${manifest.version}\n`);
    }
  });

  it('answers --help from bin/coffer with the commands', async () => {
    const result = await coffer(dataDir(), ['--help']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Usage: coffer');
    for (const name of ['serve', 'init', 'organizations', 'environments', 'access-secrets']) expect(result.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });

  // The walk builds the same commander program in this process (one spawn per command would
  // cost a Node start each); the spawn above shows bin/coffer prints that program's help.
  it('describes every command and subcommand, and every option', () => {
    const undescribed: string[] = [];
    const visit = (command: Command, words: string[]): void => {
      for (const option of command.options) if (option.description === '') undescribed.push(`${words.join(' ')} ${option.flags}`);
      expect(command.helpInformation()).toContain(`Usage: ${['coffer', ...words.slice(1)].join(' ')}`);
      for (const sub of command.commands) {
        if (sub.name() === 'help') continue;
        if (sub.description() === '') undescribed.push([...words, sub.name()].join(' '));
        visit(sub, [...words, sub.name()]);
      }
    };
    const root = program();
    expect(root.commands.length).toBeGreaterThan(5);
    visit(root, ['coffer']);
    expect(undescribed).toEqual([]);
  });
});

describe('invalid configuration', () => {
  it.each([
    ['COFFER_PORT', 'abc'],
    ['COFFER_MASTER_KEY', 'short'],
    ['COFFER_DATABASE_URL', 'mysql://x'],
  ])('%s=%s fails with one stderr line naming the variable', async (variable, value) => {
    const dir = dataDir();
    const line = failedWithOneLine(await coffer(dir, ['init'], { [variable]: value }));
    expect(line).toContain(variable);
    // Nothing was initialised.
    expect(fs.existsSync(path.join(dir, 'coffer.sqlite'))).toBe(false);
  });
});

describe('coffer serve', () => {
  it('initialises an empty database once, serves HTTPS with its local CA and stops on SIGTERM', async () => {
    const dir = dataDir();
    const first = await startServe({ COFFER_DATA_DIR: dir });
    expect(first.init, first.stderr()).not.toBeNull();
    for (const value of Object.values(first.init!)) expect(value.length).toBeGreaterThan(0);
    // The block is printed exactly once.
    expect(first.stderr().match(/^ {2}access_secret +\S+$/gm)).toHaveLength(1);
    const caPath = path.join(dir, 'tls', 'ca.pem');
    expect(first.caPath).toBe(caPath);
    expect(first.stderr()).toContain(caPath);
    expect(first.url).toMatch(/^https:\/\//);
    expect(first.port).toBeGreaterThan(0);
    // The access secret is never written to the logs.
    expect(first.stdout()).not.toContain(first.init!.access_secret);

    const ca = fs.readFileSync(caPath, 'utf8');
    const agent = new Agent({ connect: { ca } });
    try {
      const health = await request(`${first.url}/healthz`, { dispatcher: agent });
      expect(health.statusCode).toBe(200);
      expect(await health.body.json()).toEqual({ status: 'ok' });

      const gateways = await request(`${first.url}/v1/gateways.json`, {
        dispatcher: agent,
        headers: { authorization: basic(first.init!.environment_key, first.init!.access_secret) },
      });
      expect(gateways.statusCode).toBe(200);
      await gateways.body.dump();
    } finally {
      await agent.close();
    }

    expect(first.kill('SIGTERM')).toBe(true);
    expect(await first.exited).toBe(0);
    expect(first.stdout()).not.toContain(first.init!.access_secret);

    const second = await startServe({ COFFER_DATA_DIR: dir });
    expect(second.init).toBeNull();
    expect(second.stderr()).not.toMatch(/access_secret/);
    expect(second.stderr()).not.toMatch(/initialised/);
    expect(second.caPath).toBe(caPath);
    // Same CA as before: clients trust it once.
    const secondAgent = new Agent({ connect: { ca } });
    try {
      const health = await request(`${second.url}/healthz`, { dispatcher: secondAgent });
      expect(health.statusCode).toBe(200);
      await health.body.dump();
    } finally {
      await secondAgent.close();
    }
    second.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('starts the metrics listener of COFFER_METRICS_PORT on 127.0.0.1, logs where, and stops it on SIGTERM', async () => {
    const served = await startServe({ COFFER_DATA_DIR: dataDir(), COFFER_METRICS_PORT: '0' });
    // The log line (stdout) may arrive after the start-up lines (stderr).
    for (let waited = 0; !served.stdout().includes('"metrics listening"') && waited < 5000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    const line = served
      .stdout()
      .split('\n')
      .filter((text) => text.includes('"metrics listening"'))
      .map((text) => JSON.parse(text) as { url: string });
    expect(line).toHaveLength(1);
    const url = (line[0] as { url: string }).url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const response = await request(url);
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toMatch(/^coffer_process_cpu_user_seconds_total \d/m);
    served.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    await expect(request(url)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('accepts an access secret created with the CLI, and rejects it once revoked', async () => {
    const dir = dataDir();
    const init = okJson(await coffer(dir, ['init', '--json']));
    const before = okJson(
      await coffer(dir, ['access-secrets', 'create', '--organization', init.organization_token, '--environment', init.environment_key, '--role', 'read', '--json']),
    );

    const served = await startServe({ COFFER_DATA_DIR: dir });
    expect(served.init).toBeNull();
    // Created while the server runs: visible without a restart.
    const during = okJson(
      await coffer(dir, ['access-secrets', 'create', '--organization', init.organization_token, '--role', 'read', '--json']),
    );
    const agent = new Agent({ connect: { ca: fs.readFileSync(path.join(dir, 'tls', 'ca.pem'), 'utf8') } });
    const get = async (user: string, password: string) => {
      const response = await request(`${served.url}/v1/gateways.json`, { dispatcher: agent, headers: { authorization: basic(user, password) } });
      const text = await response.body.text();
      return { status: response.statusCode, text };
    };
    try {
      for (const secret of [before, during]) {
        const ok = await get(init.environment_key, secret.access_secret);
        expect(ok.status, ok.text).toBe(200);
        expect(JSON.parse(ok.text)).toEqual({ gateways: [] });
      }
      const wrong = await get(init.environment_key, `${before.access_secret}x`);
      expect(wrong.status).toBe(401);

      okJson(await coffer(dir, ['access-secrets', 'revoke', before.access_secret_key, '--json']));
      const revoked = await get(init.environment_key, before.access_secret);
      expect(revoked.status).toBe(401);
      const stillOk = await get(init.environment_key, during.access_secret);
      expect(stillOk.status).toBe(200);
    } finally {
      await agent.close();
    }
    served.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });
});
