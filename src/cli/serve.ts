import type { Config } from '../config/config.js';
import { buildApp, buildCore, resolveTls, startMetricsListener } from '../app.js';
import { createLogger, logDestination } from '../logger.js';
import { NotEmptyError, type InitResult } from '../services/tenancy.service.js';
import type { Core } from '../app.js';
import type { CreatedUser } from '../services/portal-users.service.js';
import { warnWidePermissions } from './file-permissions.js';

/** The portal owner created on a fresh installation. */
export const INITIAL_OWNER_EMAIL = 'owner@coffer.local';

/** Initialises an empty database; null when it was not empty (or another node got there first). */
async function initIfEmpty(core: Core): Promise<(InitResult & { owner: CreatedUser | null }) | null> {
  if (!(await core.tenancy.isEmpty())) return null;
  try {
    const init = await core.tenancy.init();
    const owner = await core.portalUsers.createInitialOwner(init.organization_token, INITIAL_OWNER_EMAIL);
    return { ...init, owner };
  } catch (error) {
    if (error instanceof NotEmptyError) return null;
    throw error;
  }
}

/**
 * `coffer serve`: migrate, initialise an empty database (printing its credentials once),
 * make or load TLS material, listen, and shut down cleanly on SIGTERM/SIGINT.
 */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, logDestination());
  const core = await buildCore(config);
  if (core.generatedMasterKeyFile !== null) {
    logger.warn(
      { file: core.generatedMasterKeyFile },
      'generated a local master key; production must supply its own COFFER_MASTER_KEY (base64, 32 bytes)',
    );
  }
  const init = await initIfEmpty(core);
  if (init !== null) {
    // Printed to the terminal once, never logged: this is the only time the secret is shown.
    process.stderr.write(
      [
        'Coffer initialised an empty database. Save these now: the access secret and the password are not shown again.',
        `  organization_token  ${init.organization_token}`,
        `  environment_key     ${init.environment_key}`,
        `  access_secret_key   ${init.access_secret_key}`,
        `  access_secret       ${init.access_secret}`,
        ...(init.owner === null || init.owner.password === null
          ? []
          : [`  portal_email        ${init.owner.user.email}`, `  portal_password     ${init.owner.password}`]),
        '',
      ].join('\n'),
    );
  }
  const tls = await resolveTls(config);
  if (tls.caPath !== null) process.stderr.write(`Local CA certificate (pass to clients, e.g. curl --cacert): ${tls.caPath}\n`);
  // After everything this start creates: what is still wider was made before, or by someone else.
  warnWidePermissions(logger, config);
  const app = buildApp(core, logger, tls.material);
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
  // Queued callbacks go out from every node; each attempt is claimed by one (docs/events.md, "Delivery").
  core.callbacks.start(config.callbackPollMs, (error) => logger.error({ err: { type: (error as Error).name, message: (error as Error).message } }, 'callback delivery round failed'));
  const address = await app.listen({ host: config.host, port: config.port });
  const metricsListener = await startMetricsListener(core, logger);
  if (metricsListener !== null) logger.info({ url: `${metricsListener.url}/metrics` }, 'metrics listening');
  const url = tls.material === null ? address : address.replace(/^http:/, 'https:');
  logger.info({ url, store: config.store.kind }, 'listening');
  // The start's lines now, not with the next batch (logger.ts).
  logger.flush();

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    void app
      .close()
      .then(() => metricsListener?.close())
      .then(() => core.close())
      .then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // Announced once SIGTERM is handled: a script that stops Coffer as soon as it listens gets a
  // clean shutdown, not the default kill. The portal line first: scripts (and the tests) wait
  // for "listening" as the last line.
  if (config.portal) process.stderr.write(`Merchant portal: ${url}/portal/\n`);
  process.stderr.write(`Coffer listening on ${url}\n`);
}
