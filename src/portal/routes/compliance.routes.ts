import type { FastifyInstance } from 'fastify';
import type { ComplianceReport } from '../../services/compliance/compliance.service.js';
import { sessionOf, type PortalDeps } from '../context.js';
import { frameFor } from '../frame.js';
import { html } from '../html.js';
import { page, sendPage, when } from '../layout.js';

/** The latest master key rotation or move in a phrase (docs/key-custody.md, "Rotation record"). */
function masterRotation(last: ComplianceReport['key_management']['last_master_key_rotation']) {
  if (last === null) return html`never rotated or moved`;
  const what = last.kind === 'move' ? `move to ${last.to_provider}` : 'rotation';
  const left = last.remaining > 0 ? `, ${last.remaining} key(s) still on the previous master key` : '';
  return html`last ${what} ${when(last.finished_at)}: ${String(last.rewrapped)} key(s) re-wrapped, ${last.outcome}${left}`;
}

/** The evidence page (docs/compliance.md): the organization's part of `coffer compliance report`, for owners and admins. */
export function complianceRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get('/compliance', { config: { portal: 'view_audit' } }, async (request, reply) => {
    const report = await deps.compliance.report(sessionOf(request).user.organizationToken);
    const frame = await frameFor(deps, request, { title: 'Compliance', current: 'compliance' });
    const { key_management: keys, audit_trail: chain, people, tls } = report;
    const organization = people.organizations[0];
    const list = (items: readonly string[]) => (items.length === 0 ? html`<em>none</em>` : html`${items.join(', ')}`);
    const body = html`<p class="hint">Checked now, ${when(report.generated_at)}: PCI DSS v4.0.1 requirements Coffer addresses, what is configured and what was verified. The operator prints the whole installation's with <code>coffer compliance report</code>.</p>
<table><caption class="visually-hidden">Requirements</caption>
<thead><tr><th scope="col">Requirement</th><th scope="col">What</th><th scope="col">Status</th><th scope="col">Evidence</th></tr></thead>
<tbody>${report.requirements.map(
      (finding) => html`<tr><td class="nowrap">${finding.requirement}</td><td>${finding.title}</td><td class="nowrap">${finding.status === 'met' ? html`<span class="badge ok">met</span>` : html`<span class="badge bad">not met</span>`}</td><td>${finding.evidence}</td></tr>`,
    )}</tbody></table>
<h2>Keys</h2>
<dl><dt>Master key provider</dt><dd><code>${keys.provider}</code></dd>
<dt>Data keys</dt><dd>${keys.data_keys.length} environment key(s); last rotation ${keys.last_data_key_rotation === null ? 'never' : when(keys.last_data_key_rotation)}</dd>
<dt>Master key rotations</dt><dd>${masterRotation(keys.last_master_key_rotation)}</dd></dl>
<h2>Audit trail</h2>
<dl><dt>Hash chain</dt><dd>${chain.verified ? html`<span class="badge ok">verified</span> through entry ${chain.verified_through} of ${chain.head_position}` : html`<span class="badge bad">broken</span> ${chain.problem ?? ''}`}</dd>
<dt>Signed checkpoints</dt><dd>${chain.checkpoints}${chain.last_checkpoint === null ? '' : html`, the last at entry ${chain.last_checkpoint.position} (${when(chain.last_checkpoint.signed_at)})`}</dd>
<dt>Retention</dt><dd>${chain.retention_months} months</dd></dl>
<h2>People</h2>
<dl><dt>Passwords</dt><dd>at least ${people.password_min_length} characters</dd>
<dt>Lockout</dt><dd>after ${people.lockout_failures} failures, for ${people.lockout_minutes} minutes</dd>
<dt>Idle sessions</dt><dd>end after ${people.idle_timeout_minutes} minutes</dd>
<dt>Inactive members</dt><dd>disabled after ${people.inactive_days} days</dd>
<dt>Two-step verification</dt><dd>${organization === undefined ? '—' : html`${organization.two_step_required ? 'required' : 'not required'} (${organization.two_step_source === 'default' ? 'default' : 'set by the organization'})`}</dd>
<dt>Members with two-step</dt><dd>${list(organization?.members_with_two_step ?? [])}</dd>
<dt>Members without two-step</dt><dd>${list(organization?.members_without_two_step ?? [])}</dd></dl>
<h2>Transport and storage</h2>
<dl><dt>TLS</dt><dd>${tls.mode === 'off' ? 'off (behind a TLS-terminating proxy)' : html`${tls.protocols.join(', ')}<br><span class="hint">${tls.cipher_suites.join(' · ')}</span>`}</dd>
<dt>Data directory</dt><dd>${report.data_directory.private ? 'readable by Coffer\'s user only' : 'open to other users of the machine: the operator should run coffer serve to see which paths'}</dd></dl>`;
    return sendPage(reply, page(request, frame, body));
  });
}
