import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { containsCardLike } from '../../domain/scrubbing/card-like.js';
import { paymentMethodView } from '../../http/views/payment-method.view.js';
import { audit, can, environmentOf, formOf, redirectTo, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { html } from '../html.js';
import { csrfField, page, sendPage } from '../layout.js';
import { wireSections } from '../wire-facts.js';

type EnvParams = { Params: { env: string } };
type PmParams = { Params: { env: string; token: string } };

/** Never the value typed: it may be a card number (docs/security.md: errors never echo what was submitted). */
const NOT_A_TOKEN = 'That is not a payment method token: a token has only letters and digits, and is never a card number.';

/** A token is base-62 (domain/tokens.ts); anything else, or anything that reads as a card, is refused unseen. */
function looksLikeToken(text: string): boolean {
  return /^[A-Za-z0-9]{1,64}$/.test(text) && !/\d{12,}/.test(text) && !containsCardLike(text);
}

/**
 * Payment methods: look up by token; shown through the API's view (masks only: the last four,
 * first six, "XXX" for a held CVV), retain and redact.
 */
export function paymentMethodRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get<EnvParams>('/e/:env/payment-methods', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const frame = await frameFor(deps, request, { title: 'Payment methods', current: 'payment-methods', environment: env });
    // Posted, not a GET form: whatever is typed (a card number pasted by mistake) never
    // becomes part of a URL, where browsers, proxies and access logs would keep it.
    const body = html`<form class="inline" method="post" action="/portal/e/${env.key}/payment-methods/lookup" role="search">
  ${csrfField(request)}<div class="field"><label for="pm-token">Payment method token</label><input id="pm-token" name="token" type="text" required maxlength="64" autocomplete="off"></div>
  <button type="submit">Look up</button>
</form>
<p class="hint">Coffer never shows a full card number or a CVV, here or anywhere.</p>
<p><a href="/portal/e/${env.key}/imports">Imports from another vault</a> · <a href="/portal/e/${env.key}/exports">Exports to another vault</a></p>`;
    return sendPage(reply, page(request, frame, body));
  });

  // A lookup only reads, so a deactivated organization may still make it.
  portal.post<EnvParams>('/e/:env/payment-methods/lookup', { config: { portal: 'read', whileInactive: 'allowed' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const token = (formOf(request).token ?? '').trim();
    if (!looksLikeToken(token)) throw new AppError({ key: 'errors.invalid', attribute: 'token', message: NOT_A_TOKEN });
    return redirectTo(reply, `/portal/e/${env.key}/payment-methods/${token}`);
  });

  portal.get<PmParams>('/e/:env/payment-methods/:token', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const row = await deps.paymentMethods.show(env, request.params.token);
    const frame = await frameFor(deps, request, { title: 'Payment method', current: 'payment-methods', environment: env, notice: doneNotice(request) });
    const actions =
      can(request, 'manage_payment_methods') && row.storageState !== 'redacted'
        ? html`<h2>Actions</h2><div class="row-actions">
${row.storageState === 'cached' ? html`<form method="post" action="/portal/e/${env.key}/payment-methods/${row.token}/retain">${csrfField(request)}<button type="submit">Retain</button></form>` : null}
<details class="confirm"><summary>Redact</summary><form method="post" action="/portal/e/${env.key}/payment-methods/${row.token}/redact">${csrfField(request)}
<p>The card number, CVV and fingerprint are destroyed for good.</p><button class="danger" type="submit">Redact payment method</button></form></details></div>`
        : null;
    return sendPage(reply, page(request, frame, html`${wireSections(paymentMethodView(row))}${actions}`));
  });

  portal.post<PmParams>('/e/:env/payment-methods/:token/retain', { config: { portal: 'manage_payment_methods' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    await deps.paymentMethods.retain(env, request.params.token, request);
    await audit(deps, request, { action: 'payment_method.retain', objectType: 'payment_method', objectId: request.params.token, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/payment-methods/${request.params.token}?done=retained`);
  });

  portal.post<PmParams>('/e/:env/payment-methods/:token/redact', { config: { portal: 'manage_payment_methods' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    await deps.paymentMethods.redact(env, request.params.token, { removePersonalData: false }, request);
    await audit(deps, request, { action: 'payment_method.redact', objectType: 'payment_method', objectId: request.params.token, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/payment-methods/${request.params.token}?done=redacted`);
  });
}
