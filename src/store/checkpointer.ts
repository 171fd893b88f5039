import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * Moves SQLite's WAL checkpoints off the event loop (docs/benchmarks.md). A checkpoint copies the WAL's
 * pages into the database file and fsyncs both; run by SQLite's auto-checkpoint it happens inside
 * some request's COMMIT, on the event loop (better-sqlite3 is synchronous), and made that COMMIT
 * average ~185 µs instead of ~15 µs under purchase load. Here the main connection's
 * auto-checkpoint is off, and a worker thread with a connection of its own runs PASSIVE
 * checkpoints (they never block writers or readers) once enough commits have gone by. Should the
 * worker fail, the main connection's auto-checkpoint comes back: the WAL never grows unchecked.
 */

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/** The worker's whole program: plain CommonJS, so it runs the same from src/ (tests) and dist/. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
parentPort.on('message', () => {
  const [result] = db.pragma('wal_checkpoint(PASSIVE)');
  parentPort.postMessage(result);
});
`;

/** SQLite's own auto-checkpoint threshold, restored when the worker is gone. */
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;

/**
 * The WAL size past which the main connection checkpoints it whole and starts it over (TRUNCATE).
 * Under a sustained write load (an import) every PASSIVE checkpoint of the worker ends behind the
 * writes made while it ran, the WAL is never found fully copied, SQLite never starts it over, and
 * it grew to 10 GB over a million imported cards (docs/benchmarks.md, "Import"). Under a purchase
 * load the worker keeps up and this is never reached.
 */
const WAL_LIMIT_BYTES = 64 * 1024 * 1024;

export interface WalBounds {
  /** The WAL size (bytes) past which the main connection truncates it. */
  limitBytes: number;
}

/** What one PASSIVE checkpoint reported: WAL frames, and how many of them are now in the database. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

export class Checkpointer {
  private worker: Worker | null = null;
  private running = false;
  private commitsSince = 0;
  private failed = false;
  /** Checkpoints the worker has finished (tests, diagnostics). */
  completed = 0;
  private commitsSinceLook = 0;
  /** Times the main connection checkpointed and truncated a WAL past the limit (tests, diagnostics). */
  truncated = 0;

  constructor(
    private readonly file: string,
    private readonly handle: BetterSqlite3.Database,
    /** Commits between checkpoints; ~256 commits of a purchase load are a few MB of WAL. */
    private readonly every = 256,
    private readonly driver = DRIVER,
    private readonly onCheckpoint: (result: CheckpointResult) => void = () => undefined,
    private readonly bounds: WalBounds = { limitBytes: WAL_LIMIT_BYTES },
  ) {
    handle.pragma('wal_autocheckpoint = 0');
  }

  /** Counts commits made durable; asks the worker for a checkpoint once enough have gone by. */
  noteCommits(count: number): void {
    this.commitsSince += count;
    this.commitsSinceLook += count;
    if (this.failed) return;
    if (this.commitsSinceLook >= this.every) {
      this.commitsSinceLook = 0;
      if (this.walTooLong()) return this.truncateHere();
    }
    if (this.commitsSince < this.every || this.running) return;
    this.commitsSince = 0;
    this.running = true;
    (this.worker ??= this.spawn()).postMessage('checkpoint');
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.failed = true;
    await worker?.terminate();
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file: this.file, driver: this.driver } });
    // The worker never keeps the process alive; closing the store terminates it.
    worker.unref();
    worker.on('message', (result: CheckpointResult) => {
      this.running = false;
      this.completed += 1;
      this.onCheckpoint(result);
    });
    worker.on('error', () => this.fallBack());
    worker.on('exit', () => {
      if (this.worker === worker) this.fallBack();
    });
    return worker;
  }

  /** Whether the WAL file has outgrown the limit (looked at once per `every` commits: one stat). */
  private walTooLong(): boolean {
    return (fs.statSync(`${this.file}-wal`, { throwIfNoEntry: false })?.size ?? 0) > this.bounds.limitBytes;
  }

  /**
   * Checkpoints the whole WAL on the only writing connection, between two of its transactions, and
   * truncates it: no write can slip in meanwhile. It copies what the worker's checkpoints did not:
   * a pause of the event loop once per limit's worth of writes, where the WAL would otherwise grow
   * without end. While the worker's checkpoint runs, or a reader elsewhere is still on the WAL, it
   * is refused as busy at once and tried again after the next commit.
   */
  private truncateHere(): void {
    if (!this.handle.open || this.handle.inTransaction) return this.lookAgainNextCommit();
    // Without a busy wait: a reader elsewhere (the CLI, another node) still on the WAL would make
    // SQLite wait for it, with the event loop stopped, up to the connection's whole busy timeout.
    const busyTimeout = Number(this.handle.pragma('busy_timeout', { simple: true }));
    let result: CheckpointResult | undefined;
    try {
      this.handle.pragma('busy_timeout = 0');
      [result] = this.handle.pragma('wal_checkpoint(TRUNCATE)') as CheckpointResult[];
    } finally {
      this.handle.pragma(`busy_timeout = ${busyTimeout}`);
    }
    // Busy: such a reader, or the worker holding the checkpoint lock. What could be copied was;
    // nothing was truncated, so it is tried again at the next commit.
    if (result === undefined || result.busy !== 0) return this.lookAgainNextCommit();
    this.commitsSince = 0;
    this.truncated += 1;
  }

  private lookAgainNextCommit(): void {
    this.commitsSinceLook = this.every;
  }

  /** The worker is gone: SQLite checkpoints on the main connection again, as it did before. */
  private fallBack(): void {
    this.failed = true;
    this.running = false;
    this.worker = null;
    if (this.handle.open) this.handle.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
  }
}
