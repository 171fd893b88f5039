import { storeAccess } from '../src/store/store-access.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { buildCore, type Core } from '../src/app.js';
import { DefinitionCache } from '../src/cache/definition-cache.js';
import { loadConfig } from '../src/config/config.js';
import { systemClock } from '../src/domain/clock.js';
import { AuthService } from '../src/services/auth.service.js';
import { GatewayService } from '../src/services/gateway.service.js';
import type { StoreHandle } from '../src/store/database.js';
import { repositories } from '../src/store/repositories.js';
import { createScratchDatabase } from './postgres-database.js';

/*
 * Micro-benchmark of the definition cache (docs/caching.md, "Cost"): what every gateway request pays before it reaches the payment method,
 * i.e. authentication plus the gateway lookup and its credentials, without the definition cache
 * (the reads as they were) and with it (warm). Sequential calls on one core, so the figures are
 * per-request cost, not throughput. Counts the statements each request runs.
 *
 *   npx tsc -p tsconfig.bench.json && node dist/tools/bench/auth-cache.js [--postgres <admin url>] [--iterations N]
 */

/** Counts every statement run through the handle it is plugged into. */
class StatementCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.count += 1;
    return args.result;
  }
}

interface Figures {
  microsPerRequest: number;
  statementsPerRequest: number;
}

async function timed(iterations: number, counter: StatementCounter, request: () => Promise<void>): Promise<Figures> {
  for (let i = 0; i < Math.min(200, iterations); i++) await request();
  counter.count = 0;
  const start = performance.now();
  for (let i = 0; i < iterations; i++) await request();
  const elapsed = performance.now() - start;
  return { microsPerRequest: (elapsed * 1000) / iterations, statementsPerRequest: counter.count / iterations };
}

async function measure(label: string, core: Core, iterations: number): Promise<void> {
  const init = await core.tenancy.init();
  // A live environment, so the gateway has sealed credentials to open (the test gateway has none).
  const live = await core.tenancy.createEnvironment(init.organization_token, 'live', true);
  const counter = new StatementCounter();
  const counted: StoreHandle = { ...core.store, db: core.store.db.withPlugin(counter) };
  const cache = new DefinitionCache(counted);
  const auth = new AuthService(storeAccess(counted), core.keyring, systemClock, cache);
  const gateways = new GatewayService(storeAccess(counted), core.keyring, systemClock, cache);
  const gateway = await gateways.create(live, 'stripe', { credentials: { login: 'sk_live_BENCHMARKONLY' } });
  const repos = repositories(counted.db, counted.dialect);

  // The reads authentication and the gateway lookup made on every request before the cache.
  const readEverything = async () => {
    const hash = await core.keyring.hashSecret(init.access_secret);
    const [environment, secret] = await Promise.all([repos.environments.find(live.key), repos.accessSecrets.findLiveByHash(hash)]);
    if (environment === undefined || secret === undefined) throw new Error('benchmark secret not found');
    if ((await repos.organizations.find(environment.organizationToken)) === undefined) throw new Error('benchmark organization not found');
    const row = await repos.gateways.find(environment.key, gateway.token);
    if (row === undefined) throw new Error('benchmark gateway not found');
    // A fresh row object each time: its credentials are opened again, as before.
    await gateways.openCredentials(row);
  };
  const fromCache = async () => {
    const context = await auth.authenticate(live.key, init.access_secret, 'transact', false);
    if (context === null) throw new Error('benchmark secret refused');
    const record = await gateways.show(context.environment, gateway.token);
    await gateways.openCredentials(record);
  };
  // Ten requests at a time, as the bench's ten connections: on PostgreSQL they share generation reads.
  const tenAtATime = async (request: () => Promise<void>): Promise<Figures> => {
    const f = await timed(iterations / 10, counter, () => Promise.all(Array.from({ length: 10 }, request)).then(() => undefined));
    return { microsPerRequest: f.microsPerRequest / 10, statementsPerRequest: f.statementsPerRequest / 10 };
  };
  const uncached = await timed(iterations, counter, readEverything);
  const cached = await timed(iterations, counter, fromCache);
  const uncachedTen = await tenAtATime(readEverything);
  const cachedTen = await tenAtATime(fromCache);
  const row = (name: string, f: Figures) => `| ${label} | ${name} | ${f.microsPerRequest.toFixed(1)} | ${f.statementsPerRequest.toFixed(2)} |`;
  console.log(row('reads on every request (before)', uncached));
  console.log(row('definition cache, warm (after)', cached));
  console.log(row('reads on every request, 10 at a time (before)', uncachedTen));
  console.log(row('definition cache, warm, 10 at a time (after)', cachedTen));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at === -1 ? undefined : args[at + 1];
  };
  const iterations = Number(option('--iterations') ?? 5000);
  const postgres = option('--postgres');
  console.log(`| store | path | µs per request | statements per request |\n|---|---|---|---|`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-auth-bench-'));
  try {
    const sqlite = await buildCore(loadConfig({ COFFER_DATA_DIR: dir, COFFER_TLS: 'off', COFFER_LOG_LEVEL: 'error' }));
    try {
      await measure('SQLite', sqlite, iterations);
    } finally {
      await sqlite.close();
    }
    if (postgres !== undefined) {
      const database = await createScratchDatabase(postgres, 'coffer_auth_bench');
      try {
        const core = await buildCore(loadConfig({ COFFER_DATA_DIR: dir, COFFER_TLS: 'off', COFFER_LOG_LEVEL: 'error', COFFER_DATABASE_URL: database.url }));
        try {
          await measure('PostgreSQL', core, iterations);
        } finally {
          await core.close();
        }
      } finally {
        await database.drop();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
