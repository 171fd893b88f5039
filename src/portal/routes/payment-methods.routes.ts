import type { FastifyInstance } from 'fastify';
import { paymentMethodView } from '../../http/views/payment-method.view.js';
import { audit, can, environmentOf, queryOf, redirectTo, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { html } from '../html.js';
import { csrfField, page, sendPage } from '../layout.js';
import { wireSections } from '../wire-facts.js';

type EnvParams = { Params: { env: string } };
type PmParams = { Params: { env: string; token: string } };

/**
 * Payment methods: look up by token; shown through the API's view (masks only: the last four,
 * first six, "XXX" for a held CVV), retain and redact.
 */
export function paymentMethodRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get<EnvParams>('/e/:env/payment-methods', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const token = (queryOf(request).token ?? '').trim();
    if (token !== '') return redirectTo(reply, `/portal/e/${env.key}/payment-methods/${encodeURIComponent(token)}`);
    const frame = await frameFor(deps, request, { title: 'Payment methods', current: 'payment-methods', environment: env });
    const body = html`<form class="inline" method="get" action="/portal/e/${env.key}/payment-methods" role="search">
  <div class="field"><label for="pm-token">Payment method token</label><input id="pm-token" name="token" type="text" required maxlength="64"></div>
  <button type="submit">Look up</button>
</form>
<p class="hint">Coffer never shows a full card number or a CVV, here or anywhere.</p>`;
    return sendPage(reply, page(request, frame, body));
  });

  portal.get<PmParams>('/e/:env/payment-methods/:token', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const row = await deps.paymentMethods.show(env, request.params.token);
    const frame = await frameFor(deps, request, { title: 'Payment method', current: 'payment-methods', environment: env, notice: doneNotice(request) });
    const actions =
      can(request, 'manage_payment_methods') && row.storage_state !== 'redacted'
        ? html`<h2>Actions</h2><div class="row-actions">
${row.storage_state === 'cached' ? html`<form method="post" action="/portal/e/${env.key}/payment-methods/${row.token}/retain">${csrfField(request)}<button type="submit">Retain</button></form>` : null}
<details class="confirm"><summary>Redact</summary><form method="post" action="/portal/e/${env.key}/payment-methods/${row.token}/redact">${csrfField(request)}
<p>The card number, CVV and fingerprint are destroyed for good.</p><button class="danger" type="submit">Redact payment method</button></form></details></div>`
        : null;
    return sendPage(reply, page(request, frame, html`${wireSections(paymentMethodView(row))}${actions}`));
  });

  portal.post<PmParams>('/e/:env/payment-methods/:token/retain', { config: { portal: 'manage_payment_methods' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    await deps.paymentMethods.retain(env, request.params.token);
    await audit(deps, request, { action: 'payment_method.retain', objectType: 'payment_method', objectId: request.params.token, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/payment-methods/${request.params.token}?done=retained`);
  });

  portal.post<PmParams>('/e/:env/payment-methods/:token/redact', { config: { portal: 'manage_payment_methods' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    await deps.paymentMethods.redact(env, request.params.token, { removePersonalData: false });
    await audit(deps, request, { action: 'payment_method.redact', objectType: 'payment_method', objectId: request.params.token, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/payment-methods/${request.params.token}?done=redacted`);
  });
}
