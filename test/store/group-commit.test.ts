import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommitFeed, type CommitSample } from '../../src/store/commit-feed.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { isStoreUnavailable } from '../../src/store/unavailable.js';
import { trackRequestCommits } from '../../src/store/request-commits.js';
import { StoreDurabilityError, WalFileSyncer, WalSync, type FileSyncer } from '../../src/store/wal-sync.js';
import { tempDir } from '../helpers/temp.js';

/** A FileSyncer whose syncs wait until the test lets them finish, and are counted. */
class HeldSyncer implements FileSyncer {
  syncs = 0;
  failNext = false;
  private releases: Array<() => void> = [];

  sync(): Promise<void> {
    this.syncs += 1;
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new Error('EIO: i/o error'));
    }
    return new Promise((resolve) => this.releases.push(resolve));
  }

  /** Lets every sync started so far finish. */
  releaseAll(): void {
    const releases = this.releases;
    this.releases = [];
    releases.forEach((release) => release());
  }

  get held(): number {
    return this.releases.length;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Runs microtasks and a macrotask turn so that anything able to settle has settled. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A promise the test lets through when it chooses. */
function gate(): { passed: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const passed = new Promise<void>((resolve) => (open = resolve));
  return { passed, open };
}

/** Awaits `promise`, letting the syncer's fsyncs finish as they come. */
async function releasing<T>(syncer: HeldSyncer, promise: Promise<T>): Promise<T> {
  const watched = tracked(promise);
  while (!watched.done()) {
    await turn();
    syncer.releaseAll();
  }
  return promise;
}

function tracked<T>(promise: Promise<T>): { done: () => boolean; promise: Promise<T> } {
  let finished = false;
  void promise.then(
    () => (finished = true),
    () => (finished = true),
  );
  return { done: () => finished, promise };
}

describe('WalSync (group commit bookkeeping)', () => {
  it('makes every commit noted before an fsync durable with that one fsync', async () => {
    const file = new HeldSyncer();
    const samples: CommitSample[] = [];
    const wal = new WalSync(file, (sample) => samples.push(sample));
    const waits = [wal.note(), wal.note(), wal.note()].map((sequence) => tracked(wal.durable(sequence)));
    await turn();
    expect(file.syncs).toBe(1);
    expect(waits.some((wait) => wait.done())).toBe(false);
    file.releaseAll();
    await Promise.all(waits.map((wait) => wait.promise));
    expect(samples.map((sample) => sample.batchSize)).toEqual([3]);
    expect(wal.isDurable(wal.last)).toBe(true);
  });

  it('a commit noted while an fsync runs waits for the next fsync, not the running one', async () => {
    const file = new HeldSyncer();
    const wal = new WalSync(file);
    const first = tracked(wal.durable(wal.note()));
    await turn();
    const second = tracked(wal.durable(wal.note()));
    file.releaseAll();
    await first.promise;
    await turn();
    expect(second.done()).toBe(false);
    expect(file.syncs).toBe(2);
    file.releaseAll();
    await second.promise;
  });

  it('after a failed fsync every wait fails, and keeps failing (no retry over lost writeback)', async () => {
    const file = new HeldSyncer();
    file.failNext = true;
    const wal = new WalSync(file);
    await expect(wal.durable(wal.note())).rejects.toBeInstanceOf(StoreDurabilityError);
    const later = wal.durable(wal.note());
    await expect(later).rejects.toThrow(/refuses writes until restart/);
    expect(file.syncs).toBe(1);
    expect(isStoreUnavailable(new StoreDurabilityError('x'))).toBe(true);
  });
});

describe('SQLite store with group commit', () => {
  let store: SqliteStore | null = null;
  let other: SqliteStore | null = null;
  afterEach(async () => {
    await store?.close();
    await other?.close();
    store = other = null;
  });

  async function open(syncer: HeldSyncer, file = path.join(tempDir('coffer-group-commit-').dir, 'coffer.db'), commits = new CommitFeed()): Promise<{ db: Kysely<never>; file: string }> {
    store = openSqliteStore(file, { fileSyncer: () => syncer, commits });
    const db = store.db as unknown as Kysely<never>;
    await releasing(syncer, sql`create table if not exists items (id integer primary key, name text)`.execute(db));
    return { db, file };
  }

  /** `open`, then lets the fsync of the table's creation finish: the store is idle, its syncer holds nothing. */
  async function openIdle(syncer: HeldSyncer): Promise<{ db: Kysely<never>; file: string }> {
    const opened = await open(syncer);
    syncer.releaseAll();
    await turn();
    return opened;
  }

  /**
   * This store, with its fsyncs held, and a second one on the same file (another process, to
   * SQLite) whose commit of one row is durable on its side; `mine` holds no fsync yet.
   */
  async function afterAnotherProcessCommits(): Promise<{ mine: HeldSyncer; db: Kysely<never> }> {
    const mine = new HeldSyncer();
    const { db, file } = await openIdle(mine);
    const theirs = new HeldSyncer();
    other = openSqliteStore(file, { fileSyncer: () => theirs });
    expect(store?.settled()).toBeNull();
    const write = sql`insert into items (name) values ('c')`.execute(other.db as unknown as Kysely<never>);
    await turn();
    theirs.releaseAll();
    await write;
    return { mine, db };
  }

  it('a transaction returns only after the fsync that covers its commit', async () => {
    const file = new HeldSyncer();
    const { db } = await openIdle(file);
    const write = tracked(db.transaction().execute((trx) => sql`insert into items (name) values ('a')`.execute(trx)));
    await turn();
    expect(file.held).toBe(1);
    expect(write.done()).toBe(false);
    file.releaseAll();
    await write.promise;
  });

  it('twenty concurrent transactions share fsyncs, and all of them land', async () => {
    const file = new HeldSyncer();
    const samples: CommitSample[] = [];
    const commits = new CommitFeed();
    commits.subscribe((sample) => samples.push(sample));
    const { db } = await open(file, undefined, commits);
    samples.length = 0;
    file.releaseAll();
    await turn();
    const before = file.syncs;
    const writes = Array.from({ length: 20 }, (_, i) => db.transaction().execute((trx) => sql`insert into items (name) values (${`n${i}`})`.execute(trx)));
    await releasing(file, Promise.all(writes));
    const syncs = file.syncs - before;
    expect(syncs).toBeGreaterThanOrEqual(1);
    expect(syncs).toBeLessThan(20);
    expect(samples.reduce((sum, sample) => sum + sample.batchSize, 0)).toBe(20);
    const { rows } = await sql<{ n: number }>`select count(*) as n from items`.execute(db);
    expect(rows[0]?.n).toBe(20);
  });

  it('a statement outside a transaction that writes waits too; a read does not', async () => {
    const file = new HeldSyncer();
    const { db } = await openIdle(file);
    const write = tracked(sql`insert into items (name) values ('b')`.execute(db));
    await turn();
    expect(write.done()).toBe(false);
    file.releaseAll();
    await write.promise;
    const syncs = file.syncs;
    await sql`select * from items`.execute(db);
    expect(file.syncs).toBe(syncs);
    expect(store?.settled()).toBeNull();
  });

  it('an answer waits only for the commits its request could have seen', async () => {
    const file = new HeldSyncer();
    const { db } = await open(file);
    const read = () => sql`select count(*) as n from items`.execute(db);
    const writeCommitted = gate();
    // Request X reads before another request's commit and answers while that commit's fsync is held.
    const requestX = trackRequestCommits(async () => {
      await read();
      await writeCommitted.passed;
      return { settling: store?.settled() };
    });
    await turn();
    const write = tracked(trackRequestCommits(() => sql`insert into items (name) values ('w')`.execute(db)));
    await turn();
    expect(write.done()).toBe(false);
    writeCommitted.open();
    expect((await requestX).settling).toBeNull();
    // Request Y reads after that commit: its answer waits for the fsync.
    const requestY = await trackRequestCommits(async () => {
      await read();
      return { settling: store?.settled() };
    });
    expect(requestY.settling).toBeInstanceOf(Promise);
    const y = tracked(requestY.settling as Promise<void>);
    await turn();
    expect(y.done()).toBe(false);
    file.releaseAll();
    await write.promise;
    await y.promise;
  });

  it("an answer waits for another process's commit that this one has seen", async () => {
    const { mine, db } = await afterAnotherProcessCommits();
    await sql`select * from items`.execute(db);
    const settling = store?.settled();
    expect(settling).toBeInstanceOf(Promise);
    await turn();
    expect(mine.held).toBe(1);
    mine.releaseAll();
    await settling;
    expect(store?.settled()).toBeNull();
  });

  it("an answer waits for another process's commit it read, even when another request's answer noticed that commit first", async () => {
    const { mine, db } = await afterAnotherProcessCommits();
    const read = () => sql`select * from items`.execute(db);
    const aMayAnswer = gate();
    // Both requests read the foreign commit; B answers first and is the one to notice it.
    const requestA = trackRequestCommits(async () => {
      await read();
      await aMayAnswer.passed;
      return { settling: store?.settled() };
    });
    const requestB = await trackRequestCommits(async () => {
      await read();
      return { settling: store?.settled() };
    });
    expect(requestB.settling).toBeInstanceOf(Promise);
    aMayAnswer.open();
    const { settling } = await requestA;
    expect(settling).toBeInstanceOf(Promise);
    const a = tracked(settling as Promise<void>);
    await turn();
    expect(a.done()).toBe(false);
    expect(mine.held).toBe(1);
    mine.releaseAll();
    await a.promise;
    await requestB.settling;
    // Noticed and synced: a later read's answer has nothing to wait for.
    const later = await trackRequestCommits(async () => {
      await read();
      return store?.settled();
    });
    expect(later).toBeNull();
  });

  it('concurrent transactions are released into one SQLite transaction, committed once before the fsync that covers them', async () => {
    const file = new HeldSyncer();
    const { db, file: path_ } = await openIdle(file);
    // Hold the first fsync: the transactions that follow accumulate in one open batch meanwhile.
    const first = tracked(db.transaction().execute((trx) => sql`insert into items (name) values ('first')`.execute(trx)));
    await turn();
    expect(file.held).toBe(1);
    const batched = Array.from({ length: 5 }, (_, i) => tracked(db.transaction().execute((trx) => sql`insert into items (name) values (${`b${i}`})`.execute(trx))));
    await turn();
    // Not committed yet: a second connection on the file sees only what the first flush committed.
    const reader = new BetterSqlite3(path_, { readonly: true });
    try {
      expect(reader.prepare('select count(*) as n from items').get()).toEqual({ n: 1 });
      expect(batched.some((write) => write.done())).toBe(false);
      await releasing(file, Promise.all(batched.map((write) => write.promise)));
      await first.promise;
      // One more fsync covered all five, after one COMMIT made them visible together.
      expect(reader.prepare('select count(*) as n from items').get()).toEqual({ n: 6 });
    } finally {
      reader.close();
    }
  });

  it('a transaction that fails rolls back alone; the others of its batch land', async () => {
    const file = new HeldSyncer();
    const { db } = await open(file);
    await releasing(file, sql`create unique index items_name on items (name)`.execute(db));
    const writes = [
      db.transaction().execute((trx) => sql`insert into items (name) values ('kept-1')`.execute(trx)),
      db.transaction().execute(async (trx) => {
        await sql`insert into items (name) values ('undone')`.execute(trx);
        await sql`insert into items (name) values ('kept-1')`.execute(trx); // unique violation: this transaction fails
      }),
      db.transaction().execute((trx) => sql`insert into items (name) values ('kept-2')`.execute(trx)),
    ];
    const settled = await releasing(file, Promise.allSettled(writes));
    expect(settled.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const { rows } = await sql<{ name: string }>`select name from items order by name`.execute(db);
    expect(rows.map((row) => row.name)).toEqual(['kept-1', 'kept-2']);
  });

  it('a read-only transaction does not hold the batch open: another handle on the file goes on', async () => {
    const file = new HeldSyncer();
    const { db, file: path_ } = await openIdle(file);
    await db.transaction().execute((trx) => sql`select count(*) from items`.execute(trx));
    const theirs = new HeldSyncer();
    other = openSqliteStore(path_, { fileSyncer: () => theirs });
    const write = other.db.transaction().execute((trx) => sql`insert into items (name) values ('other')`.execute(trx));
    await releasing(theirs, write);
    const { rows } = await sql<{ n: number }>`select count(*) as n from items`.execute(db);
    expect(rows[0]?.n).toBe(1);
  });

  it('two handles on one file in one process take turns between batches, and both see every commit', async () => {
    const mine = new HeldSyncer();
    const { db, file: path_ } = await open(mine);
    const theirs = new HeldSyncer();
    other = openSqliteStore(path_, { fileSyncer: () => theirs });
    const otherDb = other.db as unknown as Kysely<never>;
    const writes = Array.from({ length: 10 }, (_, i) =>
      (i % 2 === 0 ? db : otherDb).transaction().execute((trx) => sql`insert into items (name) values (${`h${i}`})`.execute(trx)),
    );
    const all = tracked(Promise.all(writes));
    while (!all.done()) {
      await turn();
      mine.releaseAll();
      theirs.releaseAll();
    }
    await all.promise;
    for (const handle of [db, otherDb]) {
      const { rows } = await sql<{ n: number }>`select count(*) as n from items`.execute(handle);
      expect(rows[0]?.n).toBe(10);
    }
  });

  it('a batch SQLite rolled back by itself fails every commit in it, and the store refuses writes from then on', async () => {
    const file = new HeldSyncer();
    const { db } = await openIdle(file);
    const first = tracked(db.transaction().execute((trx) => sql`insert into items (name) values ('flushing')`.execute(trx)));
    await turn();
    expect(file.held).toBe(1);
    // Released into the open batch while the first fsync is held.
    const lost = tracked(db.transaction().execute((trx) => sql`insert into items (name) values ('lost')`.execute(trx)));
    await turn();
    // What an I/O error does to an open transaction: SQLite rolls all of it back. A statement
    // outside any logical transaction stands in for the failing one.
    await sql`rollback`.execute(db).catch(() => undefined);
    file.releaseAll();
    await first.promise;
    await expect(lost.promise).rejects.toBeInstanceOf(StoreDurabilityError);
    await expect(db.transaction().execute((trx) => sql`insert into items (name) values ('after')`.execute(trx))).rejects.toBeInstanceOf(StoreDurabilityError);
    const { rows } = await sql<{ name: string }>`select name from items order by name`.execute(db);
    expect(rows.map((row) => row.name)).toEqual(['flushing']);
  });

  it('with the real syncer, the WAL is synced through its own descriptor', async () => {
    const { dir } = tempDir('coffer-wal-');
    const file = path.join(dir, 'coffer.db');
    store = openSqliteStore(file);
    const db = store.db as unknown as Kysely<never>;
    await sql`create table items (id integer primary key, name text)`.execute(db);
    await db.transaction().execute((trx) => sql`insert into items (name) values ('d')`.execute(trx));
    expect(fs.existsSync(`${file}-wal`)).toBe(true);
    const syncer = new WalFileSyncer(file);
    await syncer.sync();
    await syncer.sync();
    await syncer.close();
    await expect(new WalFileSyncer(path.join(dir, 'missing.db')).sync()).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('checkpoints run on a worker thread once enough commits have gone by; the main connection never checkpoints itself', async () => {
    const { dir } = tempDir('coffer-checkpoint-');
    const file = path.join(dir, 'coffer.db');
    store = openSqliteStore(file, { checkpoints: { every: 10 } });
    const db = store.db as unknown as Kysely<never>;
    await sql`create table items (id integer primary key, name text)`.execute(db);
    const emptySize = fs.statSync(file).size;
    for (let i = 0; i < 30; i += 1) await db.transaction().execute((trx) => sql`insert into items (name) values (${'x'.repeat(2000)})`.execute(trx));
    await vi.waitFor(() => expect(store?.checkpointer?.completed).toBeGreaterThanOrEqual(1), { timeout: 10_000 });
    // The WAL's pages reached the database file, written by the worker's connection.
    expect(fs.statSync(file).size).toBeGreaterThan(emptySize);
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    expect(rows[0]?.wal_autocheckpoint).toBe(0);
  });

  it('under a sustained write load the WAL stays bounded: the WAL is checkpointed and truncated by the main connection once past its limit', async () => {
    const { dir } = tempDir('coffer-checkpoint-');
    const file = path.join(dir, 'coffer.db');
    const bounds = { limitBytes: 2 * 1024 * 1024 };
    store = openSqliteStore(file, { checkpoints: { every: 4, bounds } });
    const db = store.db as unknown as Kysely<never>;
    await sql`create table items (id integer primary key, body blob)`.execute(db);
    // ~25 MB written back to back (each 16 KB row is several pages): without the catch-up the WAL
    // holds all of it (37 MB measured), since the worker's checkpoints always end behind the
    // writes; with it, the WAL is truncated once past the limit, looked at every 4 commits.
    let largestWal = 0;
    for (let i = 0; i < 1500; i += 1) {
      await db.transaction().execute((trx) => sql`insert into items (body) values (${Buffer.alloc(16 * 1024, i % 251)})`.execute(trx));
      largestWal = Math.max(largestWal, fs.statSync(`${file}-wal`).size);
    }
    expect(store.checkpointer?.truncated).toBeGreaterThanOrEqual(1);
    // The limit plus at most four commits (each ~17 KB of frames) past it.
    expect(largestWal).toBeLessThan(bounds.limitBytes + 4 * 64 * 1024);
    const { rows: count } = await sql<{ n: number }>`select count(*) as n from items`.execute(db);
    expect(count[0]?.n).toBe(1500);
  });

  it('a reader elsewhere holding the WAL: the truncation does not wait for it, is not counted as done, and is tried again at the next commit', async () => {
    const { dir } = tempDir('coffer-checkpoint-');
    const file = path.join(dir, 'coffer.db');
    const bounds = { limitBytes: 256 * 1024 };
    const every = 16;
    store = openSqliteStore(file, { checkpoints: { every, bounds } });
    const db = store.db as unknown as Kysely<never>;
    // The store's busy timeout is 5 s: a truncation that waited for the reader below would stop
    // the event loop that long at every attempt, and this test would time out.
    await sql`create table items (id integer primary key, body blob)`.execute(db);
    const reader = new BetterSqlite3(file);
    try {
      reader.exec('begin');
      reader.prepare('select count(*) from items').get();
      const write = (i: number) => db.transaction().execute((trx) => sql`insert into items (body) values (${Buffer.alloc(16 * 1024, i % 251)})`.execute(trx));
      // ~400 KB of frames: past the limit while the reader holds its snapshot, so each truncation is refused.
      for (let i = 0; i < 25; i += 1) await write(i);
      expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(bounds.limitBytes);
      expect(store.checkpointer?.truncated).toBe(0);
      reader.exec('commit');
      // Tried again at each commit, not `every` commits later (the worker's own checkpoint may
      // hold the lock for a commit or two), and the WAL starts over.
      let commits = 0;
      while (store.checkpointer?.truncated === 0 && commits < every) await write(25 + commits++);
      expect(store.checkpointer?.truncated).toBe(1);
      expect(commits).toBeLessThan(4);
      expect(fs.statSync(`${file}-wal`).size).toBeLessThan(bounds.limitBytes);
    } finally {
      reader.close();
    }
  });

  it('a checkpoint worker that cannot start hands checkpoints back to SQLite', async () => {
    const { dir } = tempDir('coffer-checkpoint-');
    store = openSqliteStore(path.join(dir, 'coffer.db'), { checkpoints: { every: 1, driver: path.join(dir, 'no-such-driver.js') } });
    const db = store.db as unknown as Kysely<never>;
    await sql`create table items (id integer primary key, name text)`.execute(db);
    await db.transaction().execute((trx) => sql`insert into items (name) values ('y')`.execute(trx));
    await vi.waitFor(
      async () => {
        const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
        expect(rows[0]?.wal_autocheckpoint).toBe(1000);
      },
      { timeout: 10_000 },
    );
  });
});
