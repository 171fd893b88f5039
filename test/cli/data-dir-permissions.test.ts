import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureLocalTls } from '../../src/http/tls/local-ca.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { resolveMasterKey } from '../../src/vault/master-key.js';
import { ensureBuilt, killAllServed, startServe, type ServedCoffer } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/*
 * docs/deployment.md, "File permissions": the data directory holds the database and its WAL
 * (password hashes, personal data, the audit log), the master key and the TLS keys. A fresh
 * `coffer serve` makes the directory 0700 and every file in it 0600, whatever the umask it was
 * started with; what is found wider at start is named in a WARN line with the fix.
 */

const EXPECTED_FILES = ['coffer.sqlite', 'coffer.sqlite-shm', 'coffer.sqlite-wal', 'master.key', 'tls/ca-key.pem', 'tls/ca.pem', 'tls/server-key.pem', 'tls/server.pem'];

/** Every directory and file under `root` (root included) with its permission bits, by relative path. */
function modes(root: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (current: string) => {
    const stat = fs.lstatSync(current);
    out[path.relative(root, current) || '.'] = stat.mode & 0o777;
    if (stat.isDirectory()) for (const name of fs.readdirSync(current)) walk(path.join(current, name));
  };
  walk(root);
  return out;
}

/** The modes an operator must see: 0700 for directories, 0600 for files. */
function expectPrivate(root: string): void {
  for (const [name, mode] of Object.entries(modes(root))) {
    const directory = fs.lstatSync(path.join(root, name)).isDirectory();
    expect(`${name} ${mode.toString(8)}`).toBe(`${name} ${directory ? '700' : '600'}`);
  }
}

/** Runs `work` with the process umask set to `mask` (the child inherits it at spawn), then restores it. */
async function withUmask<T>(mask: number, work: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask);
  try {
    return await work();
  } finally {
    process.umask(previous);
  }
}

/**
 * Pino's WARN lines (level 40) on the server's stdout that carry a permission fix, once its
 * "listening" line (logged after them) has arrived: pino writes asynchronously.
 */
async function permissionWarnings(served: ServedCoffer): Promise<Array<{ path: string; mode: string; expected: string; fix: string; msg: string }>> {
  for (let waited = 0; !served.stdout().includes('"msg":"listening"'); waited += 50) {
    if (waited > 10_000) throw new Error(`no "listening" log line:\n${served.stdout()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return served
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.level === 40 && typeof entry.fix === 'string');
}

async function stop(served: ServedCoffer): Promise<void> {
  served.kill('SIGTERM');
  expect(await served.exited).toBe(0);
}

describe('the data directory is private to Coffer', () => {
  const temp = tempDir();
  beforeAll(() => ensureBuilt(), 180_000);
  afterEach(() => killAllServed());
  afterAll(() => temp.cleanup());

  it('a fresh serve, started with umask 000, makes the directory 0700 and every file 0600, and again after a restart', async () => {
    const dataDir = path.join(temp.dir, 'fresh', 'data');
    const served = await withUmask(0o000, () => startServe({ COFFER_DATA_DIR: dataDir }));
    expect(Object.keys(modes(dataDir))).toEqual(expect.arrayContaining(EXPECTED_FILES));
    expectPrivate(dataDir);
    expect(await permissionWarnings(served)).toEqual([]);
    await stop(served);
    expectPrivate(dataDir);
    // SQLite makes its -wal and -shm again on the next open.
    const again = await withUmask(0o000, () => startServe({ COFFER_DATA_DIR: dataDir }));
    expect(Object.keys(modes(dataDir))).toEqual(expect.arrayContaining(['coffer.sqlite-wal', 'coffer.sqlite-shm']));
    expectPrivate(dataDir);
    expect(await permissionWarnings(again)).toEqual([]);
    await stop(again);
  });

  it('warns at start, naming each path, its mode and the fix, when the directory or files are wider', async () => {
    const dataDir = path.join(temp.dir, 'older', 'data');
    await stop(await startServe({ COFFER_DATA_DIR: dataDir }));
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(path.join(dataDir, 'coffer.sqlite'), 0o644);
    fs.chmodSync(path.join(dataDir, 'master.key'), 0o640);
    fs.chmodSync(path.join(dataDir, 'tls'), 0o750);
    fs.chmodSync(path.join(dataDir, 'tls', 'server-key.pem'), 0o604);
    const served = await startServe({ COFFER_DATA_DIR: dataDir });
    const warnings = await permissionWarnings(served);
    expect(warnings.map(({ path: file, mode, expected, fix }) => ({ file, mode, expected, fix }))).toEqual([
      { file: dataDir, mode: '0755', expected: '0700', fix: `chmod 700 '${dataDir}'` },
      { file: path.join(dataDir, 'coffer.sqlite'), mode: '0644', expected: '0600', fix: `chmod 600 '${path.join(dataDir, 'coffer.sqlite')}'` },
      // SQLite made the WAL again with the database file's mode.
      { file: path.join(dataDir, 'coffer.sqlite-shm'), mode: '0644', expected: '0600', fix: `chmod 600 '${path.join(dataDir, 'coffer.sqlite-shm')}'` },
      { file: path.join(dataDir, 'coffer.sqlite-wal'), mode: '0644', expected: '0600', fix: `chmod 600 '${path.join(dataDir, 'coffer.sqlite-wal')}'` },
      { file: path.join(dataDir, 'master.key'), mode: '0640', expected: '0600', fix: `chmod 600 '${path.join(dataDir, 'master.key')}'` },
      { file: path.join(dataDir, 'tls', 'server-key.pem'), mode: '0604', expected: '0600', fix: `chmod 600 '${path.join(dataDir, 'tls', 'server-key.pem')}'` },
    ]);
    expect(warnings[0]?.msg).toBe(`directory ${dataDir} has mode 0755: other users of this machine may read Coffer's data; run: chmod 700 '${dataDir}'`);
    // A warning, not a refusal: the server runs, and changes nothing an operator may have meant;
    // only tls/, Coffer's own, is made 0700 again on every start (src/http/tls/local-ca.ts).
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o755);
    expect(fs.statSync(path.join(dataDir, 'tls')).mode & 0o777).toBe(0o700);
    await stop(served);
  });

  it('without the command line (tests, embedding), the store, master key and TLS code still create 0700/0600 under umask 000', async () => {
    const dataDir = path.join(temp.dir, 'library', 'data');
    await withUmask(0o000, async () => {
      resolveMasterKey(null, dataDir);
      const store = openSqliteStore(path.join(dataDir, 'coffer.sqlite'));
      await store.db.schema.createTable('probe').addColumn('x', 'integer').execute();
      await store.db.insertInto('probe' as never).values({ x: 1 } as never).execute();
      expect(fs.existsSync(path.join(dataDir, 'coffer.sqlite-wal'))).toBe(true);
      expectPrivate(dataDir);
      await store.close();
      await ensureLocalTls(dataDir);
    });
    expect(Object.keys(modes(dataDir))).toEqual(expect.arrayContaining(['master.key', 'coffer.sqlite', 'tls/ca-key.pem', 'tls/server.pem']));
    expectPrivate(dataDir);
  });
});
