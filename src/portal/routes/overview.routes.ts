import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { routeNotFound } from '../../http/errors.js';
import { environmentOf, queryOf, type PortalDeps } from '../context.js';
import { frameFor } from '../frame.js';
import { html, type SafeHtml } from '../html.js';
import { page, sendPage, when } from '../layout.js';
import { formatAmount } from '../money-format.js';
import { overviewJson } from '../overview-json.js';
import { horizontalBars, COLOURS, responsive, volumeChart, type ChartBar } from '../svg-chart.js';
import { isOverviewRange, OVERVIEW_RANGES, type GatewayFigures, type OverviewFigures, type OverviewRange } from '../../services/overview.service.js';

type EnvParams = { Params: { env: string } };

const HOUR = 3_600_000;

function rangeOf(query: Record<string, string>): OverviewRange {
  const range = query.range ?? '24h';
  if (!isOverviewRange(range)) throw new AppError({ key: 'errors.invalid', attribute: 'range', message: 'Range must be 24h, 7d or 30d' });
  return range;
}

/** A horizontal bar chart in both sizes. */
function barsChart(label: string, rows: readonly ChartBar[], series: ReadonlyArray<{ name: string; colour: string }>, unit: string): SafeHtml {
  return responsive((size) => horizontalBars(label, rows, series, unit, size));
}

function percent(rate: number | null): string {
  return rate === null ? '—' : `${(rate * 100).toFixed(1)}%`;
}

function latencyText(value: number | null): string {
  if (value === null) return 'no calls';
  return Number.isFinite(value) ? `≤ ${value} ms` : '> 60000 ms';
}

/** The bars of a gateway's volume chart: axis text and the hover of each bucket. */
function barsOf(gateway: GatewayFigures, figures: OverviewFigures): Parameters<typeof volumeChart>[1] {
  return gateway.series.map((point) => {
    const start = point.start;
    const end = new Date(Date.parse(start) + figures.bucketHours * HOUR).toISOString();
    const day = start.slice(5, 10);
    const tick = figures.range === '24h' ? `${start.slice(11, 13)}:00` : day;
    const span = figures.bucketHours === 24 ? `${start.slice(0, 10)} (UTC day)` : `${start.slice(0, 10)} ${start.slice(11, 16)}–${end.slice(11, 16)} UTC`;
    return { tick, span, payments: point.payments, approved: point.approved };
  });
}

const AXIS_NOTE: Record<OverviewRange, string> = { '24h': 'one bar per hour, UTC', '7d': 'one bar per 6 hours, UTC dates', '30d': 'one bar per day, UTC dates' };
/** Axis text under every n-th bar of the wide chart (the narrow one writes half as many). */
const TICK_EVERY: Record<OverviewRange, number> = { '24h': 4, '7d': 4, '30d': 5 };

function rangeLinks(envKey: string, range: OverviewRange): SafeHtml {
  const links = (Object.keys(OVERVIEW_RANGES) as OverviewRange[]).map(
    (key) => html`<li><a href="/portal/e/${envKey}/overview?range=${key}"${key === range ? html` aria-current="true"` : ''}>${key === range ? html`<strong>${OVERVIEW_RANGES[key].label}</strong>` : OVERVIEW_RANGES[key].label}</a></li>`,
  );
  return html`<nav aria-label="Time range"><ul class="range-links">${links}</ul></nav>`;
}

function gatewaySection(envKey: string, gateway: GatewayFigures, figures: OverviewFigures): SafeHtml {
  const label = `${gateway.name} (${gateway.gatewayType}): payments and approval rate, ${OVERVIEW_RANGES[figures.range].label.toLowerCase()}: ${gateway.payments} payments, ${percent(gateway.approvalRate)} approved`;
  return html`<section class="card" aria-labelledby="gw-${gateway.token}">
<h3 id="gw-${gateway.token}"><a href="/portal/e/${envKey}/gateways/${gateway.token}">${gateway.name}</a> <span class="hint">${gateway.gatewayType}</span>${gateway.breakerOpenNow ? html` <span class="badge bad">breaker open</span>` : null}</h3>
<p><strong>${gateway.payments}</strong> payments, <strong>${percent(gateway.approvalRate)}</strong> approved</p>
${responsive((size) => volumeChart(label, barsOf(gateway, figures), AXIS_NOTE[figures.range], TICK_EVERY[figures.range], size))}
</section>`;
}

