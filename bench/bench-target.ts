import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareTenant, type BenchTenant } from './bench-tenant.js';
import { cofferBin, createProductionEnvironment, initStore, newMasterKey, startCoffer, type InitCredentials, type RunningCoffer } from './coffer-process.js';
import { createScratchDatabase, type ScratchDatabase } from './postgres-database.js';
import { pkcs11BenchEnv, type BenchMasterKeyProvider } from './hsm-provider.js';
import type { BuildLabel, StoreKind } from './summary.js';

/** One Coffer under test: its process, its store, the fixtures its scenarios use. */
export interface BenchTarget {
  store: StoreKind;
  build: BuildLabel;
  coffer: RunningCoffer;
  tenant: BenchTenant;
  /** The COFFER_* settings it runs with (to restart it on the same data). */
  env: Record<string, string>;
  init: InitCredentials;
  logFile: string;
  /** Bearer token of the server's /metrics (on its API port), for the commit figures. */
  metricsToken: string;
  /** Stops the server, drops its database and removes its data directory. */
  close(): Promise<void>;
}

export interface TargetOptions {
  store: StoreKind;
  build: BuildLabel;
  /** Admin URL of the PostgreSQL server (for store `postgres`). */
  postgresUrl: string | null;
  /** The fake gateway's URL: the Stripe gateway type is pointed at it. */
  fakeGatewayUrl: string | null;
  /** Directory the server's log file is written to. */
  logDir: string;
  /** Another checkout's bin/coffer (for build `compare`). */
  bin?: string;
  nodeArgs?: string[];
  sizes?: { cards: number; purchases: number };
  /** More COFFER_* settings (e.g. a short gateway timeout for a drill). */
  env?: Record<string, string>;
  /** Where the master key lives: COFFER_MASTER_KEY (default) or a SoftHSM2 token made for the run. */
  masterKeyProvider?: BenchMasterKeyProvider;
}

/**
 * Initialises a fresh store (CLI `init`, plus a production environment when a fake gateway is
 * given), starts `coffer serve` on it and builds the fixtures over the API.
 */
export async function startTarget(options: TargetOptions): Promise<BenchTarget> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `coffer-bench-${options.store}-`));
  let database: ScratchDatabase | null = null;
  let coffer: RunningCoffer | null = null;
  const cleanup = async () => {
    await coffer?.stop();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    if (options.store === 'postgres') {
      if (options.postgresUrl === null) throw new Error('the postgres store needs COFFER_BENCH_DATABASE_URL');
      database = await createScratchDatabase(options.postgresUrl);
    }
    const metricsToken = randomBytes(24).toString('base64url');
    const settings: Record<string, string> = {
      COFFER_DATA_DIR: dataDir,
      // The bench reads commit latency and batch size from the server's own metrics.
      COFFER_METRICS_TOKEN: metricsToken,
      COFFER_MASTER_KEY: newMasterKey(),
      ...(database === null ? {} : { COFFER_DATABASE_URL: database.url }),
      // The fake gateway listens on loopback, which egress refuses unless the operator allows it.
      ...(options.fakeGatewayUrl === null ? {} : { COFFER_GATEWAY_ENDPOINTS: JSON.stringify({ stripe: options.fakeGatewayUrl }), COFFER_EGRESS_ALLOW: '127.0.0.1' }),
      ...options.env,
    };
    const bin = options.bin ?? cofferBin;
    // The HSM's token directory sits in the data directory's parent tree, removed with it.
    const env = options.masterKeyProvider === 'pkcs11' ? await pkcs11BenchEnv(path.join(dataDir, 'softhsm'), settings, bin) : settings;
    const init = await initStore(env, bin);
    const live = options.fakeGatewayUrl === null ? null : await createProductionEnvironment(env, init.organization_token, bin);
    fs.mkdirSync(options.logDir, { recursive: true });
    const logFile = path.join(options.logDir, `${options.build}-${options.store}.log`);
    coffer = await startCoffer({ env, logFile, bin, ...(options.nodeArgs === undefined ? {} : { nodeArgs: options.nodeArgs }) });
    const tenant = await prepareTenant(coffer.url, init, live, options.sizes ?? { cards: 100, purchases: 100 });
    const started = coffer;
    return { store: options.store, build: options.build, coffer: started, tenant, env, init, logFile, metricsToken, close: cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
