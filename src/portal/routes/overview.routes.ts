import type { FastifyInstance } from 'fastify';
import { environmentOf, type PortalDeps } from '../context.js';
import { frameFor } from '../frame.js';
import { html } from '../html.js';
import { page, sendPage, when } from '../layout.js';
import { formatAmount } from '../money-format.js';
import { barChart, summary } from '../svg-chart.js';

type EnvParams = { Params: { env: string } };

/** The landing page of an environment: volume and success per gateway, failures, open breakers. */
export function overviewRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get<EnvParams>('/e/:env/overview', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const [overview, frame] = await Promise.all([
      deps.overview.of(env),
      frameFor(deps, request, { title: `Overview · ${env.name}`, current: 'overview', environment: env }),
    ]);
    const open = overview.gateways.filter((g) => g.breakerOpen);
    const cards = overview.gateways.map((g) => {
      const day = summary(g.hours);
      const month = summary(g.days);
      return html`<section class="card" aria-labelledby="gw-${g.token}">
<h3 id="gw-${g.token}"><a href="/portal/e/${env.key}/gateways/${g.token}">${g.name}${g.description === null ? '' : ` · ${g.description}`}</a>${g.breakerOpen ? html` <span class="badge bad">breaker open</span>` : null}</h3>
<p>Last 24 hours: <strong>${day.total}</strong> payments, <strong>${day.rate}</strong> succeeded</p>
${barChart(`${g.name}, payments per hour over the last 24 hours`, g.hours, 6, (label) => `${label.slice(11, 13)}h`)}
<p>Last 30 days: <strong>${month.total}</strong> payments, <strong>${month.rate}</strong> succeeded</p>
${barChart(`${g.name}, payments per day over the last 30 days`, g.days, 7, (label) => label.slice(5))}
</section>`;
    });
    const body = html`<p class="hint">Gateway transactions; blue succeeded, red did not. Figures as of ${when(overview.computedAt)}.</p>
<h2>Breakers open now</h2>
${open.length === 0 ? html`<p>None: every gateway is taking requests.</p>` : html`<ul>${open.map((g) => html`<li><a href="/portal/e/${env.key}/gateways/${g.token}">${g.name}</a>: paused after repeated gateway errors</li>`)}</ul>`}
<h2>Gateways</h2>
${cards.length === 0 ? html`<p>No gateways yet. <a href="/portal/e/${env.key}/gateways">Add one</a>.</p>` : html`<div class="cards">${cards}</div>`}
<h2>Last failures</h2>
<table><caption class="visually-hidden">The last unsuccessful gateway transactions</caption>
<thead><tr><th scope="col">When</th><th scope="col">Type</th><th scope="col">State</th><th scope="col" class="num">Amount</th><th scope="col">Message</th><th scope="col">Token</th></tr></thead>
<tbody>${
      overview.failures.length === 0
        ? html`<tr><td colspan="6">No failures in the last 30 days.</td></tr>`
        : overview.failures.map(
            (t) => html`<tr><td>${when(t.createdAt)}</td><td>${t.transactionType}</td><td><span class="badge bad">${t.state}</span></td><td class="num">${formatAmount(t.amount, t.currencyCode)}</td><td>${t.message ?? ''}</td>
<td><a href="/portal/e/${env.key}/transactions/${t.token}"><code>${t.token}</code></a></td></tr>`,
          )
    }</tbody></table>`;
    return sendPage(reply, page(request, frame, body));
  });
}
