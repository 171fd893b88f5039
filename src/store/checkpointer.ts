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

  constructor(
    private readonly file: string,
    private readonly handle: BetterSqlite3.Database,
    /** Commits between checkpoints; ~256 commits of a purchase load are a few MB of WAL. */
    private readonly every = 256,
    private readonly driver = DRIVER,
    private readonly onCheckpoint: (result: CheckpointResult) => void = () => undefined,
  ) {
    handle.pragma('wal_autocheckpoint = 0');
  }

  /** Counts commits made durable; asks the worker for a checkpoint once enough have gone by. */
  noteCommits(count: number): void {
    this.commitsSince += count;
    if (this.commitsSince < this.every || this.running || this.failed) return;
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

  /** The worker is gone: SQLite checkpoints on the main connection again, as it did before. */
  private fallBack(): void {
    this.failed = true;
    this.running = false;
    this.worker = null;
    if (this.handle.open) this.handle.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
  }
}
