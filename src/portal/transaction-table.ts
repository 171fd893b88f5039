import type { PaymentMethod } from '../domain/payment-method.js';
import { TransactionState, type Transaction } from '../domain/transaction.js';
import type { GatewayRecord } from '../services/gateway.service.js';
import { detailsOf } from '../services/transactions/transaction-details.js';
import { cardLabel } from './card-summary.js';
import { gatewayLabel, gatewayText } from './gateway-label.js';
import { html, type SafeHtml } from './html.js';
import { when } from './layout.js';
import { formatAmount } from './money-format.js';

/** What a row of a transaction list shows besides the transaction: its gateway and its payment method. */
export interface TransactionContext {
  gateways: ReadonlyMap<string, GatewayRecord>;
  paymentMethods: ReadonlyMap<string, PaymentMethod>;
}

/** One transaction as a list shows it (the page and the CSV): masks only, brand and last four. */
export interface TransactionLine {
  createdAt: string;
  type: string;
  state: string;
  amount: string;
  gateway: string;
  card: string;
  email: string;
  orderId: string;
  token: string;
}

export function transactionLine(t: Transaction, context: TransactionContext): TransactionLine {
  const gateway = t.gatewayToken === null ? undefined : context.gateways.get(t.gatewayToken);
  const method = t.paymentMethodToken === null ? undefined : context.paymentMethods.get(t.paymentMethodToken);
  return {
    createdAt: t.createdAt,
    type: t.transactionType,
    state: t.state,
    amount: formatAmount(t.amount, t.currencyCode),
    gateway: gateway === undefined ? (t.gatewayToken ?? '') : gatewayText(gateway),
    card: cardLabel(method),
    email: detailsOf(t)?.email ?? method?.email ?? '',
    orderId: t.orderId ?? '',
    token: t.token,
  };
}

function stateBadge(t: Transaction): SafeHtml {
  const kind = t.succeeded ? 'ok' : t.state === TransactionState.processing || t.state === TransactionState.pending ? '' : 'bad';
  return html`<span class="badge ${kind}">${t.state}</span>`;
}

/** The table of a transaction list; `caption` is read by screen readers. */
export function transactionTable(envKey: string, rows: readonly Transaction[], context: TransactionContext, caption: string): SafeHtml {
  const body =
    rows.length === 0
      ? html`<tr><td colspan="9">No transactions match.</td></tr>`
      : rows.map((t) => {
          const gateway = t.gatewayToken === null ? undefined : context.gateways.get(t.gatewayToken);
          const line = transactionLine(t, context);
          return html`<tr><td class="nowrap">${when(t.createdAt)}</td><td>${t.transactionType}</td><td>${stateBadge(t)}</td>
<td class="num nowrap">${line.amount}</td>
<td>${gateway === undefined ? (t.gatewayToken === null ? '' : html`<code>${t.gatewayToken.slice(0, 8)}</code>`) : html`<a href="/portal/e/${envKey}/gateways/${gateway.token}">${gatewayLabel(gateway)}</a>`}</td>
<td class="nowrap">${t.paymentMethodToken === null || line.card === '' ? line.card : html`<a href="/portal/e/${envKey}/payment-methods/${t.paymentMethodToken}">${line.card}</a>`}</td>
<td>${line.email}</td><td>${line.orderId}</td>
<td><a href="/portal/e/${envKey}/transactions/${t.token}"><code>${t.token.slice(0, 10)}…</code><span class="visually-hidden"> ${t.token}</span></a></td></tr>`;
        });
  return html`<div class="table-scroll" role="region" aria-label="${caption}" tabindex="0"><table><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">Created</th><th scope="col">Type</th><th scope="col">State</th><th scope="col" class="num">Amount</th><th scope="col">Gateway</th><th scope="col">Card</th><th scope="col">Customer email</th><th scope="col">Order id</th><th scope="col">Token</th></tr></thead>
<tbody>${body}</tbody></table></div>`;
}

/** The gateways of an environment by token, for the rows. */
export function gatewaysByToken(gateways: readonly GatewayRecord[]): Map<string, GatewayRecord> {
  return new Map(gateways.map((g) => [g.token, g]));
}
