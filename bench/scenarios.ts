import { randomBytes } from 'node:crypto';
import { basicAuth } from './api-client.js';
import { cardFields, purchaseJson, purchaseXml, SANDBOX_PAN, type BenchTenant } from './bench-tenant.js';
import type { LoadJob } from './load-job.js';

/** How long and how wide each load run is. */
export interface LoadShape {
  connections: number;
  durationSeconds: number;
}

/** One measured scenario: its name and the load job that drives it. */
export interface Scenario {
  /** Stable id, e.g. `purchase_json` (names in reports add the store). */
  id: ScenarioId;
  title: string;
  job: LoadJob;
}

export type ScenarioId = 'tokenize' | 'purchase_json' | 'purchase_xml' | 'show_transaction' | 'list_transactions' | 'list_transactions_gzip' | 'purchase_gateway_50ms';

/** The scenarios (docs/benchmarks.md, "Scenarios"), in the order they run. The gateway scenario needs the live tenant. */
export const SCENARIO_TITLES: Record<ScenarioId, string> = {
  tokenize: 'tokenize (POST payment_methods.json)',
  purchase_json: 'purchase, retained token, JSON',
  purchase_xml: 'purchase, retained token, XML',
  show_transaction: 'show a transaction',
  list_transactions: 'list transactions (first page of 20)',
  list_transactions_gzip: 'list transactions, gzip (Accept-Encoding: gzip)',
  purchase_gateway_50ms: 'purchase through a 50 ms gateway',
};

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/** The baseline parses the bodies a JSON purchase sends (with made-up tokens of the same length). */
export function baselineJob(url: string, shape: LoadShape): LoadJob {
  const tokens = Array.from({ length: 100 }, () => randomBytes(20).toString('base64url').slice(0, 26));
  return { url, method: 'POST', paths: ['/baseline'], bodies: tokens.map((token) => purchaseJson(token)), headers: JSON_HEADERS, ...shape };
}

/** The fake gateway on its own: the 50 ms Coffer's overhead is measured against. */
export function fakeGatewayJob(url: string, shape: LoadShape): LoadJob {
  return {
    url,
    method: 'POST',
    paths: ['/v1/payment_intents'],
    bodies: ['amount=100&currency=usd&capture_method=automatic&confirm=true'],
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer sk_live_benchfake' },
    ...shape,
  };
}

/** The scenarios against one Coffer, in run order. */
export function cofferScenarios(url: string, tenant: BenchTenant, shape: LoadShape, only?: readonly ScenarioId[]): Scenario[] {
  const auth = basicAuth(tenant.sandbox);
  const gateway = tenant.testGateway;
  const all: Scenario[] = [
    {
      id: 'tokenize',
      title: SCENARIO_TITLES.tokenize,
      job: {
        url,
        method: 'POST',
        paths: ['/v1/payment_methods.json'],
        bodies: [JSON.stringify({ payment_method: { credit_card: cardFields(SANDBOX_PAN), email: 'joe@example.com' } })],
        headers: { ...JSON_HEADERS, authorization: auth },
        ...shape,
      },
    },
    {
      id: 'purchase_json',
      title: SCENARIO_TITLES.purchase_json,
      job: { url, method: 'POST', paths: [`/v1/gateways/${gateway}/purchase.json`], bodies: tenant.retainedCards.map((token) => purchaseJson(token)), headers: { ...JSON_HEADERS, authorization: auth }, ...shape },
    },
    {
      id: 'purchase_xml',
      title: SCENARIO_TITLES.purchase_xml,
      job: {
        url,
        method: 'POST',
        paths: [`/v1/gateways/${gateway}/purchase.xml`],
        bodies: tenant.retainedCards.map((token) => purchaseXml(token)),
        headers: { 'content-type': 'application/xml', accept: 'application/xml', authorization: auth },
        ...shape,
      },
    },
    {
      id: 'show_transaction',
      title: SCENARIO_TITLES.show_transaction,
      job: { url, method: 'GET', paths: tenant.transactions.map((token) => `/v1/transactions/${token}.json`), headers: { accept: 'application/json', authorization: auth }, ...shape },
    },
    {
      id: 'list_transactions',
      title: SCENARIO_TITLES.list_transactions,
      job: { url, method: 'GET', paths: ['/v1/transactions.json'], headers: { accept: 'application/json', authorization: auth }, ...shape },
    },
    {
      // The price of response compression, against list_transactions without it.
      id: 'list_transactions_gzip',
      title: SCENARIO_TITLES.list_transactions_gzip,
      job: { url, method: 'GET', paths: ['/v1/transactions.json'], headers: { accept: 'application/json', 'accept-encoding': 'gzip', authorization: auth }, ...shape },
    },
  ];
  if (tenant.live !== null) {
    all.push({
      id: 'purchase_gateway_50ms',
      title: SCENARIO_TITLES.purchase_gateway_50ms,
      job: {
        url,
        method: 'POST',
        paths: [`/v1/gateways/${tenant.live.gateway}/purchase.json`],
        bodies: tenant.live.retainedCards.map((token) => purchaseJson(token)),
        headers: { ...JSON_HEADERS, authorization: basicAuth(tenant.live.credentials) },
        ...shape,
      },
    });
  }
  return only === undefined ? all : all.filter((scenario) => only.includes(scenario.id));
}
