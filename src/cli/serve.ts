import type { Config } from '../config/config.js';
import type { Logger } from 'pino';
import { buildCore, type Core } from '../app.js';
import { buildApp, resolveTls, startMetricsListener } from '../http-app.js';
import { createLogger, logDestination } from '../logger.js';
import { warnWidePermissions } from './file-permissions.js';
import { createDatabaseIfMissing, initialiseIfEmpty } from './initialise.js';
import { credentialsBlock, startBanner, type FirstCredentials } from './start-banner.js';
import { buildUnsealServer } from '../http/unseal-server.js';
import { Pkcs11MasterKey } from '../vault/master-key-providers/pkcs11.js';

/**
 * `coffer serve`: migrate, initialise an empty database, make or load TLS material, listen, then
 * print the start banner (the credentials once, the CA, the portal, the address) in one piece
 * before any log line, and shut down cleanly on SIGTERM/SIGINT.
 */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, logDestination());
  await createDatabaseIfMissing(config);
  const core = await buildCore(config);
  // A sealed node cannot make keys: `coffer init --key-shares` initialises a shares database.
  const init = core.custody.seal !== null ? null : await initialiseIfEmpty(core);
  try {
    await listen(config, logger, core, init);
  } catch (error) {
    // Credentials are shown only once: a start that fails after making them must still show them.
    if (init !== null) process.stderr.write(`${credentialsBlock(init).join('\n')}\n`);
    throw error;
  }
}

/** Everything after initialisation; the banner is its last output before the logs. */
async function listen(config: Config, logger: Logger, core: Core, init: FirstCredentials | null): Promise<void> {
  const tls = await resolveTls(config);
  const app = buildApp(core, logger, tls.material);
  const seal = core.custody.seal;
  // Background work needs keys: on a sealed node it starts once custodians unsealed it.
  const startBackground = () => {
    // Caching windows end on time even when nobody reads the card (the read path also enforces them).
    core.sweeper.start(
      config.sweepIntervalMs,
      (error) => logger.error({ err: { type: (error as Error).name, message: (error as Error).message } }, 'cache sweep failed'),
      (result) => {
        if (result.redacted > 0 || result.cvvsDropped > 0 || result.idempotencyKeysExpired > 0 || result.exportsInterrupted > 0 || result.abandonedCallsSettled > 0 || result.reconciled > 0) logger.info(result, 'cache sweep');
      },
    );
    // The audit chain links what was recorded, signs its head and prunes past the retention (docs/audit.md).
    core.auditChainer.start((error) => logger.error({ err: { type: (error as Error).name, message: (error as Error).message } }, 'audit chain round failed'));
    // The overview's ended hours are counted ahead of the pages, at start and then each minute (docs/portal.md, "Overview").
    core.overviewRoller.start(60_000, (error) => logger.error({ err: { type: (error as Error).name, message: (error as Error).message } }, 'overview figures round failed'));
    // Queued callbacks go out from every node; each attempt is claimed by one (docs/events.md, "Delivery").
    core.callbacks.start(config.callbackPollMs, (error) => logger.error({ err: { type: (error as Error).name, message: (error as Error).message } }, 'callback delivery round failed'));
  };
  if (seal === null) startBackground();
  else seal.whenUnsealed(startBackground);
  const address = await app.listen({ host: config.host, port: config.port });
  const metricsListener = await startMetricsListener(core, logger);
  const unsealListener = seal === null ? null : buildUnsealServer(seal, logger);
  const unsealUrl = unsealListener === null ? null : await unsealListener.listen({ host: config.unseal.host, port: config.unseal.port });
  const url = tls.material === null ? address : address.replace(/^http:/, 'https:');

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    void app
      .close()
      .then(() => metricsListener?.close())
      .then(() => unsealListener?.close())
      .then(() => core.close())
      .then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // Announced once SIGTERM is handled: a script that stops Coffer as soon as it listens gets a
  // clean shutdown, not the default kill. One write, so no log line lands inside it (README,
  // "Two commands", quotes it).
  process.stderr.write(
    startBanner({ init, generatedMasterKeyFile: core.generatedMasterKeyFile, caPath: tls.caPath, portalUrl: config.portal ? `${url}/portal/` : null, url }),
  );
  // The log lines of the start, after the banner.
  if (core.generatedMasterKeyFile !== null) {
    logger.warn({ file: core.generatedMasterKeyFile }, 'generated a local master key; production must supply its own COFFER_MASTER_KEY (base64, 32 bytes)');
  }
  const unreachable = core.custody.provider instanceof Pkcs11MasterKey ? core.custody.provider.unavailableReason() : null;
  if (unreachable !== null) {
    // The node serves anyway: every request that needs a key answers 503 until the HSM is back.
    logger.error({ provider: 'pkcs11', reason: unreachable }, 'master key unavailable at start: the API answers 503 until the HSM can be reached (see docs/key-custody.md)');
  }
  if (seal !== null) {
    const status = seal.status();
    if (!status.initialised) logger.error({ unsealUrl }, 'no master key was split into shares for this database: run coffer init --key-shares N --threshold M');
    else logger.warn({ unsealUrl, threshold: status.threshold, shares: status.shares }, 'vault sealed: the API answers 503 until custodians submit their shares with coffer unseal');
  }
  // After everything this start creates: what is still wider was made before, or by someone else.
  warnWidePermissions(logger, config);
  if (metricsListener !== null) logger.info({ url: `${metricsListener.url}/metrics` }, 'metrics listening');
  logger.info({ url, store: config.store.kind }, 'listening');
  // The start's lines now, not with the next batch (logger.ts).
  logger.flush();
}
