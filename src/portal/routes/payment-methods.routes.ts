import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { STORAGE_STATES, type PaymentMethod } from '../../domain/payment-method.js';
import type { PaymentMethodSearchPage } from '../../domain/payment-method-search.js';
import type { Environment } from '../../domain/environment.js';
import { paymentMethodView } from '../../http/views/payment-method.view.js';
import { accessLogSection } from '../access-log.js';
import { cardSearchOf, CARD_SEARCH_FIELDS, searchesAnything, type CardSearchField } from '../card-search-form.js';
import { cardSummary } from '../card-summary.js';
import { audit, can, environmentOf, formOf, queryOf, redirectTo, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { FULL_NUMBER_REFUSED, holdsFullNumber, isWholeNumber } from '../full-number-guard.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, sendPage, when, type PageFrame } from '../layout.js';
import { gatewaysByToken, transactionTable } from '../transaction-table.js';
import { wireSections } from '../wire-facts.js';

type EnvParams = { Params: { env: string } };
type PmParams = { Params: { env: string; token: string } };

const PAGE_SIZE = 50;
const CARD_TRANSACTIONS = 20;
/** The boxes behind "More filters" (open when one of them is filled). */
const MORE_FILTERS: readonly CardSearchField[] = ['state', 'from', 'to', 'metadata_key', 'metadata_value', 'fingerprint'];

/** Never the value typed: it may be a card number (docs/security.md: errors never echo what was submitted). */
const NOT_A_TOKEN = 'That is not a payment method token: a token has only letters and digits, and is never a card number.';

/** A token is base-62 (domain/tokens.ts); anything else, or anything that reads as a card, is refused unseen. */
function looksLikeToken(text: string): boolean {
  return /^[A-Za-z0-9]{1,64}$/.test(text) && !/\d{12,}/.test(text) && !holdsFullNumber(text);
}

/** The search's own URL: the boxes given, in a fixed order (never a refused value: they passed cardSearchOf). */
function searchUrl(envKey: string, given: Partial<Record<CardSearchField, string>>, extra: Partial<Record<CardSearchField, string>> = {}): string {
  const params = new URLSearchParams();
  for (const field of Object.keys(CARD_SEARCH_FIELDS) as CardSearchField[]) {
    const value = field in extra ? extra[field] : given[field];
    if (value !== undefined && value !== '') params.set(field, value);
  }
  const query = params.toString();
  return `/portal/e/${envKey}/payment-methods${query === '' ? '' : `?${query}`}`;
}

/** The search form, its boxes filled with `values` (already checked: nothing refused is put back). */
function searchForm(request: FastifyRequest, env: Environment, values: Partial<Record<CardSearchField, string>>): SafeHtml {
  const box = (name: CardSearchField, hint: string, attributes: SafeHtml | null = null) =>
    html`<div class="field"><label for="pm-${name}">${CARD_SEARCH_FIELDS[name]}</label><input id="pm-${name}" name="${name}" type="text" value="${values[name] ?? ''}" autocomplete="off" aria-describedby="pm-${name}-hint"${attributes}><span class="hint" id="pm-${name}-hint">${hint}</span></div>`;
  const date = (name: 'from' | 'to') =>
    html`<div class="field"><label for="pm-${name}">${CARD_SEARCH_FIELDS[name]}</label><input id="pm-${name}" name="${name}" type="date" value="${values[name] ?? ''}"></div>`;
  return html`<form class="search-grid" method="post" action="/portal/e/${env.key}/payment-methods/search" role="search" aria-label="Find a payment method">
  ${csrfField(request)}
  ${box('last_four', '4 digits', html` inputmode="numeric"`)}
  ${box('first_six', '6 digits', html` inputmode="numeric"`)}
  ${box('name', 'As it starts: first name, or first and last')}
  ${box('email', 'The whole address', html` inputmode="email"`)}
  <details class="more-filters"${MORE_FILTERS.some((field) => values[field] !== undefined && values[field] !== '') ? html` open` : ''}><summary>More filters: state, dates, metadata, fingerprint</summary><div class="more-grid">
  <div class="field"><label for="pm-state">State</label><select id="pm-state" name="state"><option value="">Any state</option>${STORAGE_STATES.map(
    (state) => html`<option value="${state}"${values.state === state ? html` selected` : ''}>${state}</option>`,
  )}</select></div>
  ${date('from')}${date('to')}
  ${box('metadata_key', 'With its value')}
  ${box('metadata_value', 'Compared as text')}
  ${box('fingerprint', 'Every card of one number')}
  </div></details>
  <div class="search-actions"><button class="primary" type="submit">Search</button> <a class="button" href="/portal/e/${env.key}/payment-methods">Clear</a></div>
</form>
<p class="hint">Never type a full card number: it is refused, and not kept. Coffer never shows a full card number or a CVV, here or anywhere.</p>`;
}

function resultsTable(env: Environment, found: PaymentMethodSearchPage, caption: string): SafeHtml {
  const rows = found.hits.map(({ paymentMethod: m }) => {
    const s = cardSummary(m);
    return html`<tr><td>${s.brand}</td><td class="nowrap"><a href="/portal/e/${env.key}/payment-methods/${m.token}"><code>${s.masked === '' ? m.token.slice(0, 10) : s.masked}</code><span class="visually-hidden"> (payment method ${m.token})</span></a></td>
<td class="nowrap">${s.expiry}</td><td>${s.name}</td><td>${m.email ?? ''}</td><td><span class="badge">${m.storageState}</span></td><td class="nowrap">${when(m.createdAt)}</td></tr>`;
  });
  return html`<div class="table-scroll" role="region" aria-label="${caption}" tabindex="0"><table><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">Brand</th><th scope="col">Number</th><th scope="col">Expiry</th><th scope="col">Name</th><th scope="col">Email</th><th scope="col">State</th><th scope="col">Created</th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="7">No payment methods match.</td></tr>` : rows}</tbody></table></div>`;
}

/**
 * Payment methods (docs/portal.md, "Find a card"): a search by last four, first six, name, email,
 * metadata, fingerprint, state and creation range (masks only, nothing opened); the card's page
 * with its transactions and the actions a role allows; a lookup by token.
 */
export function paymentMethodRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  async function searchPage(request: FastifyRequest, reply: FastifyReply, env: Environment, values: Record<string, string>): Promise<FastifyReply> {
    let parsed;
    try {
      parsed = cardSearchOf(values, PAGE_SIZE);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // The boxes come back empty when a full number was typed (nothing of it is put back); otherwise as typed.
      const refusedNumber = Object.values(values).some((value) => typeof value === 'string' && (isWholeNumber(value) || holdsFullNumber(value)));
      const kept = refusedNumber ? {} : (Object.fromEntries(Object.keys(CARD_SEARCH_FIELDS).map((f) => [f, values[f] ?? ''])) as Partial<Record<CardSearchField, string>>);
      const notice: PageFrame['notice'] = { kind: 'error', text: error.entries.map((e) => e.message).join(' ') };
      const frame = await frameFor(deps, request, { title: 'Payment methods', current: 'payment-methods', environment: env, notice });
      return sendPage(reply, page(request, frame, html`${searchForm(request, env, kept)}${lookupForm(request, env)}`), error.status);
    }
    const { search, given } = parsed;
    const [found, frame] = await Promise.all([
      deps.paymentMethods.search(env, search),
      frameFor(deps, request, { title: 'Payment methods', current: 'payment-methods', environment: env, notice: doneNotice(request) }),
    ]);
    const alphabetical = search.namePrefix !== undefined && search.fingerprint === undefined && search.lastFour === undefined && search.firstSix === undefined && search.email === undefined;
    const caption = searchesAnything(given) ? `Payment methods found${alphabetical ? ', by name' : ', newest first'}` : 'Payment methods, newest first';
    const last = found.hits.at(-1);
    let pager: SafeHtml | null = null;
    if (found.hits.length === PAGE_SIZE && last !== undefined) {
      pager = html`<nav class="pager" aria-label="Pages"><a href="${searchUrl(env.key, given, { before: String(last.position) })}">${alphabetical ? 'More payment methods' : 'Older payment methods'}</a></nav>`;
    } else if (found.scannedTo !== null) {
      pager = html`<div class="notice warn" role="status">Metadata is not indexed: this search read the newest payment methods ${search.beforePosition === undefined ? '' : 'below the last page '}and found ${found.hits.length}.
<a href="${searchUrl(env.key, given, { before: String(found.scannedTo) })}">Search older payment methods</a> or add another box to narrow it.</div>`;
    }
    const body = html`${searchForm(request, env, given)}
<h2>${searchesAnything(given) ? 'Results' : 'Newest payment methods'}</h2>
${resultsTable(env, found, caption)}${pager}
${lookupForm(request, env)}`;
    return sendPage(reply, page(request, frame, body));
  }

  function lookupForm(request: FastifyRequest, env: Environment): SafeHtml {
    // Posted, not a GET form: whatever is typed (a card number pasted by mistake) never
    // becomes part of a URL, where browsers, proxies and access logs would keep it.
    return html`<h2>Look up by token</h2>
<form class="inline" method="post" action="/portal/e/${env.key}/payment-methods/lookup" role="search" aria-label="Look up a payment method by token">
  ${csrfField(request)}<div class="field"><label for="pm-token">Payment method token</label><input id="pm-token" name="token" type="text" required maxlength="64" autocomplete="off"></div>
  <button type="submit">Look up</button>
</form>
<p><a href="/portal/e/${env.key}/imports">Imports from another vault</a> · <a href="/portal/e/${env.key}/exports">Exports to another vault</a></p>`;
  }

  portal.get<EnvParams>('/e/:env/payment-methods', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    return searchPage(request, reply, env, queryOf(request));
  });

  // The search form is posted, so what is typed never lands in a URL before it is checked; a
  // search that passes is redirected to its page (a URL of checked boxes only, for paging and
  // bookmarks). A search only reads, so a deactivated organization may still make it.
  portal.post<EnvParams>('/e/:env/payment-methods/search', { config: { portal: 'read', whileInactive: 'allowed' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const form = formOf(request);
    const values: Record<string, string> = {};
    for (const field of Object.keys(CARD_SEARCH_FIELDS)) if (field !== 'before' && typeof form[field] === 'string') values[field] = form[field] as string;
    try {
      const { given } = cardSearchOf(values, PAGE_SIZE);
      return redirectTo(reply, searchUrl(env.key, given));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return searchPage(request, reply, env, values);
    }
  });

  // A lookup only reads, so a deactivated organization may still make it.
  portal.post<EnvParams>('/e/:env/payment-methods/lookup', { config: { portal: 'read', whileInactive: 'allowed' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const token = (formOf(request).token ?? '').trim();
    if (isWholeNumber(token) || holdsFullNumber(token)) throw new AppError({ key: 'errors.invalid', attribute: 'token', message: FULL_NUMBER_REFUSED });
    if (!looksLikeToken(token)) throw new AppError({ key: 'errors.invalid', attribute: 'token', message: NOT_A_TOKEN });
    return redirectTo(reply, `/portal/e/${env.key}/payment-methods/${token}`);
  });

  portal.get<PmParams>('/e/:env/payment-methods/:token', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const method = await deps.paymentMethods.show(env, request.params.token);
    const [listed, gateways, frame, accessLog] = await Promise.all([
      deps.paymentMethods.transactions(env, method.token, { sinceToken: null, order: 'desc', count: CARD_TRANSACTIONS }),
      deps.gateways.list(env, { sinceToken: null, order: 'desc', count: 100 }),
      frameFor(deps, request, { title: 'Payment method', current: 'payment-methods', environment: env, notice: doneNotice(request) }),
      // Who opened this card and why (docs/audit.md): for those who may read the audit log.
      can(request, 'view_audit') ? deps.cardAccess.accessLog(env.key, method.token, { count: 50 }) : null,
    ]);
    const body = html`${cardFacts(env, method)}
<h2>Transactions</h2>
${transactionTable(env.key, listed.transactions, { gateways: gatewaysByToken(gateways), paymentMethods: new Map([[method.token, method]]) }, `Transactions of this payment method, newest first`)}
${listed.transactions.length === CARD_TRANSACTIONS ? html`<p class="hint">The ${CARD_TRANSACTIONS} newest. The API lists them all: <code>GET /v1/payment_methods/${method.token}/transactions.json</code>.</p>` : null}
${actionsOf(request, env, method)}
${accessLog === null ? null : accessLogSection(env.key, accessLog)}
<h2>All fields</h2>
<p class="hint">What the API answers for this payment method: masks only.</p>
${wireSections(paymentMethodView(method), 3)}`;
    return sendPage(reply, page(request, frame, body));
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

/** The card at a glance: what a support agent reads back to a customer (masks only). */
function cardFacts(env: Environment, method: PaymentMethod): SafeHtml {
  const s = cardSummary(method);
  return html`<dl class="facts summary">
  <dt>Brand</dt><dd>${s.brand}</dd>
  ${s.masked === '' ? null : html`<dt>Number</dt><dd><code>${s.masked}</code></dd>`}
  ${s.expiry === '' ? null : html`<dt>Expiry</dt><dd>${s.expiry}</dd>`}
  ${s.name === '' ? null : html`<dt>Name</dt><dd>${s.name}</dd>`}
  ${method.email === null ? null : html`<dt>Email</dt><dd>${method.email}</dd>`}
  <dt>State</dt><dd><span class="badge">${method.storageState}</span></dd>
  <dt>Created</dt><dd>${when(method.createdAt)}</dd>
  <dt>Token</dt><dd><code>${method.token}</code></dd>
  ${method.fingerprint === null ? null : html`<dt>Fingerprint</dt><dd><code>${method.fingerprint}</code> <a href="/portal/e/${env.key}/payment-methods?fingerprint=${method.fingerprint}">Every card with this number</a></dd>`}
</dl>`;
}

/** Retain and redact for the roles that manage payment methods; recache needs a CVV, which the portal never takes. */
function actionsOf(request: FastifyRequest, env: Environment, method: PaymentMethod): SafeHtml | null {
  if (!can(request, 'manage_payment_methods')) return html`<p class="hint">Your role can look at payment methods; retaining and redacting are for owners and admins.</p>`;
  if (method.storageState === 'redacted') return html`<h2>Actions</h2><p>This payment method is redacted: nothing more can be done with it.</p>`;
  return html`<h2>Actions</h2><div class="row-actions">
${method.storageState === 'cached' ? html`<form method="post" action="/portal/e/${env.key}/payment-methods/${method.token}/retain">${csrfField(request)}<button type="submit">Retain</button></form>` : null}
<details class="confirm"><summary>Redact</summary><form method="post" action="/portal/e/${env.key}/payment-methods/${method.token}/redact">${csrfField(request)}
<p>The card number, CVV and fingerprint are destroyed for good.</p><button class="danger" type="submit">Redact payment method</button></form></details></div>
${method.paymentMethodType === 'credit_card' ? html`<p class="hint">Recache (a new CVV for a stored card) needs the CVV from the cardholder, which the portal never takes: the cardholder types it into the card form in its recache mode (<code>Spreedly.setRecache</code>, docs/card-capture.md), or a server calls <code>POST /v1/payment_methods/${method.token}/recache</code>.</p>` : null}`;
}
