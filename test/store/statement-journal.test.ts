import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { tempDir } from '../helpers/temp.js';

/**
 * SQLite's own temporary files (statement journals, temp tables) are opened and deleted at once;
 * on Linux they stay visible as this process's open descriptors to a deleted `etilqs_…` file.
 */
function openTempFiles(): string[] {
  const dir = '/proc/self/fd';
  return fs
    .readdirSync(dir)
    .map((fd) => {
      try {
        return fs.readlinkSync(path.join(dir, fd));
      } catch {
        return '';
      }
    })
    .filter((target) => target.includes('etilqs_'));
}

describe.runIf(process.platform === 'linux')('the statement journal', () => {
  let store: SqliteStore | null = null;
  let cleanup: () => void = () => undefined;
  afterEach(async () => {
    await store?.close();
    store = null;
    cleanup();
  });

  it('stays in memory when a unit of work changes far more than SQLite would keep there by default (64 KiB)', async () => {
    const temp = tempDir('statement-journal-');
    cleanup = temp.cleanup;
    store = openSqliteStore(path.join(temp.dir, 'coffer.sqlite'));
    const db = store.db;
    await sql`create table pages (id integer primary key, body blob not null)`.execute(db);
    await sql`create index pages_by_body on pages (body)`.execute(db);
    // Another suite's store in this process may hold a temporary file of its own: only new ones count.
    const before = openTempFiles();
    const body = Buffer.alloc(3000, 7);
    // Each unit of work is a savepoint inside the group-commit batch: every page it changes is copied to the statement journal first.
    for (let round = 0; round < 2; round += 1) {
      await db.transaction().execute(async (trx) => {
        for (let row = 0; row < 100; row += 1) await sql`insert into pages (body) values (${body})`.execute(trx);
        for (let row = 0; row < 100; row += 1) await sql`update pages set body = ${Buffer.alloc(3000, round + row)} where id = ${row + 1}`.execute(trx);
        expect(openTempFiles()).toEqual(before);
      });
    }
    const counted = await sql<{ rows: number }>`select count(*) as rows from pages`.execute(db);
    expect(counted.rows[0]?.rows).toBe(200);
  });
});
