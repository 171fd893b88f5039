import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sample } from '../../bench/prometheus-text.js';
import { TEST_AMOUNTS } from '../../src/gateways/test.gateway.js';
import { addPaymentMethod, createTestGateway } from '../helpers/fixtures.js';
import { scrapeMetrics, type Scrape } from '../helpers/metrics.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * deploy/grafana/coffer.json (docs/metrics.md, "Grafana"): every metric a panel queries exists in
 * the /metrics output of a running Coffer (on PostgreSQL, so the pool gauges are there too), and
 * every label it groups or filters by is one Coffer puts on that metric.
 */

const DASHBOARD = JSON.parse(fs.readFileSync(new URL('../../deploy/grafana/coffer.json', import.meta.url), 'utf8'));
const TOKEN = randomBytes(24).toString('hex');
/** Labels Prometheus adds (job, instance) or that histograms carry (le): not Coffer's to emit. */
const SCRAPE_LABELS = new Set(['job', 'instance', 'le']);
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];

interface Target {
  panel: string;
  expr: string;
}

function targetsOf(panels: any[]): Target[] {
  return panels.flatMap((panel) => [...(panel.targets ?? []).map((target: any) => ({ panel: panel.title, expr: target.expr as string })), ...targetsOf(panel.panels ?? [])]);
}

/** Names in # TYPE lines, with a histogram's (and summary's) derived series. */
function declaredNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(match[1]!);
    if (match[2] === 'histogram' || match[2] === 'summary') for (const suffix of HISTOGRAM_SUFFIXES) names.add(`${match[1]}${suffix}`);
  }
  return names;
}

/** Label names an expression groups by (`by (…)`) or matches (`{name=…}`), the scrape's own left out. */
function labelsUsed(expr: string): string[] {
  const labels = new Set<string>();
  for (const match of expr.matchAll(/\bby \(([^)]*)\)/g)) for (const name of match[1]!.split(',')) labels.add(name.trim());
  for (const match of expr.matchAll(/\{([^}]*)\}/g)) for (const matcher of match[1]!.matchAll(/([a-zA-Z_]+)\s*[=!]~?/g)) labels.add(matcher[1]!);
  return [...labels].filter((name) => name !== '' && !SCRAPE_LABELS.has(name));
}

describe('the Grafana dashboard', () => {
  let server: TestServer;
  let scrape: Scrape;
  const targets = targetsOf(DASHBOARD.panels);

  beforeAll(async () => {
    server = await startServer({ store: 'postgres', env: { COFFER_METRICS_TOKEN: TOKEN } });
    // Traffic, so that the labelled series have samples: a gateway call, a 404, a breaker that opens.
    const gateway = await createTestGateway(server.client);
    const card = (await addPaymentMethod(server.client, { credit_card: { first_name: 'Joe', last_name: 'Jones', number: '4111111111111111', month: 3, year: 2035 } })).payment_method.token;
    const purchase = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: card } });
    expect(purchase.status).toBe(200);
    expect((await server.client.get('/v1/gateways/NoSuchGateway.json')).status).toBe(404);
    // Five gateway errors in a row open the breaker (API.md §8): the sixth call is refused unsent.
    const faulty = await createTestGateway(server.client);
    const statuses: number[] = [];
    for (let call = 0; call < 6; call += 1) {
      statuses.push((await server.client.sendJson('POST', `/v1/gateways/${faulty}/purchase.json`, { transaction: { amount: TEST_AMOUNTS.gatewayError, currency_code: 'USD', payment_method_token: card } })).status);
    }
    expect(statuses.at(-1)).toBe(503);
    scrape = await scrapeMetrics(`${server.client.baseUrl}/metrics`, { authorization: `Bearer ${TOKEN}` }, server.ca);
    expect(scrape.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('is a dashboard with the sections the operators need, every panel on the chosen Prometheus', () => {
    expect(DASHBOARD.uid).toBe('coffer-overview');
    const rows = DASHBOARD.panels.filter((panel: any) => panel.type === 'row').map((panel: any) => panel.title);
    expect(rows).toEqual(['Requests', 'Gateways', 'Rate limits', 'Store', 'Process']);
    const ids = DASHBOARD.panels.map((panel: any) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of DASHBOARD.panels.filter((candidate: any) => candidate.type !== 'row')) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
    }
    expect(targets.length).toBeGreaterThan(20);
  });

  it('queries only metrics a running Coffer exposes', () => {
    const declared = declaredNames(scrape.text);
    const queried = new Set(targets.flatMap((target) => [...target.expr.matchAll(/\bcoffer_[a-z0-9_]+/g)].map((match) => match[0])));
    for (const wanted of ['coffer_http_request_duration_seconds_bucket', 'coffer_gateway_calls_total', 'coffer_gateway_breaker_state', 'coffer_rate_limit_refusals_total', 'coffer_store_commit_duration_seconds_bucket', 'coffer_nodejs_eventloop_lag_p99_seconds']) {
      expect(queried).toContain(wanted);
    }
    const missing = [...queried].filter((name) => !declared.has(name));
    expect(missing, 'queried by the dashboard, absent from /metrics').toEqual([]);
  });

  it('groups and filters only by labels Coffer puts on each metric', () => {
    const samplesByName = new Map<string, Sample[]>();
    for (const sample of scrape.samples) samplesByName.set(sample.name, [...(samplesByName.get(sample.name) ?? []), sample]);
    const wrong: string[] = [];
    let checked = 0;
    for (const target of targets) {
      const metrics = [...target.expr.matchAll(/\bcoffer_[a-z0-9_]+/g)].map((match) => match[0]);
      for (const label of labelsUsed(target.expr)) {
        // The label must be on some sample of one of the expression's metrics.
        const known = metrics.some((metric) => (samplesByName.get(metric) ?? []).some((sample) => label in sample.labels));
        checked += 1;
        if (!known) wrong.push(`${target.panel}: ${label} in ${target.expr}`);
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(wrong).toEqual([]);
  });
});