function overviewBody(envKey: string, figures: OverviewFigures, failures: Awaited<ReturnType<PortalDeps['overview']['of']>>['failures']): SafeHtml {
  const names = new Map(figures.gateways.map((gateway) => [gateway.token, gateway.name]));
  const open = figures.gateways.filter((g) => g.breakerOpenNow);
  const withCalls = figures.gateways.filter((g) => g.latencySamples > 0);
  const rangeWords = OVERVIEW_RANGES[figures.range].label.toLowerCase();
  const totals = figures.totals;
  const latency =
    withCalls.length === 0
      ? html`<p>No gateway calls with a measured latency ${rangeWords}.</p>`
      : barsChart(
          `Gateway latency ${rangeWords}, p50 and p95 in milliseconds`,
          withCalls.map((g) => ({ name: g.name, values: [g.latencyP50Ms ?? 0, g.latencyP95Ms ?? 0], valueTexts: [latencyText(g.latencyP50Ms), latencyText(g.latencyP95Ms)] })),
          [{ name: 'p50', colour: COLOURS.p50 }, { name: 'p95', colour: COLOURS.p95 }],
          'ms (bucket upper bound)',
        );
  const declines = figures.declineReasons.slice(0, 12);
  const declineChart =
    declines.length === 0
      ? html`<p>No declined or failed payments ${rangeWords}.</p>`
      : barsChart(`Decline reasons ${rangeWords}, most first`, declines.map((d) => ({ name: d.code, values: [d.count], valueTexts: [String(d.count)] })), [{ name: 'payments', colour: COLOURS.declined }], 'payments');
  const breakers =
    totals.breakerOpenings === 0
      ? html`<p>No breaker opened ${rangeWords}.</p>`
      : barsChart(`Breaker openings per gateway ${rangeWords}`, figures.gateways.filter((g) => g.breakerOpenings > 0).map((g) => ({ name: g.name, values: [g.breakerOpenings], valueTexts: [String(g.breakerOpenings)] })), [{ name: 'openings', colour: COLOURS.declined }], 'openings');
  const rescued = figures.gateways.filter((g) => g.retryRescues + g.failoverRescues > 0);
  const rescues =
    rescued.length === 0
      ? html`<p>No payment was rescued by a retry or a failover ${rangeWords}.</p>`
      : barsChart(
          `Payments rescued by a retry or a failover ${rangeWords}, by the gateway that approved them`,
          rescued.map((g) => ({ name: g.name, values: [g.retryRescues, g.failoverRescues], valueTexts: [String(g.retryRescues), String(g.failoverRescues)] })),
          [{ name: 'after a decline (retry)', colour: COLOURS.approved }, { name: 'after a fault (failover)', colour: COLOURS.rate }],
          'payments',
        );
  const routing =
    figures.routing.length === 0
      ? html`<p>No payment was routed by a workflow ${rangeWords}.</p>`
      : html`${barsChart(`Routing decisions per workflow rule ${rangeWords}`, figures.routing.map((r) => ({ name: `${r.workflowKey} · ${r.rule ?? 'default target'}`, values: [r.decisions], valueTexts: [String(r.decisions)] })), [{ name: 'decisions', colour: COLOURS.neutral }], 'decisions')}
<div class="figure-scroll" role="region" tabindex="0" aria-label="Routing decisions per workflow rule and gateway"><table><caption class="visually-hidden">Routing decisions per workflow rule and gateway</caption>
<thead><tr><th scope="col">Workflow</th><th scope="col">Rule</th><th scope="col" class="num">Decisions</th><th scope="col">Gateways chosen</th></tr></thead>
<tbody>${figures.routing.map((r) => html`<tr><td><a href="/portal/e/${envKey}/workflows/${r.workflowKey}"><code>${r.workflowKey}</code></a></td><td>${r.rule ?? 'default target'}</td><td class="num">${r.decisions}</td><td>${r.gateways.map((g, i) => html`${i === 0 ? '' : ', '}${names.get(g.token) ?? g.token}: ${g.count}`)}</td></tr>`)}</tbody></table></div>`;
  return html`${rangeLinks(envKey, figures.range)}
<p class="hint">Payments are purchases and authorizations (captures, voids, credits and verifications are not counted again); each attempt on a gateway counts on that gateway. Figures from ${when(figures.from)} to ${when(figures.until)}; <a href="/portal/e/${envKey}/overview.json?range=${figures.range}">these figures as JSON</a>.</p>
${figures.countingFrom === null ? '' : html`<p class="notice" role="status">Counting the hours since ${when(figures.countingFrom)} in the background (a large store or a fresh start): they are left out of these figures for now. Reload in a minute.</p>`}
<dl class="facts">
<dt>Payments</dt><dd>${totals.payments}</dd>
<dt>Approval rate</dt><dd>${percent(totals.approvalRate)} (${totals.approved} approved)</dd>
<dt>Rescued payments</dt><dd>${totals.retryRescues + totals.failoverRescues} (${totals.retryRescues} by a retry, ${totals.failoverRescues} by a failover)</dd>
<dt>Breaker openings</dt><dd>${totals.breakerOpenings}</dd>
</dl>
<h2>Breakers open now</h2>
${open.length === 0 ? html`<p>None: every gateway is taking requests.</p>` : html`<ul>${open.map((g) => html`<li><a href="/portal/e/${envKey}/gateways/${g.token}">${g.name}</a>: paused after repeated gateway errors</li>`)}</ul>`}
<h2>Payments and approval rate per gateway</h2>
${figures.gateways.length === 0 ? html`<p>No gateways yet. <a href="/portal/e/${envKey}/gateways">Add one</a>.</p>` : html`<div class="figures">${figures.gateways.map((g) => gatewaySection(envKey, g, figures))}</div>`}
<h2>Latency per gateway</h2>
${latency}
<h2>Decline reasons</h2>
${declineChart}
<h2>Breaker openings</h2>
${breakers}
<h2>Retries and failovers that rescued a payment</h2>
${rescues}
<h2>Routing decisions per workflow rule</h2>
${routing}
<h2>Last failures</h2>
<div class="figure-scroll" role="region" tabindex="0" aria-label="The last unsuccessful gateway transactions"><table><caption class="visually-hidden">The last unsuccessful gateway transactions</caption>
<thead><tr><th scope="col">When</th><th scope="col">Gateway</th><th scope="col">Type</th><th scope="col">State</th><th scope="col" class="num">Amount</th><th scope="col">Message</th><th scope="col">Token</th></tr></thead>
<tbody>${
    failures.length === 0
      ? html`<tr><td colspan="7">No failures ${rangeWords}.</td></tr>`
      : failures.map(
          (t) => html`<tr><td>${when(t.createdAt)}</td><td>${t.gatewayToken === null ? '—' : (names.get(t.gatewayToken) ?? t.gatewayToken)}</td><td>${t.transactionType}</td><td><span class="badge bad">${t.state}</span></td><td class="num">${formatAmount(t.amount, t.currencyCode)}</td><td>${t.message ?? ''}</td>
<td><a href="/portal/e/${envKey}/transactions/${t.token}"><code>${t.token}</code></a></td></tr>`,
        )
  }</tbody></table></div>`;
}

/**
 * The landing page of an environment (docs/portal.md, "Overview"): how payments are going, as
 * charts drawn on the server, and the same figures as JSON.
 */
export function overviewRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  // `/overview.json` reaches this route too: the server takes a format suffix off every path
  // (src/http/format/negotiation.ts); the original URL tells which was asked for.
  portal.get<EnvParams>('/e/:env/overview', async (request, reply) => {
    const suffix = /\.(json|xml)$/.exec(request.originalUrl.split('?')[0] ?? '')?.[1];
    if (suffix === 'xml') throw routeNotFound();
    const env = await environmentOf(deps, request, request.params.env);
    const range = rangeOf(queryOf(request));
    if (suffix === 'json') {
      const overview = await deps.overview.of(env, range);
      return reply.type('application/json; charset=utf-8').send(overviewJson(overview.figures));
    }
    const [overview, frame] = await Promise.all([
      deps.overview.of(env, range),
      frameFor(deps, request, { title: `Overview · ${env.name}`, current: 'overview', environment: env }),
    ]);
    return sendPage(reply, page(request, frame, overviewBody(env.key, overview.figures, overview.failures)));
  });
}
