import { metricsEnabled, type Config } from './config/config.js';
import type { CofferMetrics } from './metrics/coffer-metrics.js';
import { systemClock, type Clock } from './domain/clock.js';
import { buildReceivers, type ReceiversCore } from './receivers-wiring.js';
import { AuthService } from './services/auth.service.js';
import { GatewayService } from './services/gateway.service.js';
import { CertificateService } from './services/certificate.service.js';
import { PaymentMethodService } from './services/payment-method.service.js';
import { CacheSweeper } from './services/cache-sweeper.js';
import { KeyRotationService } from './services/key-rotation.service.js';
import { PaymentMethodSealer } from './services/payment-method-sealer.js';
import { WalletTokenService } from './services/wallet-tokens.service.js';
import { loadWalletTrust } from './vault/wallets/wallet-trust.js';
import { GatewayCaller } from './services/transactions/gateway-caller.js';
import { GatewayTransactionService } from './services/transactions/gateway-transaction.service.js';
import type { AttemptChain } from './services/routing/attempt-chain.js';
import { RetryingTransactions } from './services/routing/retrying-transactions.js';
import { TransactionQueryService } from './services/transactions/transaction-query.service.js';
import { IdempotencyService } from './services/idempotency.service.js';
import { GatewayHttpClient } from './gateways/kit/http-client.js';
import { BREAKER_POLICY, FallbackBreakerStore, InFlightLimiter, MemoryBreakerStore, type BreakerStore } from './limits/circuit-breaker.js';
import { RedisBreakerStore } from './limits/redis-breaker-store.js';
import { FallbackRateLimiter } from './limits/fallback-rate-limiter.js';
import { MemoryRateLimiter, type RateLimiter } from './limits/rate-limiter.js';
import { RedisRateLimiter } from './limits/redis-rate-limiter.js';
import { SharedStateStatus } from './limits/shared-state-status.js';
import type { RateLimiting } from './http/rate-limit.js';
import type { RateLimitName } from './limits/rate-limit-policy.js';
import type { Redis } from 'ioredis';
import { TenancyService } from './services/tenancy.service.js';
import { EventService } from './services/event.service.js';
import { DEFAULT_RECONCILE, Reconciler } from './services/transactions/reconciler.js';
import { buildCallbacks, type CallbacksCore } from './callbacks-wiring.js';
import { BrowserTokenizationService } from './card-capture/browser-tokenization.service.js';
import { AuditService } from './services/audit.service.js';
import { AuditChainService } from './services/audit-chain/audit-chain.service.js';
import { AuditChainer } from './services/audit-chain/audit-chainer.js';
import { CardAccessService } from './services/card-access.service.js';
import { AuditSigner } from './vault/audit-signing-key.js';
import { PeoplePolicyService } from './services/people-policy.service.js';
import { ComplianceService } from './services/compliance/compliance.service.js';
import { privatePaths, widePermissions } from './cli/file-permissions.js';
import { TLS12_CIPHERS, TLS13_CIPHERS } from './http/tls/tls-options.js';
import { OverviewService } from './services/overview.service.js';
import { OverviewRoller } from './services/overview-roller.js';
import { PortalUserService } from './services/portal-users.service.js';
import { DEFAULT_SESSION_POLICY, PortalSessionService } from './services/portal-sessions.service.js';
import { PortalSecretBox } from './vault/portal-secret-box.js';
import { migrateStore, openStore, type StoreHandle } from './store/database.js';
import { WorkflowService } from './services/routing/workflow.service.js';
import { RoutedTransactionService } from './services/routing/routed-transactions.js';
import { SuccessRates } from './services/routing/success-rates.js';
import { cryptoRandomInt, type RandomInt } from './services/routing/split-draw.js';
import { WrappedKeysRepo } from './store/repositories/wrapped-keys.repo.js';
import { Keyring } from './vault/keyring.js';
import { DefinitionCache } from './cache/definition-cache.js';
import { openMasterKeyProvider, type OpenedProvider } from './vault/master-key-providers/factory.js';
import type { MasterKeyProvider, MasterKeyProviderKind } from './vault/master-key-providers/provider.js';
import { SharesMasterKey } from './vault/master-key-providers/shares.js';
import { Pkcs11MasterKey } from './vault/master-key-providers/pkcs11.js';
import type { KeyReadiness } from './http/routes/health.routes.js';
import { MasterKeyChecksRepo } from './store/repositories/master-key-checks.repo.js';
import { PaymentMethodAdopter } from './services/portability/adopt-payment-method.js';
import { ImportKeyService } from './services/portability/import-keys.js';
import { ImportService } from './services/portability/import.service.js';
import { ExportService } from './services/portability/export.service.js';
import { storeAccess } from './store/store-access.js';
import { buildUpstreams, type UpstreamCore } from './upstream-wiring.js';

