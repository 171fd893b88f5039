import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import type { Core } from './app.js';
import { buildMetricsServer } from './http/metrics-server.js';
import { buildHttpApp } from './http/server.js';
import { ensureLocalTls, loadTlsFiles } from './http/tls/local-ca.js';
import { registerPortal } from './portal/portal.plugin.js';
import { registerHome } from './portal/home.js';

/*
 * What serving adds to a built core: the HTTP app (API, portal, home page), its TLS material and the
 * metrics listener. Kept apart from the core's composition (app.ts) so that the CLI's other commands
 * (an import, a key rotation) load neither Fastify nor the portal: the HTTP app and the portal are
 * most of the code a process holds, and a long import's resident memory grows with what it holds
 * (docs/benchmarks.md, "Import").
 */

/** TLS material per configuration, and the CA path to print when Coffer made its own. */
export async function resolveTls(config: Config): Promise<{ material: { key: string; cert: string } | null; caPath: string | null }> {
  if (config.tls.mode === 'off') return { material: null, caPath: null };
  if (config.tls.mode === 'files') return { material: await loadTlsFiles(config.tls.certPath, config.tls.keyPath), caPath: null };
  const local = await ensureLocalTls(config.dataDir);
  return { material: local, caPath: local.caPath };
}

/** The HTTP app over a built core. */
export function buildApp(core: Core, logger: Logger, tls: { key: string; cert: string } | null): FastifyInstance {
  // One line when Redis becomes unreachable (the node then limits with its own memory), one when it is back.
  core.sharedState?.logTo(logger);
  core.attachLogger(logger);
  // /metrics on the API port only with its own bearer token; otherwise 404 there.
  const metricsEndpoint = core.metrics === null || core.config.metrics.token === null ? null : { metrics: core.metrics, token: core.config.metrics.token };
  const app = buildHttpApp({ ...core, logger, metricsEndpoint }, tls);
  if (core.config.portal) registerPortal(app, { ...core, logger });
  registerHome(app, { portal: core.config.portal });
  return app;
}

/**
 * Starts the separate metrics listener when COFFER_METRICS_PORT is set: GET /metrics only, plain
 * HTTP on COFFER_METRICS_HOST (127.0.0.1 by default). Returns its address and how to stop it.
 */
export async function startMetricsListener(core: Core, logger: Logger): Promise<{ url: string; close(): Promise<void> } | null> {
  const { port, host, token } = core.config.metrics;
  if (core.metrics === null || port === null) return null;
  const server = buildMetricsServer({ metrics: core.metrics, token }, logger);
  const url = await server.listen({ host, port });
  return { url, close: () => server.close() };
}
