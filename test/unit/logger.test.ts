import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, LOG_BUFFER_BYTES, LOG_FLUSH_INTERVAL_MS, logDestination } from '../../src/logger.js';
import { ensureBuilt, repoRoot } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/*
 * `coffer serve`'s log destination (src/logger.ts, docs/reliability.md "Logs"): lines are written
 * in batches instead of one write per line, reach the file within the flush interval, and are all
 * written when the process exits.
 */

const temps: Array<{ cleanup: () => void }> = [];
afterEach(() => {
  for (const temp of temps.splice(0)) temp.cleanup();
});

function logFile(): { file: string; fd: number } {
  const temp = tempDir();
  temps.push(temp);
  const file = path.join(temp.dir, 'coffer.log');
  return { file, fd: fs.openSync(file, 'a') };
}

/** The request line `coffer serve` writes for each answer (http/server.ts), about 230 bytes. */
function requestLine(index: number) {
  return { reqId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, method: 'GET', route: '/v1/gateways', status: 200, durationMs: 0.52, environmentKey: 'MmWgZBzBe5oh0vKSCGKCVTy7fI' };
}

const linesOf = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter((line) => line !== '');

describe("coffer serve's log destination", () => {
  it('writes lines in batches of about 4 KiB, not one write per line', async () => {
    const { file, fd } = logFile();
    const destination = logDestination(fd);
    const writes: number[] = [];
    (destination as unknown as NodeJS.EventEmitter).on('write', (bytes: number) => writes.push(bytes));
    const logger = createLogger('info', destination);
    // Requests a little apart, as a server answers them: each line would find no write in flight.
    for (let index = 0; index < 60; index += 1) {
      logger.info(requestLine(index), 'request');
      await sleep(2);
    }
    const written = writes.reduce((sum, bytes) => sum + bytes, 0);
    expect(writes.length).toBeLessThanOrEqual(Math.ceil(written / LOG_BUFFER_BYTES) + 1);
    expect(writes.length).toBeLessThan(10);
    for (const bytes of writes) expect(bytes).toBeGreaterThan(LOG_BUFFER_BYTES);
    // Whatever is held is written within the flush interval.
    await sleep(LOG_FLUSH_INTERVAL_MS + 500);
    expect(linesOf(file)).toHaveLength(60);
    (destination as unknown as { destroy(): void }).destroy();
  });

  it('an idle server: a single line reaches the file within the flush interval', async () => {
    const { file, fd } = logFile();
    const destination = logDestination(fd);
    createLogger('info', destination).info({ url: 'https://127.0.0.1:1' }, 'listening');
    await sleep(LOG_FLUSH_INTERVAL_MS + 500);
    expect(linesOf(file).map((line) => JSON.parse(line).msg)).toEqual(['listening']);
    (destination as unknown as { destroy(): void }).destroy();
  });

  describe('a process that exits', () => {
    beforeAll(() => ensureBuilt(), 180_000);

    it('writes every line it held, on a clean exit and on an uncaught error', async () => {
      for (const ending of ['process.exit(0)', "setImmediate(() => { throw new Error('boom'); })"]) {
        const { file, fd } = logFile();
        fs.closeSync(fd);
        const script = [
          `import fs from 'node:fs';`,
          `import { createLogger, logDestination } from ${JSON.stringify(path.join(repoRoot, 'dist', 'logger.js'))};`,
          `const logger = createLogger('info', logDestination(fs.openSync(${JSON.stringify(file)}, 'a')));`,
          `for (let index = 0; index < 5; index += 1) logger.info({ index }, 'request');`,
          ending,
        ].join('\n');
        await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]).catch(() => undefined);
        expect(linesOf(file), ending).toHaveLength(5);
      }
    });
  });
});