/** The services every entry point (server, CLI) shares. */
export interface Core extends ReceiversCore, CallbacksCore {
  config: Config;
  store: StoreHandle;
  keyring: Keyring;
  tenancy: TenancyService;
  gateways: GatewayService;
  certificates: CertificateService;
  paymentMethods: PaymentMethodService;
  sweeper: CacheSweeper;
  keyRotation: KeyRotationService;
  transactions: GatewayTransactionService;
  /** Tries a transaction's gateways in turn (a request's `retry`, a workflow's backups). */
  attemptChain: AttemptChain;
  transactionQuery: TransactionQueryService;
  idempotency: IdempotencyService;
  auth: AuthService;
  /** Authentication, environments, organizations and gateways in memory (docs/caching.md). */
  definitionCache: DefinitionCache;
  /** Tokenization with the environment key alone (card form, transparent redirect; docs/card-capture.md). */
  browserTokenization: BrowserTokenizationService;
  /** The merchant portal's users and sessions, and the audit log. */
  portalUsers: PortalUserService;
  portalSessions: PortalSessionService;
  audit: AuditService;
  /** The hash chain over audit events and card access records, and its upkeep (docs/audit.md). */
  auditChain: AuditChainService;
  auditChainer: AuditChainer;
  /** Each payment method's access log (docs/audit.md). */
  cardAccess: CardAccessService;
  /** The organization's two-step requirement and inactive members (docs/compliance.md, "People"). */
  peoplePolicy: PeoplePolicyService;
  /** `coffer compliance report` and the portal's compliance page (docs/compliance.md). */
  compliance: ComplianceService;
  overview: OverviewService;
  /** Counts the overview's ended hours ahead of the pages (started by `coffer serve`). */
  overviewRoller: OverviewRoller;
  /** API.md §7 rate limits (in Redis with COFFER_REDIS_URL, else in this process). */
  rateLimiting: RateLimiting;
  /** Reachability of Redis; null without COFFER_REDIS_URL. */
  sharedState: SharedStateStatus | null;
  /** The events feed (docs/events.md). */
  events: EventService;
  /** Settles unknown gateway results from the sweep (docs/events.md). */
  reconciler: Reconciler;
  /** The Prometheus metrics (docs/metrics.md); null when no metrics port or token is configured. */
  metrics: CofferMetrics | null;
  /** Routing workflows and the transactions they route (docs/routing.md). */
  workflows: WorkflowService;
  routedTransactions: RoutedTransactionService;
  /** Stores a payment method from another vault under its own token (docs/portability.md). */
  adopter: PaymentMethodAdopter;
  /** Live migration from a Spreedly-compatible upstream (docs/portability.md, "Live migration"). */
  upstreams: UpstreamCore;
  /** Each environment's OpenPGP import key pair, and the import jobs (docs/portability.md). */
  importKeys: ImportKeyService;
  imports: ImportService;
  /** Exports under dual control (docs/portability.md, "Exporting"). */
  vaultExports: ExportService;
  /** Set when a local master key file was generated on this start. */
  generatedMasterKeyFile: string | null;
  /** Where the master key lives (docs/key-custody.md): the provider new keys are wrapped with, and its seal when it is `shares`. */
  custody: KeyCustody;
  close(): Promise<void>;
}

