import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import type { Environment } from '../../domain/environment.js';
import { transactionView } from '../../http/views/transaction.view.js';
import { TRANSACTION_STATES, TRANSACTION_TYPES, type Transaction } from '../../domain/transaction.js';
import type { GatewayRecord } from '../../services/gateway.service.js';
import { cardSummary } from '../card-summary.js';
import { environmentOf, formOf, queryOf, redirectTo, type PortalDeps } from '../context.js';
import { csvLine } from '../csv.js';
import { frameFor } from '../frame.js';
import { gatewayLabel, gatewayText } from '../gateway-label.js';
import { holdsFullNumber, isWholeNumber } from '../full-number-guard.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, sendPage, type PageFrame } from '../layout.js';
import { formatAmount } from '../money-format.js';
import { gatewaysByToken, transactionLine, transactionTable, type TransactionContext } from '../transaction-table.js';
import { TRANSACTION_SEARCH_FIELDS, transactionQueryString, transactionSearchOf, type GivenTransactionSearch, type TransactionSearchField } from '../transaction-search-form.js';
import { wireSections } from '../wire-facts.js';

type EnvParams = { Params: { env: string } };
type TxParams = { Params: { env: string; token: string } };

const PAGE_SIZE = 50;
/** Rows an export holds at most (newest first), read this many a statement. */
export const EXPORT_LIMIT = 10_000;
const EXPORT_BATCH = 500;
/** Windows an export of an unindexed search reads at most (each TRANSACTION_SEARCH_WINDOW rows). */
const EXPORT_WINDOWS = 20;

/** The boxes behind "More filters" (open when one of them is filled). */
const MORE_FILTERS: readonly TransactionSearchField[] = ['type', 'amount_from', 'amount_to', 'currency', 'from', 'to', 'token'];

const CSV_HEADER = ['created_at', 'transaction_type', 'state', 'amount', 'amount_minor_units', 'currency', 'gateway', 'gateway_token', 'card_brand', 'card_last_four', 'customer_email', 'order_id', 'token', 'message'];

/** The environment's gateways by token, with any a page names that the first 100 do not hold. */
async function gatewaysFor(deps: PortalDeps, env: Environment, rows: readonly Transaction[]): Promise<Map<string, GatewayRecord>> {
  const listed = gatewaysByToken(await deps.gateways.list(env, { sinceToken: null, order: 'desc', count: 100 }));
  const missing = [...new Set(rows.map((t) => t.gatewayToken).filter((token): token is string => token !== null && !listed.has(token)))];
  for (const token of missing) {
    const found = await deps.gateways.show(env, token).catch(() => undefined);
    if (found !== undefined) listed.set(token, found);
  }
  return listed;
}

/** The search form, its boxes filled with `values` (already checked: nothing refused is put back). */
function searchForm(request: FastifyRequest, env: Environment, values: GivenTransactionSearch, gateways: readonly GatewayRecord[]): SafeHtml {
  const select = (name: TransactionSearchField, any: string, options: Array<[string, string]>) =>
    html`<div class="field"><label for="tx-${name}">${TRANSACTION_SEARCH_FIELDS[name]}</label><select id="tx-${name}" name="${name}"><option value="">${any}</option>${options.map(
      ([value, text]) => html`<option value="${value}"${values[name] === value ? html` selected` : ''}>${text}</option>`,
    )}</select></div>`;
  const box = (name: TransactionSearchField, type = 'text', extra: SafeHtml | null = null) =>
    html`<div class="field"><label for="tx-${name}">${TRANSACTION_SEARCH_FIELDS[name]}</label><input id="tx-${name}" name="${name}" type="${type}" value="${values[name] ?? ''}" autocomplete="off"${extra}></div>`;
  return html`<form class="search-grid" method="post" action="/portal/e/${env.key}/transactions/search" role="search" aria-label="Find a payment">
  ${csrfField(request)}
  ${box('order_id')}${box('last_four', 'text', html` inputmode="numeric" aria-describedby="tx-last-four-hint"`)}
  ${select('gateway', 'Any gateway', gateways.map((g) => [g.token, gatewayText(g)]))}
  ${select('state', 'Any state', TRANSACTION_STATES.map((s) => [s, s]))}
  <details class="more-filters"${MORE_FILTERS.some((field) => values[field] !== undefined && values[field] !== '') ? html` open` : ''}><summary>More filters: type, amount, currency, dates, token</summary><div class="more-grid">
  ${select('type', 'Any type', TRANSACTION_TYPES.map((t) => [t, t]))}
  ${box('amount_from', 'text', html` inputmode="decimal"`)}${box('amount_to', 'text', html` inputmode="decimal"`)}${box('currency', 'text', html` maxlength="3" size="4"`)}
  ${box('from', 'date')}${box('to', 'date')}${box('token')}
  </div></details>
  <div class="search-actions"><button class="primary" type="submit">Search</button> <a class="button" href="/portal/e/${env.key}/transactions">Clear</a></div>
</form>
<p class="hint" id="tx-last-four-hint">Card last four: the 4 last digits only; a full card number is refused and not kept. Amounts in the currency's units (10.00); dates are UTC days, both included.</p>`;
}

