import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildCore, type Core } from '../../src/app.js';
import { buildApp, resolveTls } from '../../src/http-app.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { Clock } from '../../src/domain/clock.js';
import type { RandomInt } from '../../src/services/routing/split-draw.js';
import type { Logger } from 'pino';
import { createLogger } from '../../src/logger.js';
import type { InitResult } from '../../src/services/tenancy.service.js';
import { ApiClient } from './client.js';
import { CardDataLeakError, findCardData, findKnownSecretsInBytes, maskCardData, maskFinding } from './leak-scan.js';
import { createPostgresDatabase } from './postgres.js';
import { tempDir } from './temp.js';
import fs from 'node:fs';
import path from 'node:path';

export interface TestServer {
  app: FastifyInstance;
  core: Core;
  /** The server's logger (writes to `logs`). */
  logger: Logger;
  init: InitResult;
  dataDir: string;
  ca: string | null;
  /** Client authenticated as the initial admin secret. */
  client: ApiClient;
  /** Every log line the server wrote. */
  logs: string[];
  /**
   * Leak guard findings so far (masked): log lines holding card data. `close()` adds those of
   * the SQLite files and throws when there are any.
   */
  leaks: string[];
  close(): Promise<void>;
}

export interface StartOptions {
  store?: 'sqlite' | 'postgres';
  tls?: boolean;
  clock?: Clock;
  /** Draws workflow splits (default: the CSPRNG); a seeded one makes counts of routed payments reproducible. */
  random?: RandomInt;
  env?: Record<string, string>;
  /**
   * What the leak guard does with a log line holding card data: `throw` (default) raises it as
   * an uncaught error at once and again from close(); `record` only collects it in `leaks` (for
   * tests of the guard itself; close() still throws).
   */
  leakGuard?: 'throw' | 'record';
}

/** Boots a real Coffer in this process on 127.0.0.1 (HTTPS with a fresh local CA by default). */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const temp = tempDir();
  const pg = options.store === 'postgres' ? await createPostgresDatabase() : null;
  const config = loadConfig({
    COFFER_DATA_DIR: temp.dir,
    COFFER_PORT: '0',
    COFFER_TLS: options.tls === false ? 'off' : 'auto',
    COFFER_LOG_LEVEL: 'info',
    // Suites create hundreds of payment methods from one IP: no limits unless a test sets its own.
    COFFER_RATE_LIMITS: '{"*":null}',
    ...(pg === null ? {} : { COFFER_DATABASE_URL: pg.url }),
    ...options.env,
  });
  const logs: string[] = [];
  const leaks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        logs.push(line);
        // Leak guard: no log line may carry card data in clear.
        const found = findCardData(line);
        if (found.length > 0) {
          const message = `card data in clear in a log line: ${found.map(maskFinding).join(', ')} in ${maskCardData(line)}`;
          leaks.push(message);
          // Thrown outside the logger (a throwing destination would break the request that logged):
          // vitest reports it as an error of the test running now; close() throws it again.
          if (options.leakGuard !== 'record') {
            process.nextTick(() => {
              throw new CardDataLeakError(message);
            });
          }
        }
      }
      done();
    },
  });
  const core = await buildCore(config, options.clock, options.random);
  const init = await core.tenancy.init();
  const tls = await resolveTls(config);
  const logger = createLogger('info', sink);
  const app = buildApp(core, logger, tls.material);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const port = new URL(address).port;
  const ca = tls.caPath === null ? null : fs.readFileSync(tls.caPath, 'utf8');
  const baseUrl = `${tls.material === null ? 'http' : 'https'}://localhost:${port}`;
  const client = new ApiClient(baseUrl, ca, { user: init.environment_key, password: init.access_secret });
  return {
    app,
    core,
    logger,
    init,
    dataDir: temp.dir,
    ca,
    client,
    logs,
    leaks,
    close: async () => {
      try {
        await client.close();
        await app.close();
        // Before closing (the WAL still holds recent pages) and after (checkpointed into the file).
        leaks.push(...scanSqliteFiles(config.store));
        await core.close();
        leaks.push(...scanSqliteFiles(config.store));
      } finally {
        if (pg !== null) await pg.drop();
        temp.cleanup();
      }
      if (leaks.length > 0) throw new CardDataLeakError([...new Set(leaks)].join('\n'));
    },
  };
}

/**
 * Leak guard over a SQLite store: the database file, its WAL, shared memory and rollback journal,
 * read as bytes, must not hold a known test PAN in clear (sealed blobs are base64, so a clear PAN
 * there is a real leak). Returns masked findings.
 */
export function scanSqliteFiles(store: Config['store']): string[] {
  if (store.kind !== 'sqlite') return [];
  const findings: string[] = [];
  for (const file of [store.path, `${store.path}-wal`, `${store.path}-shm`, `${store.path}-journal`]) {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    for (const pan of findKnownSecretsInBytes(bytes)) findings.push(`card data in clear in ${path.basename(file)}: ${maskFinding(pan)}`);
  }
  return findings;
}
