import type { FastifyInstance, FastifyRequest } from 'fastify';
import { receiverInput } from '../../http/routes/receivers.schemas.js';
import { receiverView } from '../../http/views/receiver.view.js';
import { audit, can, environmentOf, formOf, redirectTo, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { html } from '../html.js';
import { csrfField, page, sendPage, when } from '../layout.js';
import { wireSections } from '../wire-facts.js';

type EnvParams = { Params: { env: string } };
type ReceiverParams = { Params: { env: string; token: string } };

/** Credential rows the create form offers (more through the API). */
const CREDENTIAL_ROWS = 2;

/** The receiver fields of the form, in the shape the API's schema validates. */
function fieldsOf(request: FastifyRequest): Record<string, unknown> {
  const form = formOf(request);
  const credentials = [];
  for (let i = 0; i < CREDENTIAL_ROWS; i += 1) {
    const name = (form[`credential_name_${i}`] ?? '').trim();
    if (name !== '') credentials.push({ name, value: form[`credential_value_${i}`] ?? '', safe: form[`credential_safe_${i}`] === 'on' });
  }
  return { receiver_type: form.receiver_type, hostnames: form.hostnames, ...(credentials.length === 0 ? {} : { credentials }) };
}

/** Receivers: list, create (type, hostnames, credentials), show (safe credentials only), redact. */
export function receiverRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get<EnvParams>('/e/:env/receivers', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const frame = await frameFor(deps, request, { title: 'Receivers', current: 'receivers', environment: env, notice: doneNotice(request) });
    const receivers = await deps.receivers.list(env, { sinceToken: null, order: 'desc', count: 100 });
    const types = deps.receivers.types.all().filter((t) => t.test || env.production);
    const credentialRows = Array.from({ length: CREDENTIAL_ROWS }, (_, i) => html`<fieldset><legend>Credential ${i + 1} <span class="hint">(optional)</span></legend>
  <div class="field"><label for="cred-name-${i}">Name</label><input id="cred-name-${i}" name="credential_name_${i}" type="text" maxlength="100"></div>
  <div class="field"><label for="cred-value-${i}">Value</label><input id="cred-value-${i}" name="credential_value_${i}" type="password" autocomplete="off"></div>
  <div class="field"><label><input name="credential_safe_${i}" type="checkbox"> Safe to show back</label></div></fieldset>`);
    const create = can(request, 'manage_receivers')
      ? html`<h2>Add a receiver</h2>
<form class="stack" method="post" action="/portal/e/${env.key}/receivers">${csrfField(request)}
  <div class="field"><label for="receiver-type">Receiver type</label><select id="receiver-type" name="receiver_type">${types.map((t) => html`<option value="${t.receiverType}">${t.name}</option>`)}</select></div>
  <div class="field"><label for="receiver-hostnames">Hostnames <span class="hint">(comma separated, e.g. https://api.example.com)</span></label><input id="receiver-hostnames" name="hostnames" type="text" maxlength="2000"></div>
  ${credentialRows}
  <button class="primary" type="submit">Create receiver</button>
</form>`
      : null;
    const body = html`<table><caption class="visually-hidden">Receivers of ${env.name}</caption>
<thead><tr><th scope="col">Token</th><th scope="col">Type</th><th scope="col">Hostnames</th><th scope="col">State</th><th scope="col">Created</th></tr></thead>
<tbody>${
      receivers.length === 0
        ? html`<tr><td colspan="5">No receivers yet.</td></tr>`
        : receivers.map((r) => html`<tr><td><a href="/portal/e/${env.key}/receivers/${r.row.token}"><code>${r.row.token}</code></a></td><td>${r.row.receiverType}</td><td>${r.row.hostnames.join(',')}</td><td>${r.row.state}</td><td>${when(r.row.createdAt)}</td></tr>`)
    }</tbody></table>${create}`;
    return sendPage(reply, page(request, frame, body));
  });

  portal.post<EnvParams>('/e/:env/receivers', { config: { portal: 'manage_receivers' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const { receiverType, input } = receiverInput(fieldsOf(request));
    const created = await deps.receivers.create(env, receiverType, input, request);
    await audit(deps, request, { action: 'receiver.create', objectType: 'receiver', objectId: created.row.token, environmentKey: env.key, details: { receiver_type: created.row.receiverType } });
    return redirectTo(reply, `/portal/e/${env.key}/receivers/${created.row.token}?done=created`);
  });

  portal.get<ReceiverParams>('/e/:env/receivers/:token', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const record = await deps.receivers.show(env, request.params.token);
    const frame = await frameFor(deps, request, { title: `Receiver ${record.row.receiverType}`, current: 'receivers', environment: env, notice: doneNotice(request) });
    const redact =
      can(request, 'manage_receivers') && record.row.state !== 'redacted'
        ? html`<h2>Redact</h2><details class="confirm"><summary>Redact this receiver</summary>
<form method="post" action="/portal/e/${env.key}/receivers/${record.row.token}/redact">${csrfField(request)}
<p>Its credentials are destroyed and it can no longer be used. This cannot be undone.</p><button class="danger" type="submit">Redact receiver</button></form></details>`
        : null;
    return sendPage(reply, page(request, frame, html`${wireSections(receiverView(record.row))}${redact}`));
  });

  portal.post<ReceiverParams>('/e/:env/receivers/:token/redact', { config: { portal: 'manage_receivers' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    await deps.receivers.redact(env, request.params.token, request);
    await audit(deps, request, { action: 'receiver.redact', objectType: 'receiver', objectId: request.params.token, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/receivers/${request.params.token}?done=redacted`);
  });
}
