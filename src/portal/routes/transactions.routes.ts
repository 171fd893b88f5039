import type { FastifyInstance } from 'fastify';
import { AppError, fieldError } from '../../domain/errors.js';
import { transactionView } from '../../http/views/transaction.view.js';
import { isTransactionState, TRANSACTION_STATES, TRANSACTION_TYPES, TransactionState, type TransactionSearch } from '../../domain/transaction.js';
import { environmentOf, queryOf, type PortalDeps } from '../context.js';
import { frameFor } from '../frame.js';
import { html } from '../html.js';
import { page, sendPage, when } from '../layout.js';
import { formatAmount } from '../money-format.js';
import { wireSections } from '../wire-facts.js';

type EnvParams = { Params: { env: string } };
type TxParams = { Params: { env: string; token: string } };

const PAGE_SIZE = 50;
const STATES: readonly TransactionState[] = TRANSACTION_STATES;
const TYPES: readonly string[] = TRANSACTION_TYPES;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

/** The search form's values as a repository filter; a malformed value is a 422 naming it. */
function searchOf(query: Record<string, string>): TransactionSearch {
  const filter: TransactionSearch = { count: PAGE_SIZE };
  const given = (name: string) => (query[name] ?? '').trim() || undefined;
  const token = given('token');
  if (token !== undefined) {
    if (!TOKEN.test(token)) throw new AppError(fieldError.invalid('token'));
    filter.token = token;
  }
  const orderId = given('order_id');
  if (orderId !== undefined) filter.orderId = orderId.slice(0, 255);
  const gateway = given('gateway');
  if (gateway !== undefined) filter.gatewayToken = gateway;
  const state = given('state');
  if (state !== undefined) {
    if (!isTransactionState(state)) throw new AppError(fieldError.inclusion('state'));
    filter.state = state;
  }
  const type = given('type');
  if (type !== undefined) {
    if (!TYPES.includes(type)) throw new AppError(fieldError.inclusion('type'));
    filter.type = type;
  }
  for (const [name, key] of [['from', 'from'], ['to', 'to']] as const) {
    const value = given(name);
    if (value === undefined) continue;
    if (!DATE.test(value) || Number.isNaN(Date.parse(value))) throw new AppError(fieldError.invalid(name));
    filter[key] = key === 'from' ? `${value}T00:00:00.000Z` : new Date(Date.parse(`${value}T00:00:00.000Z`) + 86_400_000).toISOString();
  }
  const before = given('before');
  if (before !== undefined) {
    if (!/^\d{1,15}$/.test(before)) throw new AppError(fieldError.invalid('before'));
    filter.beforePosition = Number(before);
  }
  return filter;
}

/** Transactions: search and filter, keyset paging (newest first), detail with the scrubbed transcript. */
export function transactionRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get<EnvParams>('/e/:env/transactions', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const query = queryOf(request);
    const filter = searchOf(query);
    const [found, gateways, frame] = await Promise.all([
      deps.transactionQuery.search(env, filter),
      deps.gateways.list(env, { sinceToken: null, order: 'desc', count: 100 }),
      frameFor(deps, request, { title: 'Transactions', current: 'transactions', environment: env }),
    ]);
    const rows = found.transactions;
    const select = (name: string, label: string, values: Array<[string, string]>, any: string) =>
      html`<div class="field"><label for="tx-${name}">${label}</label><select id="tx-${name}" name="${name}"><option value="">${any}</option>${values.map(
        ([value, text]) => html`<option value="${value}"${query[name] === value ? html` selected` : ''}>${text}</option>`,
      )}</select></div>`;
    const text = (name: string, label: string, type = 'text') =>
      html`<div class="field"><label for="tx-${name}">${label}</label><input id="tx-${name}" name="${name}" type="${type}" value="${query[name] ?? ''}"></div>`;
    const last = rows.at(-1);
    const older = new URLSearchParams({ ...query, before: String(last?.position ?? '') }).toString();
    const body = html`<form class="inline" method="get" action="/portal/e/${env.key}/transactions" role="search">
  ${text('token', 'Token')}${text('order_id', 'Order id')}
  ${select('state', 'State', STATES.map((s) => [s, s]), 'Any state')}
  ${select('type', 'Type', TYPES.map((t) => [t, t]), 'Any type')}
  ${select('gateway', 'Gateway', gateways.map((g) => [g.row.token, `${g.definition.name} ${g.row.description ?? g.row.token.slice(0, 8)}`]), 'Any gateway')}
  ${text('from', 'From', 'date')}${text('to', 'To (inclusive)', 'date')}
  <button type="submit">Search</button>
</form>
<table><caption class="visually-hidden">Transactions, newest first</caption>
<thead><tr><th scope="col">Created</th><th scope="col">Type</th><th scope="col">State</th><th scope="col" class="num">Amount</th><th scope="col">Order id</th><th scope="col">Token</th></tr></thead>
<tbody>${
      rows.length === 0
        ? html`<tr><td colspan="6">No transactions match.</td></tr>`
        : rows.map(
            (t) => html`<tr><td>${when(t.createdAt)}</td><td>${t.transactionType}</td><td><span class="badge ${t.succeeded ? 'ok' : t.state === TransactionState.succeeded ? '' : 'bad'}">${t.state}</span></td>
<td class="num">${formatAmount(t.amount, t.currencyCode)}</td><td>${t.orderId ?? ''}</td><td><a href="/portal/e/${env.key}/transactions/${t.token}"><code>${t.token}</code></a></td></tr>`,
          )
    }</tbody></table>
${rows.length === PAGE_SIZE ? html`<nav class="pager" aria-label="Pages"><a href="/portal/e/${env.key}/transactions?${older}">Older transactions</a></nav>` : null}`;
    return sendPage(reply, page(request, frame, body));
  });

  portal.get<TxParams>('/e/:env/transactions/:token', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const found = await deps.transactionQuery.show(env, request.params.token);
    const row = found.transactions[0];
    if (row === undefined) throw new AppError({ key: 'errors.transaction_not_found', message: 'Unable to find the transaction.' });
    const view = transactionView(row, (token) => (token === null ? null : (found.paymentMethods.get(token) ?? null)));
    const frame = await frameFor(deps, request, { title: `${row.transactionType} ${row.state}`, current: 'transactions', environment: env });
    const summary = html`<dl class="facts summary">
  <dt>Amount</dt><dd>${formatAmount(row.amount, row.currencyCode)}</dd>
  <dt>State</dt><dd><span class="badge ${row.succeeded ? 'ok' : 'bad'}">${row.state}</span> ${row.message ?? ''}</dd>
  ${row.gatewayToken === null ? null : html`<dt>Gateway</dt><dd><a href="/portal/e/${env.key}/gateways/${row.gatewayToken}"><code>${row.gatewayToken}</code></a></dd>`}
  ${row.paymentMethodToken === null ? null : html`<dt>Payment method</dt><dd><a href="/portal/e/${env.key}/payment-methods/${row.paymentMethodToken}"><code>${row.paymentMethodToken}</code></a></dd>`}
</dl>`;
    const body = html`${summary}
<h2>Details</h2>
${wireSections(view)}
<h2>Transcript <span class="hint">(scrubbed of card data and credentials)</span></h2>
${row.transcript === null || row.transcript === '' ? html`<p>No exchange with a gateway was recorded.</p>` : html`<pre class="transcript" tabindex="0">${row.transcript}</pre>`}`;
    return sendPage(reply, page(request, frame, body));
  });
}