/** The node's master key provider(s) and, for `shares`, the seal custodians open. */
export interface KeyCustody {
  provider: MasterKeyProvider;
  /** COFFER_MASTER_KEY_PREVIOUS_PROVIDER's provider (unwrapping only), or null. */
  previous: MasterKeyProvider | null;
  /** The shares provider (it starts sealed), or null with any other provider. */
  seal: SharesMasterKey | null;
  /** True while a shares node waits for its custodians: the API answers 503 errors.vault_sealed. */
  sealed(): boolean;
  /** What /readyz says of the master key; null for a key held in this process (file, env), which is always there. */
  readiness(): KeyReadiness | null;
  /** Opens another provider (the target of `coffer master-key rotate --to`) from this node's configuration. */
  open(kind: MasterKeyProviderKind): Promise<OpenedProvider>;
}

/** Sealed (shares), unreachable (pkcs11) or ok; null for file and env. */
function keyReadiness(provider: MasterKeyProvider, seal: SharesMasterKey | null): KeyReadiness | null {
  if (seal !== null) {
    const status = seal.status();
    return status.sealed ? { ready: false, masterKey: 'sealed', unseal: { submitted: status.submitted, threshold: status.threshold } } : { ready: true, masterKey: 'ok' };
  }
  if (provider instanceof Pkcs11MasterKey) return provider.reachable() ? { ready: true, masterKey: 'ok' } : { ready: false, masterKey: 'unreachable' };
  return null;
}

/**
 * Composition root: store → migrations → vault → services. `randomInt` draws the weighted splits of
 * workflows (docs/routing.md); tests that count draws pass a seeded one.
 */
