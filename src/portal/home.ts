import type { FastifyInstance } from 'fastify';
import { CSS_PATH, FAVICON_PATH, FAVICON_SVG } from './assets.js';
import { html } from './html.js';

const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * `GET /`: a small page saying what this server is and where to go (the portal, the API's
 * OpenAPI document, the health check), instead of the API's XML access-denied error. Spreedly
 * clients never call `/` (every client library builds `…/v1/…` URLs: wire-reference.md), so
 * nothing depends on the old answer. `/favicon.ico` answers the portal's icon for browsers that
 * ask for it there.
 */
export function registerHome(app: FastifyInstance, options: { portal: boolean }): void {
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Coffer</title>
${options.portal ? html`<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
<link rel="stylesheet" href="${CSS_PATH}">` : null}
</head>
<body>
<main id="main" class="signin">
<h1>Coffer</h1>
<p>A self-hosted payment vault with a Spreedly-compatible API.</p>
<ul>
${options.portal ? html`<li><a href="/portal/">Merchant portal</a>: sign in to find cards and payments, manage gateways and your team.</li>` : html`<li>The merchant portal is turned off on this server (<code>COFFER_PORTAL=off</code>).</li>`}
<li>API: <code>/v1/…</code> with an environment key and access secret (HTTP Basic). Its contract: <a href="/v1/openapi.json">OpenAPI document</a>.</li>
<li>Health: <a href="/healthz">/healthz</a>, readiness: <a href="/readyz">/readyz</a>.</li>
<li>Documentation: the <code>docs/</code> folder and the README of Coffer's source.</li>
</ul>
</main>
</body>
</html>`.value;
  const plain = { access: 'none', plainText: true } as const;
  app.get('/', { config: plain }, async (_request, reply) =>
    reply.header('Content-Security-Policy', CSP).header('X-Frame-Options', 'DENY').header('X-Content-Type-Options', 'nosniff').header('Referrer-Policy', 'no-referrer').type('text/html; charset=utf-8').send(page),
  );
  app.get('/favicon.ico', { config: plain }, async (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=86400').type('image/svg+xml').send(FAVICON_SVG),
  );
}
