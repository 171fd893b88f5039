import type { FastifyInstance } from 'fastify';
import { environmentOf, type PortalDeps } from '../context.js';
import { frameFor } from '../frame.js';
import { html } from '../html.js';
import { page, sendPage } from '../layout.js';

type EnvParams = { Params: { env: string } };

/** The landing page of an environment. */
export function overviewRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get<EnvParams>('/e/:env/overview', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const frame = await frameFor(deps, request, { title: `Overview · ${env.name}`, current: 'overview', environment: env });
    const body = html`<dl class="facts">
  <dt>Environment key</dt><dd><code>${env.key}</code></dd>
  <dt>Mode</dt><dd>${env.production === 1 ? 'Production' : 'Test'}</dd>
</dl>`;
    return sendPage(reply, page(request, frame, body));
  });
}
