import type { FastifyInstance } from 'fastify';
import { queryOf, sessionOf, type PortalDeps } from '../context.js';
import { frameFor } from '../frame.js';
import { html } from '../html.js';
import { page, sendPage, when } from '../layout.js';
import { auditFilterOf } from '../../services/audit-filter.js';
import type { AuditDetails } from '../../domain/audit-event.js';

/** The audit log, newest first, filterable by user, action and date; keyset paging. */
export function auditRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get('/audit', { config: { portal: 'view_audit' } }, async (request, reply) => {
    const organization = sessionOf(request).user.organizationToken;
    const query = queryOf(request);
    const filter = auditFilterOf(query, 50);
    const [events, facets] = await Promise.all([deps.audit.list(organization, filter), deps.audit.facets(organization)]);
    const frame = await frameFor(deps, request, { title: 'Audit log', current: 'audit' });
    const option = (value: string, selected: string | undefined) => html`<option value="${value}"${value === selected ? html` selected` : ''}>${value}</option>`;
    const last = events.at(-1);
    const older = new URLSearchParams({ ...query, before: String(last?.cursor ?? '') }).toString();
    const body = html`<form class="inline" method="get" action="/portal/audit">
  <div class="field"><label for="audit-user">User</label><select id="audit-user" name="user"><option value="">Everyone</option>${facets.actors.map((a) => option(a, query.user))}</select></div>
  <div class="field"><label for="audit-action">Action</label><select id="audit-action" name="action"><option value="">Every action</option>${facets.actions.map((a) => option(a, query.action))}</select></div>
  <div class="field"><label for="audit-from">From</label><input id="audit-from" name="from" type="date" value="${query.from ?? ''}"></div>
  <div class="field"><label for="audit-to">To <span class="hint">(inclusive)</span></label><input id="audit-to" name="to" type="date" value="${query.to ?? ''}"></div>
  <button type="submit">Filter</button>
</form>
<table>
  <caption class="visually-hidden">Audit events, newest first</caption>
  <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Object</th><th scope="col">Address</th><th scope="col">Details</th></tr></thead>
  <tbody>${
    events.length === 0
      ? html`<tr><td colspan="6">No events match.</td></tr>`
      : events.map(
          (e) => html`<tr><td class="nowrap">${when(e.createdAt)}</td><td>${e.actor}${e.actorType === 'user' ? '' : html` <span class="badge">${e.actorType}</span>`}</td><td class="nowrap"><code>${e.action}</code></td>
<td>${e.objectType} <code>${e.objectId ?? ''}</code></td><td class="nowrap">${e.address ?? '—'}</td><td>${detailsText(e.details)}</td></tr>`,
        )
  }</tbody>
</table>
${events.length === filter.count ? html`<nav class="pager" aria-label="Pages"><a href="/portal/audit?${older}">Older events</a></nav>` : null}`;
    return sendPage(reply, page(request, frame, body));
  });
}

/** Non-secret details as "name: value" pairs. */
function detailsText(details: AuditDetails | null): string {
  if (details === null) return '';
  return Object.entries(details)
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join(', ');
}
