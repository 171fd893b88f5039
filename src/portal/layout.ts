import type { FastifyReply, FastifyRequest } from 'fastify';
import { portalRoleAllows, type PortalPermission, type PortalRole } from '../domain/portal-roles.js';
import type { PortalMemberOrganization } from '../domain/portal-people.js';
import { CSS_PATH, FAVICON_PATH, JS_PATH } from './assets.js';
import { html, type HtmlValue, type SafeHtml } from './html.js';
import type { Environment } from '../domain/environment.js';

/** Where the page sits: the environment it is about and the navigation entry to highlight. */
export interface PageFrame {
  title: string;
  /** The environment pages are scoped to, and the list for the switcher. */
  environment?: Environment;
  environments?: Environment[];
  /** The signed-in person's organizations, for the organization switcher (shown when several). */
  organizations?: PortalMemberOrganization[];
  current?: string;
  notice?: { kind: 'ok' | 'error' | 'warn'; text: string } | null;
}

interface NavEntry {
  id: string;
  label: string;
  path: (env: string) => string;
  needs: PortalPermission;
  scoped: boolean;
}

const NAV: NavEntry[] = [
  { id: 'overview', label: 'Overview', path: (e) => `/portal/e/${e}/overview`, needs: 'read', scoped: true },
  { id: 'transactions', label: 'Transactions', path: (e) => `/portal/e/${e}/transactions`, needs: 'read', scoped: true },
  { id: 'payment-methods', label: 'Payment methods', path: (e) => `/portal/e/${e}/payment-methods`, needs: 'read', scoped: true },
  { id: 'gateways', label: 'Gateways', path: (e) => `/portal/e/${e}/gateways`, needs: 'read', scoped: true },
  { id: 'workflows', label: 'Workflows', path: (e) => `/portal/e/${e}/workflows`, needs: 'read', scoped: true },
  { id: 'receivers', label: 'Receivers', path: (e) => `/portal/e/${e}/receivers`, needs: 'read', scoped: true },
  { id: 'certificates', label: 'Certificates', path: (e) => `/portal/e/${e}/certificates`, needs: 'read', scoped: true },
  { id: 'secrets', label: 'Access secrets', path: (e) => `/portal/e/${e}/secrets`, needs: 'read', scoped: true },
  { id: 'environments', label: 'Environments', path: () => '/portal/environments', needs: 'read', scoped: false },
  { id: 'team', label: 'Team', path: () => '/portal/team', needs: 'read', scoped: false },
  { id: 'audit', label: 'Audit log', path: () => '/portal/audit', needs: 'view_audit', scoped: false },
  { id: 'compliance', label: 'Compliance', path: () => '/portal/compliance', needs: 'view_audit', scoped: false },
  { id: 'account', label: 'Your account', path: () => '/portal/account', needs: 'read', scoped: false },
];

function document(title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Coffer</title>
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
<link rel="stylesheet" href="${CSS_PATH}">
<script src="${JS_PATH}" defer></script>
</head>
<body>
${body}
</body>
</html>`;
}

function noticeOf(frame: PageFrame): SafeHtml | null {
  if (frame.notice === undefined || frame.notice === null) return null;
  return html`<div class="notice ${frame.notice.kind}" role="${frame.notice.kind === 'error' ? 'alert' : 'status'}">${frame.notice.text}</div>`;
}

/**
 * A signed-in page: header with the environment switcher, side navigation, content. Below 50rem
 * the navigation folds behind the header's Menu button (the portal script opens it; without the
 * script it stays open above the content), so a 390 px phone reads the page at full width.
 */
export function page(request: FastifyRequest, frame: PageFrame, content: HtmlValue): SafeHtml {
  const session = request.portalSession;
  const role: PortalRole = session?.user.role ?? 'viewer';
  const envKey = frame.environment?.key ?? session?.row.environmentKey ?? frame.environments?.[0]?.key ?? '';
  const items = NAV.filter((entry) => portalRoleAllows(role, entry.needs) && (!entry.scoped || envKey !== '')).map(
    (entry) => html`<li><a href="${entry.path(envKey)}"${entry.id === frame.current ? html` aria-current="page"` : ''}>${entry.label}</a></li>`,
  );
  const switcher =
    frame.environments !== undefined && frame.environments.length > 0
      ? html`<form method="get" action="/portal/switch">
  <label for="environment-switch">Environment</label>
  <select id="environment-switch" name="environment" data-autosubmit>
    ${frame.environments.map((env) => html`<option value="${env.key}"${env.key === envKey ? html` selected` : ''}>${env.name}${env.production ? ' (production)' : ' (test)'}</option>`)}
  </select>
  <button type="submit">Switch</button>
</form>`
      : null;
  const body = html`<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <button class="menu-toggle" type="button" aria-controls="portal-nav" aria-expanded="false">Menu</button>
  <a class="brand" href="/portal/">Coffer</a>
  ${organizationSwitcher(request, frame)}
  ${switcher}
  <span class="who">${session?.user.email ?? ''} · ${role}</span>
  <form method="post" action="/portal/sign-out">${csrfField(request)}<button type="submit">Sign out</button></form>
</header>
<div class="layout">
  <nav class="side" id="portal-nav" aria-label="Portal">
    <ul>${items}</ul>
  </nav>
  <main id="main">
    <h1>${frame.title}</h1>
    ${noticeOf(frame)}
    ${content}
  </main>
</div>`;
  return document(frame.title, body);
}

/**
 * The organization switcher of a person in several organizations: a POST with the CSRF token
 * (switching changes what every page acts on), submitted on change by the portal script.
 */
function organizationSwitcher(request: FastifyRequest, frame: PageFrame): SafeHtml | null {
  const organizations = frame.organizations ?? [];
  if (organizations.length < 2) return null;
  const current = request.portalSession?.user.organizationToken;
  return html`<form method="post" action="/portal/organizations/switch">${csrfField(request)}
  <label for="organization-switch">Organization</label>
  <select id="organization-switch" name="organization" data-autosubmit>
    ${organizations.map((o) => html`<option value="${o.organizationToken}"${o.organizationToken === current ? html` selected` : ''}>${o.organizationName}</option>`)}
  </select>
  <button type="submit">Switch<span class="visually-hidden"> organization</span></button>
</form>`;
}

/** A page outside the signed-in frame (sign-in, second factor, errors before sign-in). */
export function barePage(title: string, content: HtmlValue, notice: PageFrame['notice'] = null): SafeHtml {
  return document(title, html`<main id="main" class="signin"><h1>${title}</h1>${noticeOf({ title, notice })}${content}</main>`);
}

/** The hidden CSRF field every form of a signed-in page carries. */
export function csrfField(request: FastifyRequest): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${request.portalSession?.row.csrfToken ?? ''}">`;
}

export function sendPage(reply: FastifyReply, markup: SafeHtml, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(markup.value);
}

/** A timestamp as people read it, in UTC. */
export function when(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}
