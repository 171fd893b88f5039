import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { percentile } from './latency.js';

/** How long making a small append durable takes on the disk the bench's stores live on. */
export interface DiskProbe {
  directory: string;
  p50_ms: number;
  p99_ms: number;
}

/**
 * Times `fdatasync` after appending 12 KiB (about what one SQLite group commit adds to its WAL),
 * `samples` times, in the directory the bench's SQLite stores are made in. Every acknowledged
 * write waits for at least one of these, so it is the floor under each commit latency the bench
 * reports, measured on the machine and at the moment of the run rather than quoted.
 */
export function probeDisk(samples = 200, directory = os.tmpdir()): DiskProbe {
  const dir = fs.mkdtempSync(path.join(directory, 'coffer-bench-disk-'));
  const file = path.join(dir, 'probe');
  const block = Buffer.alloc(12 * 1024, 0x5a);
  const durations: number[] = [];
  const fd = fs.openSync(file, 'w');
  try {
    for (let index = 0; index < samples; index += 1) {
      fs.writeSync(fd, block);
      const started = process.hrtime.bigint();
      fs.fdatasyncSync(fd);
      durations.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  durations.sort((a, b) => a - b);
  return { directory, p50_ms: percentile(durations, 50), p99_ms: percentile(durations, 99) };
}
