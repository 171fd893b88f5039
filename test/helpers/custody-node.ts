import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildCore, type Core } from '../../src/app.js';
import { buildApp } from '../../src/http-app.js';
import { loadConfig } from '../../src/config/config.js';
import { buildUnsealServer } from '../../src/http/unseal-server.js';
import { createLogger } from '../../src/logger.js';
import type { InitResult } from '../../src/services/tenancy.service.js';
import { ApiClient } from './client.js';

/**
 * A Coffer node in this process over plain HTTP on a data directory (and database) the test owns,
 * so that it can be stopped and started again on the same data, with another key provider or PIN
 * (docs/key-custody.md). A `shares` node also gets its unseal listener.
 */
export interface CustodyNode {
  core: Core;
  app: FastifyInstance;
  url: string;
  /** The unseal listener's URL (shares), else null. */
  unsealUrl: string | null;
  logs: string[];
  /** A client with the given credentials. */
  client(credentials: { environment_key: string; access_secret: string }): ApiClient;
  close(): Promise<void>;
}

export async function startCustodyNode(env: Record<string, string>): Promise<CustodyNode> {
  const config = loadConfig({ COFFER_TLS: 'off', COFFER_PORT: '0', COFFER_UNSEAL_PORT: '0', COFFER_RATE_LIMITS: '{"*":null}', COFFER_LOG_LEVEL: 'info', ...env });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  const core = await buildCore(config);
  const logger = createLogger('info', sink);
  const app = buildApp(core, logger, null);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const unseal = core.custody.seal === null ? null : buildUnsealServer(core.custody.seal, logger);
  const unsealUrl = unseal === null ? null : `${await unseal.listen({ host: '127.0.0.1', port: 0 })}/unseal`;
  const clients: ApiClient[] = [];
  return {
    core,
    app,
    url,
    unsealUrl,
    logs,
    client: (credentials) => {
      const client = new ApiClient(url, null, { user: credentials.environment_key, password: credentials.access_secret });
      clients.push(client);
      return client;
    },
    close: async () => {
      for (const client of clients) await client.close();
      await unseal?.close();
      await app.close();
      await core.close();
    },
  };
}

/** Initialises the node's empty database; the admin credentials. */
export function initNode(node: CustodyNode): Promise<InitResult> {
  return node.core.tenancy.init();
}