export async function buildCore(config: Config, clock: Clock = systemClock, randomInt: RandomInt = cryptoRandomInt): Promise<Core> {
  const store = openStore(config.store);
  const opened: MasterKeyProvider[] = [];
  try {
    await migrateStore(store);
    // The one store access every service receives, each narrowed to the repositories it declares.
    const access = storeAccess(store);
    const sources = { dataDir: config.dataDir, masterKey: config.masterKey, pkcs11: config.pkcs11, checks: new MasterKeyChecksRepo(store.db), now: () => clock.now() };
    const master = await openMasterKeyProvider(config.masterKeyProvider, sources);
    opened.push(master.provider);
    const previous = config.previousMasterKeyProvider === null ? null : (await openMasterKeyProvider(config.previousMasterKeyProvider, sources)).provider;
    if (previous !== null) opened.push(previous);
    const keyring = new Keyring(new WrappedKeysRepo(store.db), master.provider, {
      previousMasterKeys: config.previousMasterKeys,
      previousProviders: previous === null ? [] : [previous],
      now: () => clock.now(),
    });
    await keyring.verifyMasterKey();
    const seal = master.provider instanceof SharesMasterKey ? master.provider : null;
    const custody: KeyCustody = { provider: master.provider, previous, seal, sealed: () => seal?.sealed() ?? false, readiness: () => keyReadiness(master.provider, seal),
      open: async (kind) => {
        const other = await openMasterKeyProvider(kind, sources);
        opened.push(other.provider);
        return other;
      },
    };
    const idempotency = new IdempotencyService(access, clock, (environmentKey, key) => keyring.hashIdempotencyKey(environmentKey, key));
    // Definitions every request reads, kept in this node's memory while the store's generation stands.
    const cache = new DefinitionCache(store);
    const gateways = new GatewayService(access, keyring, clock, cache);
    const walletTrust = loadWalletTrust(config.wallets);
    const paymentMethods = new PaymentMethodService(access, keyring, clock, config.cacheTtlSeconds, new WalletTokenService(access, keyring, clock, walletTrust));
    // Endpoint overrides are destinations chosen outside the code: checked and pinned like receivers.
    const certificates = new CertificateService(access, keyring, clock);
    const sealer = new PaymentMethodSealer(keyring);
    const receiving = buildReceivers(config, { access, keyring, clock, certificates, sealer });
    const transactionQuery = new TransactionQueryService(access, gateways, clock);
    const events = new EventService(access, clock, config.eventRetentionDays);
    const callbacks = buildCallbacks({ access, keyring, clock, client: receiving.deliveryClient, transactionQuery, events, timeoutMs: config.receiverTimeoutMs });
    // Overridden gateway endpoints are user-supplied destinations too: the receivers' egress guard checks them.
    const http = new GatewayHttpClient({ guard: receiving.egress, overrides: Object.values(config.gateways.endpoints) });
    const shared = config.redisUrl === null ? null : await connectShared(config.redisUrl);
    // With Redis the breaker and the rate limits are shared by every node; if Redis fails, this node's memory stands in.
    // A probe's lease must outlast the slowest call it may make.
    const longestCallMs = Math.max(config.gateways.timeoutMs, ...Object.values(config.gateways.timeoutMsByType));
    const probeLeaseMs = Math.max(BREAKER_POLICY.probeLeaseMs, longestCallMs + 30_000);
    const breaker: BreakerStore =
      shared === null
        ? new MemoryBreakerStore(probeLeaseMs)
        : new FallbackBreakerStore(new RedisBreakerStore(shared.redis, undefined, probeLeaseMs), new MemoryBreakerStore(probeLeaseMs), shared.status);
    const limiter: RateLimiter =
      shared === null ? new MemoryRateLimiter() : new FallbackRateLimiter(new RedisRateLimiter(shared.redis), new MemoryRateLimiter(), shared.status);
    // Nothing is collected (and the hooks cost nothing) unless metrics are served somewhere.
    // prom-client is loaded only where metrics are on (as ioredis only with Redis, pg only with
    // PostgreSQL): what a process loads stays in its heap (docs/benchmarks.md, "Import").
    const metrics = metricsEnabled(config.metrics) ? new (await import('./metrics/coffer-metrics.js')).CofferMetrics({ store, breaker, now: () => clock.now().getTime() }) : null;
    const caller = new GatewayCaller(breaker, new InFlightLimiter(config.gateways.maxInFlight), { http, endpoints: config.gateways.endpoints }, config.gateways, clock, metrics);
    const reconciler = new Reconciler(access, gateways, caller, clock, { ...DEFAULT_RECONCILE, windowMs: config.reconcileWindowMinutes * 60_000, notFoundAfterMs: config.reconcileNotFoundAfterSeconds * 1000 });
    const transactions = new GatewayTransactionService(access, gateways, paymentMethods, sealer, caller, clock);
    const attemptChain = new RetryingTransactions(gateways, transactions);
    const workflows = new WorkflowService(access, gateways, clock);
    const routedTransactions = new RoutedTransactionService(access, workflows, gateways, attemptChain, new SuccessRates(clock), randomInt, clock);
    const adopter = new PaymentMethodAdopter({ store: access, sealer, clock, cacheTtlSeconds: config.cacheTtlSeconds });
    const upstreams = buildUpstreams({ access, keyring, clock, egress: receiving.egress, adopter, timeoutMs: config.receiverTimeoutMs });
    const importKeys = new ImportKeyService(access, keyring, clock);
    const imports = new ImportService(access, adopter, importKeys, keyring, clock);
    const audit = new AuditService(access, clock);
    const auditChain = new AuditChainService(access, new AuditSigner(keyring), clock, { batchSize: 500, retentionMonths: config.audit.retentionMonths });
    const auditChainer = new AuditChainer(auditChain, clock, { chainIntervalMs: config.audit.chainIntervalMs, checkpointIntervalMs: config.audit.checkpointIntervalMs, pruneIntervalMs: 24 * 3_600_000 });
    const peoplePolicy = new PeoplePolicyService(access, clock, config.people);
    const compliance = new ComplianceService(access, auditChain, peoplePolicy, complianceSettings(config, custody), clock);
    const vaultExports = new ExportService(access, sealer, importKeys, audit, clock);
    const overview = new OverviewService(access, gateways, clock);
    const overviewRoller = new OverviewRoller(access, overview);
    const sweeper = new CacheSweeper(access, clock, { idempotency, exports: receiving.exports, abandonedCalls: transactionQuery, events, reconciler });
    return {
      config,
      store,
      keyring,
      tenancy: new TenancyService(access, keyring, clock),
      gateways,
      certificates,
      ...receiving,
      paymentMethods,
      sweeper,
      keyRotation: new KeyRotationService(access, keyring, clock),
      transactions,
      workflows,
      routedTransactions,
      adopter,
      upstreams,
      importKeys,
      imports,
      vaultExports,
      attemptChain,
      transactionQuery,
      idempotency,
      browserTokenization: new BrowserTokenizationService(access, paymentMethods, certificates, clock, cache, upstreams.pullThrough),
      auth: new AuthService(access, keyring, clock, cache),
      definitionCache: cache,
      portalUsers: new PortalUserService(access, new PortalSecretBox(keyring), clock, config.people),
      portalSessions: new PortalSessionService(access, clock, { idleMs: config.people.idleTimeoutMs, absoluteMs: DEFAULT_SESSION_POLICY.absoluteMs }),
      audit,
      auditChain,
      auditChainer,
      cardAccess: new CardAccessService(access),
      peoplePolicy,
      compliance,
      overview,
      overviewRoller,
      rateLimiting: {
        limiter,
        rules: config.rateLimits,
        clock,
        trustProxy: config.trustProxy,
        // The environment's fingerprint key (HMAC): the same on every node, never stored in clear.
        hashCardKey: (environmentKey, material) => keyring.fingerprint(environmentKey, material),
        ...(metrics === null ? {} : { onRefused: (limit: RateLimitName) => metrics.rateLimited(limit) }),
      },
      metrics,
      sharedState: shared?.status ?? null,
      events,
      reconciler,
      ...callbacks,
      generatedMasterKeyFile: master.generatedFile,
      custody,
      close: async () => {
        await sweeper.stop();
        await auditChainer.stop();
        await overviewRoller.stop();
        await upstreams.close();
        await callbacks.callbacks.stop();
        await receiving.exports.drain();
        await http.close();
        shared?.redis.disconnect();
        metrics?.close();
        for (const provider of opened) await provider.close();
        await store.close();
      },
    };
  } catch (error) {
    for (const provider of opened) await provider.close();
    await store.close();
    throw error;
  }
}

