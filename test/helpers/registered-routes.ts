import type { FastifyContextConfig, RouteOptions } from 'fastify';
import { buildCore } from '../../src/app.js';
import { buildApp } from '../../src/http-app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/logger.js';
import { tempDir } from './temp.js';

export interface RegisteredRoute {
  method: string;
  url: string;
  config: FastifyContextConfig;
}

/**
 * Every route a Coffer app registers (HEAD left out), each with its config, seen by an onRoute
 * hook on a second app that is built but never started: tests enumerate routes from the app
 * itself, so a route added later is covered without editing a hand-written list.
 */
export async function registeredRoutes(): Promise<RegisteredRoute[]> {
  const temp = tempDir();
  const core = await buildCore(loadConfig({ COFFER_DATA_DIR: temp.dir, COFFER_PORT: '0', COFFER_TLS: 'off' }));
  try {
    const app = buildApp(core, createLogger('silent'), null);
    const routes: RegisteredRoute[] = [];
    app.addHook('onRoute', (route: RouteOptions) => {
      for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url, config: route.config ?? {} });
    });
    await app.ready();
    await app.close();
    return routes;
  } finally {
    await core.close();
    temp.cleanup();
  }
}