/**
 * Transactions (docs/portal.md, "Find a payment"): a list with gateway, card, customer and order,
 * filters, keyset paging (newest first), an export of the filtered list to CSV, and a detail page
 * with the scrubbed transcript.
 */
export function transactionRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  async function listPage(request: FastifyRequest, reply: FastifyReply, env: Environment, values: Record<string, string>): Promise<FastifyReply> {
    let parsed;
    try {
      parsed = transactionSearchOf(values, PAGE_SIZE);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const refusedNumber = Object.values(values).some((value) => typeof value === 'string' && (isWholeNumber(value) || holdsFullNumber(value)));
      const kept: GivenTransactionSearch = refusedNumber ? {} : (Object.fromEntries(Object.keys(TRANSACTION_SEARCH_FIELDS).map((f) => [f, values[f] ?? ''])) as GivenTransactionSearch);
      const notice: PageFrame['notice'] = { kind: 'error', text: error.entries.map((e) => e.message).join(' ') };
      const [gateways, frame] = await Promise.all([
        deps.gateways.list(env, { sinceToken: null, order: 'desc', count: 100 }),
        frameFor(deps, request, { title: 'Transactions', current: 'transactions', environment: env, notice }),
      ]);
      return sendPage(reply, page(request, frame, searchForm(request, env, kept, gateways)), error.status);
    }
    const { filter, given, lastFour } = parsed;
    const [found, frame] = await Promise.all([
      deps.transactionQuery.search(env, filter, lastFour === undefined ? {} : { lastFour }),
      frameFor(deps, request, { title: 'Transactions', current: 'transactions', environment: env }),
    ]);
    const gateways = await gatewaysFor(deps, env, found.transactions);
    const context: TransactionContext = { gateways, paymentMethods: found.paymentMethods };
    const last = found.transactions.at(-1);
    const base = `/portal/e/${env.key}/transactions`;
    let pager: SafeHtml | null = null;
    if (found.transactions.length === PAGE_SIZE && last !== undefined) {
      pager = html`<nav class="pager" aria-label="Pages"><a href="${base}?${transactionQueryString(given, { before: String(last.position) })}">Older transactions</a></nav>`;
    } else if (found.scannedTo !== null) {
      pager = html`<div class="notice warn" role="status">Type, amount and currency have no index: this search read the newest transactions${filter.beforePosition === undefined ? '' : ' below the last page'} and found ${found.transactions.length}.
<a href="${base}?${transactionQueryString(given, { before: String(found.scannedTo) })}">Search older transactions</a>, or add a gateway, state, date range, card or order id to narrow it.</div>`;
    }
    const capped = found.lastFourCapped ? html`<div class="notice warn" role="status">More than 1,000 cards end in these four digits: the transactions of the newest 1,000 are searched. Add a date range or a gateway to narrow it.</div>` : null;
    const exportQuery = transactionQueryString(given, { before: '' });
    const body = html`${searchForm(request, env, given, [...gateways.values()])}
${capped}
<p class="row-actions"><a class="button" href="${base}/export${exportQuery === '' ? '' : `?${exportQuery}`}" download>Export to CSV</a><span class="hint">The filtered list, newest first, up to ${EXPORT_LIMIT.toLocaleString('en-US')} rows; cards as brand and last four only.</span></p>
${transactionTable(env.key, found.transactions, context, 'Transactions, newest first')}
${pager}`;
    return sendPage(reply, page(request, frame, body));
  }

  portal.get<EnvParams>('/e/:env/transactions', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    return listPage(request, reply, env, queryOf(request));
  });

  // Posted, so what is typed never lands in a URL before it is checked (a card number pasted in a
  // box); a search that passes is redirected to its page. It only reads: allowed while inactive.
  portal.post<EnvParams>('/e/:env/transactions/search', { config: { portal: 'read', whileInactive: 'allowed' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const form = formOf(request);
    const values: Record<string, string> = {};
    for (const field of Object.keys(TRANSACTION_SEARCH_FIELDS)) if (field !== 'before' && typeof form[field] === 'string') values[field] = form[field] as string;
    try {
      const { given } = transactionSearchOf(values, PAGE_SIZE);
      const query = transactionQueryString(given);
      return redirectTo(reply, `/portal/e/${env.key}/transactions${query === '' ? '' : `?${query}`}`);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return listPage(request, reply, env, values);
    }
  });

  // The filtered list as CSV: brand and last four of a card, nothing more of it; every cell quoted and
  // formula-safe (csv.ts). Read in batches; a search by type, amount or currency alone reads at most
  // EXPORT_WINDOWS windows.
  portal.get<EnvParams>('/e/:env/transactions/export', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const values = queryOf(request);
    delete values.before;
    const { filter, lastFour } = transactionSearchOf(values, EXPORT_BATCH);
    const lines: string[] = [csvLine(CSV_HEADER)];
    let rows = 0;
    let windows = 0;
    let before: number | undefined;
    for (;;) {
      const found = await deps.transactionQuery.search(env, { ...filter, ...(before === undefined ? {} : { beforePosition: before }) }, lastFour === undefined ? {} : { lastFour });
      const gateways = await gatewaysFor(deps, env, found.transactions);
      for (const t of found.transactions.slice(0, EXPORT_LIMIT - rows)) {
        const method = t.paymentMethodToken === null ? undefined : found.paymentMethods.get(t.paymentMethodToken);
        const card = method === undefined ? undefined : cardSummary(method);
        const line = transactionLine(t, { gateways, paymentMethods: found.paymentMethods });
        lines.push(csvLine([t.createdAt, t.transactionType, t.state, formatAmount(t.amount, t.currencyCode), t.amount, t.currencyCode, line.gateway, t.gatewayToken, card?.brand, card?.lastFour, line.email, t.orderId, t.token, t.message]));
        rows += 1;
      }
      if (found.scannedTo !== null) windows += 1;
      const next = found.transactions.length === EXPORT_BATCH ? found.transactions.at(-1)?.position : (found.scannedTo ?? undefined);
      if (rows >= EXPORT_LIMIT || next === undefined || windows >= EXPORT_WINDOWS) break;
      before = next;
    }
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="transactions-${env.key}-${day}.csv"`)
      .send(lines.join(''));
  });

  portal.get<TxParams>('/e/:env/transactions/:token', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const found = await deps.transactionQuery.show(env, request.params.token);
    const row = found.transactions[0];
    if (row === undefined) throw new AppError({ key: 'errors.transaction_not_found', message: 'Unable to find the transaction.' });
    const view = transactionView(row, (token) => (token === null ? null : (found.paymentMethods.get(token) ?? null)));
    const [gateways, frame] = await Promise.all([
      gatewaysFor(deps, env, [row]),
      frameFor(deps, request, { title: `${row.transactionType} ${row.state}`, current: 'transactions', environment: env }),
    ]);
    const gateway = row.gatewayToken === null ? undefined : gateways.get(row.gatewayToken);
    const line = transactionLine(row, { gateways, paymentMethods: found.paymentMethods });
    const summary = html`<dl class="facts summary">
  <dt>Amount</dt><dd>${formatAmount(row.amount, row.currencyCode)}</dd>
  <dt>State</dt><dd><span class="badge ${row.succeeded ? 'ok' : 'bad'}">${row.state}</span> ${row.message ?? ''}</dd>
  ${row.gatewayToken === null ? null : html`<dt>Gateway</dt><dd><a href="/portal/e/${env.key}/gateways/${row.gatewayToken}">${gateway === undefined ? html`<code>${row.gatewayToken}</code>` : gatewayLabel(gateway)}</a></dd>`}
  ${row.paymentMethodToken === null ? null : html`<dt>Payment method</dt><dd><a href="/portal/e/${env.key}/payment-methods/${row.paymentMethodToken}">${line.card === '' ? html`<code>${row.paymentMethodToken}</code>` : line.card}</a></dd>`}
  ${line.email === '' ? null : html`<dt>Customer email</dt><dd>${line.email}</dd>`}
  ${line.orderId === '' ? null : html`<dt>Order id</dt><dd>${line.orderId}</dd>`}
</dl>`;
    const body = html`${summary}
<h2>Details</h2>
${wireSections(view)}
<h2>Transcript <span class="hint">(scrubbed of card data and credentials)</span></h2>
${row.transcript === null || row.transcript === '' ? html`<p>No exchange with a gateway was recorded.</p>` : html`<pre class="transcript" tabindex="0">${row.transcript}</pre>`}`;
    return sendPage(reply, page(request, frame, body));
  });
}
