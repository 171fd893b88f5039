import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import { systemClock, type Clock } from './domain/clock.js';
import { buildHttpApp } from './http/server.js';
import { ensureLocalTls, loadTlsFiles } from './http/tls/local-ca.js';
import { AuthService } from './services/auth.service.js';
import { GatewayService } from './services/gateway.service.js';
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
    const keyring = new Keyring(store.db, master.key, () => clock.now());
    await keyring.verifyMasterKey();
    return {
      config,
      store,
      keyring,
      tenancy: new TenancyService(store, keyring, clock),
      gateways: new GatewayService(store, keyring, clock),
      auth: new AuthService(store, keyring),
      generatedMasterKeyFile: master.created ? master.localFile : null,
      close: () => store.close(),
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
  return buildHttpApp({ store: core.store, logger, auth: core.auth, tenancy: core.tenancy, gateways: core.gateways }, tls);
}
