import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp, buildCore, resolveTls, type Core } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import type { Clock } from '../../src/domain/clock.js';
import { createLogger } from '../../src/logger.js';
import type { InitResult } from '../../src/services/tenancy.service.js';
import { ApiClient } from './client.js';
import { createPostgresDatabase } from './postgres.js';
import { tempDir } from './temp.js';
import fs from 'node:fs';

export interface TestServer {
  app: FastifyInstance;
  core: Core;
  init: InitResult;
  dataDir: string;
  ca: string | null;
  /** Client authenticated as the initial admin secret. */
  client: ApiClient;
  /** Every log line the server wrote. */
  logs: string[];
  close(): Promise<void>;
}

export interface StartOptions {
  store?: 'sqlite' | 'postgres';
  tls?: boolean;
  clock?: Clock;
  env?: Record<string, string>;
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
    ...(pg === null ? {} : { COFFER_DATABASE_URL: pg.url }),
    ...options.env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  const core = await buildCore(config, options.clock);
  const init = await core.tenancy.init();
  const tls = await resolveTls(config);
  const app = buildApp(core, createLogger('info', sink), tls.material);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const port = new URL(address).port;
  const ca = tls.caPath === null ? null : fs.readFileSync(tls.caPath, 'utf8');
  const baseUrl = `${tls.material === null ? 'http' : 'https'}://localhost:${port}`;
  const client = new ApiClient(baseUrl, ca, { user: init.environment_key, password: init.access_secret });
  return {
    app,
    core,
    init,
    dataDir: temp.dir,
    ca,
    client,
    logs,
    close: async () => {
      await client.close();
      await app.close();
      await core.close();
      if (pg !== null) await pg.drop();
      temp.cleanup();
    },
  };
}
