import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildCore, type Core } from '../src/app.js';
import { buildApp } from '../src/http-app.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/logger.js';
import type { InitResult } from '../src/services/tenancy.service.js';
import { FUZZ_PAN } from './fuzz-inputs.js';
import { parsePrintedRoutes, type Endpoint } from './route-table.js';

/**
 * Coffer built in this process (src/app.ts buildCore + buildApp, SQLite in a scratch directory,
 * logs to a file), its endpoints read from the app's own route table, and fixtures to aim at:
 * real tokens of each kind, refreshed per endpoint so that one endpoint's redactions do not
 * blunt the next one's cases.
 */
export interface FuzzHarness {
  app: FastifyInstance;
  core: Core;
  endpoints: Endpoint[];
  init: InitResult;
  authorization: string;
  logFile: string;
  /** Fresh fixtures: tokens by the path segment that names their kind (`gateways`, …). */
  fixtures(): Promise<Fixtures>;
  close(): Promise<void>;
}

/** Tokens of each kind, and a payment method token for bodies. */
export interface Fixtures {
  byKind: Record<string, string[]>;
  paymentMethod: string;
}

export async function startFuzzHarness(options: { dataDir: string; logFile: string }): Promise<FuzzHarness> {
  const config = loadConfig({
    COFFER_DATA_DIR: options.dataDir,
    COFFER_TLS: 'off',
    COFFER_RATE_LIMITS: '{"*":null}',
    COFFER_LOG_LEVEL: 'info',
    // Fuzzed deliveries must not wait on the network for long.
    COFFER_GATEWAY_TIMEOUT: '2',
  });
  const core = await buildCore(config);
  const destination = pino.destination({ dest: options.logFile, sync: true, mkdir: true });
  const app = buildApp(core, createLogger('info', destination), null);
  await app.ready();
  const init = await core.tenancy.init();
  const authorization = `Basic ${Buffer.from(`${init.environment_key}:${init.access_secret}`).toString('base64')}`;
  const endpoints = parsePrintedRoutes(app.printRoutes({ commonPrefix: false }));
  const send = async (method: 'POST' | 'PUT', url: string, payload: unknown) => {
    const reply = await app.inject({ method, url, headers: { authorization, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    if (reply.statusCode >= 300) throw new Error(`fixture ${method} ${url} answered ${reply.statusCode}`);
    return reply.json();
  };
  // A second secret to be the target of DELETE …/access_secrets/:secretKey: the harness's own must survive.
  const spareSecret = await core.tenancy.createAccessSecret(init.organization_token, { name: 'fuzz-target', role: 'read', environmentKeys: [init.environment_key] });
  return {
    app,
    core,
    endpoints,
    init,
    authorization,
    logFile: options.logFile,
    fixtures: async () => {
      const gateway = (await send('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).gateway.token as string;
      const card = { first_name: 'Joe', last_name: 'Jones', number: FUZZ_PAN, verification_value: '123', month: 3, year: 2035 };
      const paymentMethod = (await send('POST', '/v1/payment_methods.json', { payment_method: { credit_card: card, retained: true } })).transaction.payment_method.token as string;
      const purchase = (await send('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: paymentMethod, amount: 100, currency_code: 'USD' } })).transaction.token as string;
      const authorization = (await send('POST', `/v1/gateways/${gateway}/authorize.json`, { transaction: { payment_method_token: paymentMethod, amount: 100, currency_code: 'USD' } })).transaction.token as string;
      return {
        paymentMethod,
        byKind: {
          gateways: [gateway],
          payment_methods: [paymentMethod],
          transactions: [purchase, authorization],
          environments: [init.environment_key],
          access_secrets: [spareSecret.accessSecret.key],
        },
      };
    },
    close: async () => {
      await app.close();
      await core.close();
      destination.flushSync();
    },
  };
}

/** The path segment before each `:param` of a route, e.g. `gateways` for `/v1/gateways/:token`. */
export function paramKinds(url: string): string[] {
  const segments = url.split('/');
  return segments.flatMap((segment, index) => (segment.startsWith(':') ? [segments[index - 1] ?? ''] : []));
}

/** A scratch directory for one harness. */
export function harnessPaths(root: string): { dataDir: string; logFile: string } {
  fs.mkdirSync(root, { recursive: true });
  return { dataDir: path.join(root, 'data'), logFile: path.join(root, 'fuzz-app.log') };
}
