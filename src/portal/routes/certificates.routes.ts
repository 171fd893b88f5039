import type { FastifyInstance } from 'fastify';
import { CERTIFICATE_ALGORITHMS } from '../../certificates/certificate-request.js';
import { generateSchema, givenFields } from '../../http/routes/certificates.schemas.js';
import { parseInput } from '../../http/validation.js';
import { certificateView } from '../../http/views/certificate.view.js';
import { audit, can, environmentOf, formOf, redirectTo, requiredField, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { html } from '../html.js';
import { csrfField, page, sendPage, when } from '../layout.js';
import { wireSections } from '../wire-facts.js';

type EnvParams = { Params: { env: string } };
type CertParams = { Params: { env: string; token: string } };

const SUBJECT = [
  ['cn', 'Common name (CN)', true],
  ['o', 'Organization (O)', false],
  ['ou', 'Organizational unit (OU)', false],
  ['c', 'Country (C, two letters)', false],
  ['st', 'State or province (ST)', false],
  ['l', 'Locality (L)', false],
  ['email_address', 'Email address', false],
] as const;

/**
 * Certificates: list, generate a key pair and CSR (the private key never leaves Coffer), download
 * the CSR, attach the signed certificate, redact (erase the key and pem for good).
 */
export function certificateRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get<EnvParams>('/e/:env/certificates', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const frame = await frameFor(deps, request, { title: 'Certificates', current: 'certificates', environment: env, notice: doneNotice(request) });
    const rows = await deps.certificates.list(env, { sinceToken: null, order: 'desc', count: 100 });
    const generate = can(request, 'manage_certificates')
      ? html`<h2>Generate a key pair and CSR</h2>
<form class="stack" method="post" action="/portal/e/${env.key}/certificates">${csrfField(request)}
  <div class="field"><label for="cert-algorithm">Key algorithm</label><select id="cert-algorithm" name="algorithm">${CERTIFICATE_ALGORITHMS.map((a) => html`<option value="${a}">${a}</option>`)}</select></div>
  ${SUBJECT.map(([name, label, required]) => html`<div class="field"><label for="cert-${name}">${label}</label><input id="cert-${name}" name="${name}" type="text"${required ? html` required` : ''}></div>`)}
  <button class="primary" type="submit">Generate</button>
</form>`
      : null;
    const body = html`<table><caption class="visually-hidden">Certificates of ${env.name}</caption>
<thead><tr><th scope="col">Token</th><th scope="col">Common name</th><th scope="col">Algorithm</th><th scope="col">Signed</th><th scope="col">Created</th></tr></thead>
<tbody>${
      rows.length === 0
        ? html`<tr><td colspan="5">No certificates yet.</td></tr>`
        : rows.map((c) => html`<tr><td><a href="/portal/e/${env.key}/certificates/${c.token}"><code>${c.token}</code></a></td><td>${c.cn ?? ''}</td><td>${c.algorithm}</td><td>${c.redactedAt !== null ? 'redacted' : c.pem === null ? 'awaiting signature' : 'yes'}</td><td>${when(c.createdAt)}</td></tr>`)
    }</tbody></table>${generate}`;
    return sendPage(reply, page(request, frame, body));
  });

  portal.post<EnvParams>('/e/:env/certificates', { config: { portal: 'manage_certificates' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const parsed = parseInput(generateSchema, givenFields(formOf(request)));
    const created = await deps.certificates.generate(env, {
      algorithm: parsed.algorithm,
      subject: { cn: parsed.cn, o: parsed.o ?? null, ou: parsed.ou ?? null, c: parsed.c ?? null, st: parsed.st ?? null, l: parsed.l ?? null, email_address: parsed.email_address ?? null },
      level: parsed.level ?? 'environment',
    }, request);
    await audit(deps, request, { action: 'certificate.generate', objectType: 'certificate', objectId: created.token, environmentKey: env.key, details: { cn: parsed.cn } });
    return redirectTo(reply, `/portal/e/${env.key}/certificates/${created.token}?done=created`);
  });

  portal.get<CertParams>('/e/:env/certificates/:token', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const row = await deps.certificates.show(env, request.params.token);
    const frame = await frameFor(deps, request, { title: `Certificate ${row.cn ?? row.token}`, current: 'certificates', environment: env, notice: doneNotice(request) });
    const manage = can(request, 'manage_certificates') && row.redactedAt === null;
    const redact = manage
      ? html`<h2>Redact</h2><details class="confirm"><summary>Redact this certificate</summary>
<form method="post" action="/portal/e/${env.key}/certificates/${row.token}/redact">${csrfField(request)}
<p>Its private key, signed certificate and CSR are erased. Receivers using it for mutual TLS and signed card forms stop working. This cannot be undone.</p><button class="danger" type="submit">Redact certificate</button></form></details>`
      : null;
    const redacted = row.redactedAt === null ? null : html`<p class="notice">This certificate was redacted ${when(row.redactedAt)}: its private key and pem are gone.</p>`;
    const attach = manage
      ? html`<h2>Attach the signed certificate</h2>
<form class="stack" method="post" action="/portal/e/${env.key}/certificates/${row.token}">${csrfField(request)}
  <div class="field"><label for="cert-pem">Signed certificate (PEM, chain included)</label><textarea id="cert-pem" name="pem" required></textarea></div>
  <button class="primary" type="submit">Attach</button>
</form>`
      : null;
    const download = row.csr === null ? null : html`<p><a class="button" href="/portal/e/${env.key}/certificates/${row.token}/csr" download>Download CSR</a></p>`;
    return sendPage(reply, page(request, frame, html`${redacted}${download}${wireSections(certificateView(row))}${attach}${redact}`));
  });

  portal.get<CertParams>('/e/:env/certificates/:token/csr', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const row = await deps.certificates.show(env, request.params.token);
    return reply
      .type('application/pkcs10')
      .header('Content-Disposition', `attachment; filename="${row.token}.csr.pem"`)
      .send(row.csr ?? '');
  });

  portal.post<CertParams>('/e/:env/certificates/:token', { config: { portal: 'manage_certificates' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const row = await deps.certificates.attachSigned(env, request.params.token, requiredField(formOf(request), 'pem', 64 * 1024), request);
    await audit(deps, request, { action: 'certificate.attach', objectType: 'certificate', objectId: row.token, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/certificates/${row.token}?done=updated`);
  });

  portal.post<CertParams>('/e/:env/certificates/:token/redact', { config: { portal: 'manage_certificates' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const row = await deps.certificates.redact(env, request.params.token, request);
    await audit(deps, request, { action: 'certificate.redact', objectType: 'certificate', objectId: row.token, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/certificates/${row.token}?done=redacted`);
  });
}