/** What the compliance report is told of this configuration (docs/compliance.md). */
function complianceSettings(config: Config, custody: KeyCustody) {
  return {
    keyProvider: custody.provider.kind,
    custody: () => {
      const status = custody.seal?.status();
      return {
        hsmReachable: custody.provider instanceof Pkcs11MasterKey ? custody.provider.reachable() : null,
        custodians: status === undefined || !status.initialised ? null : { threshold: status.threshold, shares: status.shares },
      };
    },
    people: config.people,
    auditRetentionMonths: config.audit.retentionMonths,
    checkpointIntervalMs: config.audit.checkpointIntervalMs,
    tls: { mode: config.tls.mode, protocols: config.tls.mode === 'off' ? [] : ['TLSv1.2', 'TLSv1.3'], cipherSuites: config.tls.mode === 'off' ? [] : [...TLS13_CIPHERS, ...TLS12_CIPHERS] },
    dataDirectory: config.dataDir,
    widePermissions: () => widePermissions(privatePaths(config)),
  };
}

/**
 * The Redis client every node shares state through, and its reachability. Commands fail at once
 * while disconnected (no offline queue) and after 1 s on a hung Redis. Waits (at most
 * `timeoutMs`) for the first connection attempt, so a node that starts with Redis down reports it
 * at once; it starts either way, and the client keeps reconnecting.
 */
async function connectShared(url: string, timeoutMs = 2_000): Promise<{ redis: Redis; status: SharedStateStatus }> {
  const { Redis: RedisClient } = await import('ioredis');
  const redis = new RedisClient(url, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 1_000 });
  const status = new SharedStateStatus();
  redis.on('error', (error: unknown) => status.reportFailure(error));
  redis.on('ready', () => status.reportSuccess());
  await new Promise<void>((resolve) => {
    if (redis.status === 'ready') return resolve();
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done);
    redis.once('error', done);
  });
  return { redis, status };
}
