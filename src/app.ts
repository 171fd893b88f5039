import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import { systemClock, type Clock } from './domain/clock.js';
import { buildHttpApp } from './http/server.js';
import { ensureLocalTls, loadTlsFiles } from './http/tls/local-ca.js';
import { AuthService } from './services/auth.service.js';
import { GatewayService } from './services/gateway.service.js';
import { PaymentMethodService } from './services/payment-method.service.js';
import { CacheSweeper } from './services/cache-sweeper.js';
import { KeyRotationService } from './services/key-rotation.service.js';
import { PaymentMethodSealer } from './services/payment-method-sealer.js';
import { GatewayCaller } from './services/transactions/gateway-caller.js';
import { GatewayTransactionService } from './services/transactions/gateway-transaction.service.js';
import { TransactionQueryService } from './services/transactions/transaction-query.service.js';
import { IdempotencyService } from './services/idempotency.service.js';
import { GatewayHttpClient } from './gateways/http-client.js';
import { BREAKER_POLICY, FallbackBreakerStore, InFlightLimiter, MemoryBreakerStore, type BreakerStore } from './limits/circuit-breaker.js';
import { RedisBreakerStore } from './limits/redis-breaker-store.js';
import { Redis } from 'ioredis';
import { TenancyService } from './services/tenancy.service.js';
import { migrateStore, openStore, type StoreHandle } from './store/database.js';
import { Keyring } from './vault/keyring.js';
import { resolveMasterKey } from './vault/master-key.js';

/** The services every entry point (server, CLI) shares. */
export interface Core {
  config: Config;
  store: StoreHandle;
  keyring: Keyring;
  tenancy: TenancyService;
  gateways: GatewayService;
  paymentMethods: PaymentMethodService;
  sweeper: CacheSweeper;
  keyRotation: KeyRotationService;
  transactions: GatewayTransactionService;
  transactionQuery: TransactionQueryService;
  idempotency: IdempotencyService;
  auth: AuthService;
  /** Set when a local master key file was generated on this start. */
  generatedMasterKeyFile: string | null;
  close(): Promise<void>;
}

/** Composition root: store → migrations → vault → services. */
export async function buildCore(config: Config, clock: Clock = systemClock): Promise<Core> {
  const master = resolveMasterKey(config.masterKey, config.dataDir);
  const store = openStore(config.store);
  try {
    await migrateStore(store);
    const keyring = new Keyring(store.db, master.key, { previousMasterKeys: config.previousMasterKeys, now: () => clock.now() });
    await keyring.verifyMasterKey();
    const idempotency = new IdempotencyService(store, clock);
    const sweeper = new CacheSweeper(store, clock, idempotency);
    const gateways = new GatewayService(store, keyring, clock);
    const paymentMethods = new PaymentMethodService(store, keyring, clock, config.cacheTtlSeconds);
    const http = new GatewayHttpClient();
    const redis = config.redisUrl === null ? null : new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    redis?.on('error', () => undefined);
    // With Redis the breaker is shared by every node; if Redis fails, this node's memory stands in.
    // A probe's lease must outlast the slowest call it may make.
    const longestCallMs = Math.max(config.gateways.timeoutMs, ...Object.values(config.gateways.timeoutMsByType));
    const probeLeaseMs = Math.max(BREAKER_POLICY.probeLeaseMs, longestCallMs + 30_000);
    const breaker: BreakerStore =
      redis === null
        ? new MemoryBreakerStore(probeLeaseMs)
        : new FallbackBreakerStore(new RedisBreakerStore(redis, undefined, probeLeaseMs), new MemoryBreakerStore(probeLeaseMs), () => undefined);
    const caller = new GatewayCaller(breaker, new InFlightLimiter(config.gateways.maxInFlight), { http, endpoints: config.gateways.endpoints }, config.gateways, clock);
    return {
      config,
      store,
      keyring,
      tenancy: new TenancyService(store, keyring, clock),
      gateways,
      paymentMethods,
      sweeper,
      keyRotation: new KeyRotationService(store, keyring),
      transactions: new GatewayTransactionService(store, gateways, paymentMethods, new PaymentMethodSealer(keyring), caller, clock),
      transactionQuery: new TransactionQueryService(store, gateways),
      idempotency,
      auth: new AuthService(store, keyring),
      generatedMasterKeyFile: master.created ? master.localFile : null,
      close: async () => {
        await sweeper.stop();
        await http.close();
        redis?.disconnect();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** TLS material per configuration, and the CA path to print when Coffer made its own. */
export async function resolveTls(config: Config): Promise<{ material: { key: string; cert: string } | null; caPath: string | null }> {
  if (config.tls.mode === 'off') return { material: null, caPath: null };
  if (config.tls.mode === 'files') return { material: await loadTlsFiles(config.tls.certPath, config.tls.keyPath), caPath: null };
  const local = await ensureLocalTls(config.dataDir);
  return { material: local, caPath: local.caPath };
}

/** The HTTP app over a built core. */
export function buildApp(core: Core, logger: Logger, tls: { key: string; cert: string } | null): FastifyInstance {
  return buildHttpApp({ ...core, logger }, tls);
}
