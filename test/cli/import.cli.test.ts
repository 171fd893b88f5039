import fs from 'node:fs';
import path from 'node:path';
import * as openpgp from 'openpgp';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createPostgresDatabase, storeKinds } from '../helpers/postgres.js';
import { runCoffer, useCofferProcesses, type RunResult } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/** `coffer import-key` and `coffer import FILE`, as an operator runs them, on SQLite and PostgreSQL. */

vi.setConfig({ testTimeout: 180_000 });
const defer = useCofferProcesses();
const drops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

const VISA = '4111111111111111';
const MASTER = '5555555555554444';

function okJson(result: RunResult): any {
  const context = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  expect(result.code, context).toBe(0);
  return JSON.parse(result.stdoutLines[result.stdoutLines.length - 1]!);
}

describe.each(storeKinds)('coffer import (%s)', (store) => {
  async function setup(): Promise<{ env: Record<string, string>; environmentKey: string; dir: string }> {
    const temp = tempDir('coffer-import-');
    defer(temp.cleanup);
    const env: Record<string, string> = { COFFER_DATA_DIR: temp.dir };
    if (store === 'postgres') {
      const database = await createPostgresDatabase();
      drops.push(database.drop);
      env.COFFER_DATABASE_URL = database.url;
    }
    const init = okJson(await runCoffer(['init', '--json'], env));
    return { env, environmentKey: init.environment_key as string, dir: temp.dir };
  }

  it('imports a file with a report, again without duplicates, writes the token map, and prints the import key', async () => {
    const { env, environmentKey, dir } = await setup();
    const file = path.join(dir, 'cards.jsonl');
    const lines = [
      { token: 'CliTokenOne1', credit_card: { number: VISA, month: 1, year: 2040, first_name: 'A', last_name: 'B' } },
      { token: 'not-a-fitting-token', credit_card: { number: MASTER, month: 1, year: 2040 } },
      { token: 'CliTokenThree3', credit_card: { number: VISA, month: 1, year: 2040, verification_value: '123' } },
    ];
    fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const map = path.join(dir, 'map.csv');
    const first = okJson(await runCoffer(['import', '--environment', environmentKey, file, '--map', map, '--json'], env));
    expect(first).toMatchObject({ state: 'succeeded', format: 'jsonl', rows: 3, imported: 2, skipped: 0, rejected: 1, rejections: [{ row: 3, reason: 'cvv_present' }] });
    const newToken = first.remapped[0].new_token as string;
    expect(fs.readFileSync(map, 'utf8')).toBe(`row,old_token,new_token\n2,not-a-fitting-token,${newToken}\n`);
    const again = okJson(await runCoffer(['import', '--environment', environmentKey, file, '--json'], env));
    expect(again).toMatchObject({ imported: 0, skipped: 2, rejected: 1 });
    // The human report: counts and rows, never a card number.
    const text = await runCoffer(['import', '--environment', environmentKey, file], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('rejected  row 3  cvv_present  credit_card.verification_value');
    expect(text.stdout).toContain(`new token  row 2  not-a-fitting-token -> ${newToken}`);
    for (const output of [first, again].map((result) => JSON.stringify(result)).concat([text.stdout, text.stderr])) {
      expect(output).not.toContain(VISA);
      expect(output).not.toContain(MASTER);
    }

    const key = await runCoffer(['import-key', '--environment', environmentKey], env);
    expect(key.code, key.stderr).toBe(0);
    expect(key.stdout).toMatch(/^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    const encrypted = await openpgp.encrypt({
      message: await openpgp.createMessage({ text: JSON.stringify({ token: 'CliTokenPgp1', credit_card: { number: MASTER, month: 2, year: 2041 } }) }),
      encryptionKeys: await openpgp.readKey({ armoredKey: key.stdout }),
    });
    const encryptedFile = path.join(dir, 'cards.jsonl.asc');
    fs.writeFileSync(encryptedFile, encrypted as string);
    expect(okJson(await runCoffer(['import', '--environment', environmentKey, encryptedFile, '--json'], env))).toMatchObject({ encrypted: true, imported: 1 });
  });

  it('fails with the reason for a refused file, an unknown environment or a bad option', async () => {
    const { env, environmentKey, dir } = await setup();
    const csv = path.join(dir, 'cards.csv');
    fs.writeFileSync(csv, `token,number,pin\nA1,${VISA},1234\n`);
    const refused = await runCoffer(['import', '--environment', environmentKey, csv], env);
    expect(refused.code).toBe(1);
    expect(refused.stderrLines[refused.stderrLines.length - 1]).toBe('coffer: Unknown CSV column(s): "pin"');
    expect(refused.stdout + refused.stderr).not.toContain(VISA);
    const unknown = await runCoffer(['import', '--environment', 'nope', csv], env);
    expect(unknown.code).toBe(1);
    expect((await runCoffer(['import', '--environment', environmentKey, '--format', 'xml', csv], env)).stderrLines).toEqual(['coffer: --format must be jsonl or csv']);
    expect((await runCoffer(['import', '--environment', environmentKey, path.join(dir, 'missing.jsonl')], env)).stderrLines).toEqual([`coffer: cannot read ${path.join(dir, 'missing.jsonl')}`]);
  });
});
