import fs from 'node:fs';
import path from 'node:path';
import type { CommitSample } from './commit-feed.js';

/**
 * Group commit for SQLite (docs/reliability.md). SQLite runs with `synchronous=NORMAL` in WAL mode, so a
 * COMMIT only appends the transaction's frames to the `-wal` file (no fsync, tens of µs); this
 * class then makes them durable with one `fdatasync` of that file, off the event loop (libuv's
 * thread pool), shared by every commit noted before it started. Callers wait for it before they
 * acknowledge anything, so what `synchronous=FULL` promises still holds: a commit is on stable
 * storage before the caller learns it happened.
 *
 * Why this is equivalent (SQLite's documentation of `PRAGMA synchronous`): in WAL mode, FULL adds
 * exactly one thing to NORMAL, "the WAL file is synchronized after each transaction commit".
 * Checkpoints and WAL restarts are synced in NORMAL too. A commit whose frames are synced is
 * recovered after a power loss; one whose frames are not may be lost, and that is what waiting
 * here prevents. Syncing the file through a descriptor of our own is enough: fdatasync flushes the
 * file's data (and the size needed to read it back), whichever descriptor wrote it.
 */

/** What a flush does; injectable so tests can count and hold syncs. */
export interface FileSyncer {
  /** Makes everything written to the file so far durable. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The store could not make a commit durable; it answers 503 until restarted (docs/reliability.md). */
export class StoreDurabilityError extends Error {
  override readonly name = 'StoreDurabilityError';
}

export class WalSync {
  /** Commits noted so far (a sequence number per commit). */
  private noted = 0;
  /** Every commit up to this number is durable. */
  private synced = 0;
  private running: Promise<void> | null = null;
  /** Set when an fsync failed: whether earlier writes reached the disk is unknown from then on. */
  private broken: StoreDurabilityError | null = null;
  /**
   * Commits the open batch of logical transactions, if any (sqlite-dialect.ts), and returns the
   * last commit it covers. Called at the start of every flush so that the fsync covers them.
   */
  private commitBatch: (() => Promise<number>) | null = null;

  constructor(
    private readonly file: FileSyncer,
    /** Each fsync as a commit sample: how long it took, and how many commits it made durable. */
    private readonly onFlush: (sample: CommitSample) => void = () => undefined,
  ) {}

  /**
   * Group commit's second half (docs/reliability.md, "Batches"): logical transactions are released into one open
   * SQLite transaction, and `commit` ends it before each fsync. It must capture the sequence
   * it covers before anyone else can use the connection again.
   */
  batchCommitsWith(commit: () => Promise<number>): void {
    this.commitBatch = commit;
  }

  /**
   * Commits noted but not yet durable were lost before they reached the disk (SQLite rolled back
   * the batch holding them): nothing may be acknowledged any more, as after a failed fsync.
   */
  fail(error: StoreDurabilityError): void {
    this.broken ??= error;
  }

  /** Throws once the store is broken: a write begun now could never be acknowledged. */
  refuseIfBroken(): void {
    if (this.broken !== null) throw this.broken;
  }

  /** Records that a commit happened; returns its sequence number. */
  note(): number {
    this.noted += 1;
    return this.noted;
  }

  /** The last commit noted so far. */
  get last(): number {
    return this.noted;
  }

  /** True once commit `sequence` is known to be durable. */
  isDurable(sequence: number): boolean {
    return this.synced >= sequence;
  }

  /** Resolves once commit `sequence` (by default every commit noted so far) is durable. */
  async durable(sequence: number = this.noted): Promise<void> {
    // A commit made durable before the store broke stays durable; every later one fails.
    while (this.synced < sequence) {
      if (this.broken !== null) throw this.broken;
      if (this.running === null) this.running = this.flush();
      await this.running;
    }
  }

  async close(): Promise<void> {
    if (this.running !== null) await this.running.catch(() => undefined);
    await this.file.close();
  }

  /** One fsync covering every commit noted before it starts; commits during it wait for the next. */
  private async flush(): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      let target: number;
      try {
        target = this.commitBatch === null ? this.noted : await this.commitBatch();
      } catch (error) {
        // The batch's logical commits are gone with it; see fail().
        this.fail(new StoreDurabilityError('commit of a batch of SQLite transactions failed; the store refuses writes until restart', { cause: error }));
        return;
      }
      await this.file.sync();
      // Everything up to `target` was committed before this fsync began; a batch lost meanwhile
      // (fail()) holds only later commits, which stay undurable.
      this.onFlush({ batchSize: target - this.synced, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
      this.synced = target;
    } catch (error) {
      // Linux may report a failed writeback once and then forget it: retrying could "succeed"
      // over lost data. The store stops acknowledging writes until it is restarted.
      this.fail(new StoreDurabilityError('fsync of the SQLite WAL failed; the store refuses writes until restart', { cause: error }));
    } finally {
      this.running = null;
    }
  }
}

/**
 * Syncs `<database>-wal` through a read-only descriptor of its own, opened at the first flush.
 * The file stays the same while this process has the database open: SQLite deletes the WAL only
 * when the last connection closes and leaves WAL mode only with no other connection, so one
 * descriptor serves for the store's life. The directory is synced once, at that first open, so
 * the WAL's entry survives a power loss too (SQLite syncs a new journal's directory likewise).
 */
export class WalFileSyncer implements FileSyncer {
  private handle: fs.promises.FileHandle | null = null;
  private readonly walPath: string;

  constructor(databaseFile: string) {
    this.walPath = `${databaseFile}-wal`;
  }

  async sync(): Promise<void> {
    if (this.handle === null) this.handle = await this.open();
    await this.handle.datasync();
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    await handle?.close();
  }

  private async open(): Promise<fs.promises.FileHandle> {
    const handle = await fs.promises.open(this.walPath, 'r');
    const directory = await fs.promises.open(path.dirname(this.walPath), 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
    return handle;
  }
}
