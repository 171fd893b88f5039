import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCoffer, startServe, useCofferProcesses, type RunResult } from '../helpers/spawn.js';
import { SOFTHSM_MODULE, startSoftHsm, type SoftHsm, describeWithSoftHsm } from '../helpers/softhsm.js';
import { tempDir } from '../helpers/temp.js';

/** The key custody commands as an operator runs them (docs/key-custody.md): init --key-shares, unseal, master-key. */

vi.setConfig({ testTimeout: 90_000 });

const defer = useCofferProcesses();

function dataDir(): string {
  const temp = tempDir('coffer-custody-cli-');
  defer(temp.cleanup);
  return temp.dir;
}

function okJson(result: RunResult): any {
  const context = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  expect(result.code, context).toBe(0);
  expect(result.stdoutLines, context).toHaveLength(1);
  return JSON.parse(result.stdoutLines[0]!);
}

function failedWithOneLine(result: RunResult): string {
  const context = `code ${result.code} signal ${result.signal}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  expect(result.code, context).toBe(1);
  expect(result.stdout, context).toBe('');
  expect(result.stderrLines.filter((line) => line.startsWith('coffer: ')), context).toHaveLength(1);
  return result.stderrLines.at(-1)!;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('shares: coffer init --key-shares, a sealed serve, coffer unseal', () => {
  it('splits, serves sealed, refuses a wrong share, unseals with M, and CLI commands read shares from stdin', async () => {
    const dir = dataDir();
    const unsealPort = await freePort();
    const env = { COFFER_DATA_DIR: dir, COFFER_MASTER_KEY_PROVIDER: 'shares', COFFER_TLS: 'off', COFFER_UNSEAL_PORT: String(unsealPort) };

    failedWithOneLine(await runCoffer(['init', '--key-shares', '3', '--threshold', '2'], { COFFER_DATA_DIR: dataDir() }));
    expect(failedWithOneLine(await runCoffer(['init', '--key-shares', '3', '--threshold', '1'], env))).toMatch(/M at least 2/);

    const init = await runCoffer(['init', '--key-shares', '3', '--threshold', '2', '--json'], env);
    const credentials = okJson(init);
    const shares = [...init.stderr.matchAll(/^ {2}share \d+ {2}([0-9a-f]{66})$/gm)].map((match) => match[1]!);
    expect(shares).toHaveLength(3);
    expect(fs.existsSync(path.join(dir, 'master.key'))).toBe(false);
    // A second split is refused (it would orphan the first).
    expect(failedWithOneLine(await runCoffer(['init', '--key-shares', '3', '--threshold', '2'], env))).toMatch(/split master key already/);

    const served = await startServe(env);
    const auth = { authorization: basic(credentials.environment_key, credentials.access_secret) };
    const sealedAnswer = await request(`${served.url}/v1/gateways.json`, { headers: auth });
    expect(sealedAnswer.statusCode).toBe(503);
    expect(((await sealedAnswer.body.json()) as any).errors[0].key).toBe('errors.vault_sealed');
    const ready = await request(`${served.url}/readyz`);
    expect(ready.statusCode).toBe(503);
    expect(await ready.body.json()).toMatchObject({ status: 'sealed', unseal: { submitted: 0, threshold: 2 } });
    expect(served.stdout() + served.stderr()).toContain('vault sealed');

    const wrong = await runCoffer(['unseal'], env, 30_000, `${'cd'.repeat(33)}\n`);
    expect(failedWithOneLine(wrong)).toMatch(/does not belong to the master key/);
    expect(wrong.stderr).not.toContain('cd'.repeat(33));
    expect(okJson(await runCoffer(['unseal', '--status', '--json'], env))).toMatchObject({ sealed: true, submitted: 0 });
    expect(okJson(await runCoffer(['unseal', '--json'], env, 30_000, `${shares[2]}\n`))).toMatchObject({ sealed: true, submitted: 1, threshold: 2 });
    expect(okJson(await runCoffer(['unseal', '--json'], env, 30_000, `${shares[0]}\n`))).toMatchObject({ sealed: false });
    const open = await request(`${served.url}/v1/gateways.json`, { headers: auth });
    expect(open.statusCode).toBe(200);
    await open.body.dump();
    for (const share of shares) expect(served.stderr() + served.stdout()).not.toContain(share);

    // Another command on this installation needs the key too: shares on its standard input.
    expect(failedWithOneLine(await runCoffer(['organizations', 'list', '--json'], env, 30_000, `${shares[1]}\n`))).toMatch(/ended before 2 valid key shares/);
    const listed = okJson(await runCoffer(['organizations', 'list', '--json'], env, 30_000, `${shares[1]}\n${shares[2]}\n`));
    expect(listed).toHaveLength(1);

    // Move to the file provider, online (the server keeps running); then a file node serves.
    const moved = okJson(await runCoffer(['master-key', 'rotate', '--to', 'file', '--json'], env, 30_000, `${shares[0]}\n${shares[1]}\n`));
    expect(moved).toMatchObject({ to: 'file', remaining: 0 });
    expect(moved.rewrapped).toBeGreaterThanOrEqual(1);
    expect((await request(`${served.url}/v1/gateways.json`, { headers: auth })).statusCode).toBe(200);
    served.kill();
    await served.exited;
    expect(okJson(await runCoffer(['organizations', 'list', '--json'], { COFFER_DATA_DIR: dir }))).toHaveLength(1);
  });
});

describe('coffer master-key rotate --to shares', () => {
  it('splits a new key, prints its shares once, moves every key onto it; the installation then needs M shares', async () => {
    const dir = dataDir();
    okJson(await runCoffer(['init', '--json'], { COFFER_DATA_DIR: dir }));
    expect(failedWithOneLine(await runCoffer(['master-key', 'rotate', '--to', 'shares'], { COFFER_DATA_DIR: dir }))).toMatch(/needs --key-shares N --threshold M/);
    expect(failedWithOneLine(await runCoffer(['master-key', 'rotate', '--to', 'vault'], { COFFER_DATA_DIR: dir }))).toMatch(/--to must be one of/);
    const moved = await runCoffer(['master-key', 'rotate', '--to', 'shares', '--key-shares', '3', '--threshold', '2', '--json'], { COFFER_DATA_DIR: dir });
    expect(okJson(moved)).toMatchObject({ to: 'shares', remaining: 0 });
    const shares = [...moved.stderr.matchAll(/^ {2}share \d+ {2}([0-9a-f]{66})$/gm)].map((match) => match[1]!);
    expect(shares).toHaveLength(3);
    const env = { COFFER_DATA_DIR: dir, COFFER_MASTER_KEY_PROVIDER: 'shares' };
    expect(okJson(await runCoffer(['access-secrets', 'list', '--json'], env, 30_000, `${shares[0]}\n${shares[2]}\n`))).toHaveLength(1);
    // The move is on record (docs/key-custody.md, "Rotation record"); a bad --limit is refused first.
    expect(failedWithOneLine(await runCoffer(['master-key', 'history', '--limit', '0'], env))).toMatch(/--limit must be a whole number from 1 to 1000/);
    const history = okJson(await runCoffer(['master-key', 'history', '--json'], env, 30_000, `${shares[1]}\n${shares[2]}\n`)) as Array<Record<string, unknown>>;
    expect(history).toEqual([expect.objectContaining({ kind: 'move', to: 'shares', remaining: 0, outcome: 'completed', problem: null })]);
    expect(history[0]?.rewrapped).toBeGreaterThanOrEqual(1);
    // The file key no longer opens anything.
    expect(failedWithOneLine(await runCoffer(['access-secrets', 'list'], { COFFER_DATA_DIR: dir }))).toMatch(/does not match the master key/);
  });
});

describeWithSoftHsm('pkcs11: coffer master-key create-hsm-key, init and rotate', () => {
  let hsm: SoftHsm;
  beforeAll(() => {
    hsm = startSoftHsm([{ label: 'coffer-cli', pin: '5555' }]);
  });
  afterAll(() => hsm.cleanup());

  it('creates the key once, initialises on it with no key file, and moves to and from it', async () => {
    const dir = dataDir();
    const hsmEnv = { COFFER_PKCS11_MODULE: SOFTHSM_MODULE, COFFER_PKCS11_TOKEN_LABEL: 'coffer-cli', COFFER_PKCS11_PIN_FILE: hsm.pinFile('5555'), SOFTHSM2_CONF: hsm.conf };
    const env = { COFFER_DATA_DIR: dir, COFFER_MASTER_KEY_PROVIDER: 'pkcs11', ...hsmEnv };
    expect(failedWithOneLine(await runCoffer(['master-key', 'create-hsm-key'], { COFFER_DATA_DIR: dir }))).toMatch(/COFFER_PKCS11_PIN_FILE/);
    const created = okJson(await runCoffer(['master-key', 'create-hsm-key', '--json'], env));
    expect(created).toMatchObject({ key_label: 'coffer-master-key', token: 'token labelled "coffer-cli"' });
    expect(created.master_key_id).toMatch(/^pkcs11-[0-9a-f]{16}$/);
    expect(failedWithOneLine(await runCoffer(['master-key', 'create-hsm-key'], env))).toMatch(/already exists/);

    const init = okJson(await runCoffer(['init', '--json'], env));
    expect(fs.existsSync(path.join(dir, 'master.key'))).toBe(false);
    // A command that needs a key (the secret's hash key) cannot log in: one line naming the return code, never the PIN.
    const wrongPin = await runCoffer(['access-secrets', 'create', '--organization', init.organization_token], { ...env, COFFER_PKCS11_PIN_FILE: hsm.pinFile('0000') });
    expect(failedWithOneLine(wrongPin)).toMatch(/CKR_PIN_INCORRECT/);
    expect(wrongPin.stderr).not.toContain('0000');

    expect(okJson(await runCoffer(['master-key', 'rotate', '--to', 'file', '--json'], env))).toMatchObject({ to: 'file', remaining: 0 });
    expect(fs.existsSync(path.join(dir, 'master.key'))).toBe(true);
    const unreachable = await runCoffer(['master-key', 'rotate', '--to', 'pkcs11'], { COFFER_DATA_DIR: dir, ...hsmEnv, COFFER_PKCS11_PIN_FILE: hsm.pinFile('0001') });
    expect(failedWithOneLine(unreachable)).toMatch(/the HSM cannot be reached: CKR_PIN_INCORRECT/);
    const back = okJson(await runCoffer(['master-key', 'rotate', '--to', 'pkcs11', '--json'], { COFFER_DATA_DIR: dir, ...hsmEnv }));
    expect(back).toMatchObject({ to: 'pkcs11', master_key_id: created.master_key_id, remaining: 0 });
    expect(okJson(await runCoffer(['organizations', 'list', '--json'], env))).toHaveLength(1);
  });
});
