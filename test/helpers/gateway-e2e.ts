import { expect } from 'vitest';
import type { ApiClient, ApiResponse } from './client.js';
import { startServer, type TestServer } from './server.js';
import type { FakeGatewayServer } from '../fakes/fake-gateway-server.js';

/**
 * What every gateway's e2e test needs around its fake: Coffer booted with the gateway type pointed
 * at the fake (COFFER_GATEWAY_ENDPOINTS, loopback allowed through the egress guard), a production
 * environment, a gateway created with credentials, cards vaulted, transactions sent in JSON or XML.
 */

export const FORMATS = ['json', 'xml'] as const;
export type Format = (typeof FORMATS)[number];

export interface Result {
  status: number;
  /** The `transaction` of the answer, XML decoded to what the JSON would hold. */
  t: any;
  res: ApiResponse;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `{ a: 1, b: { c: 'x' } }` as `<root><a>1</a><b><c>x</c></b></root>`, untyped as clients send it. */
export function toXml(root: string, fields: Record<string, unknown>): string {
  const inner = Object.entries(fields)
    .map(([name, value]) => (value !== null && typeof value === 'object' ? toXml(name, value as Record<string, unknown>) : `<${name}>${escapeXml(String(value))}</${name}>`))
    .join('');
  return `<${root}>${inner}</${root}>`;
}

/** A Rails-typed XML element as parsed by the test client, turned into the JSON value it stands for. */
export function plain(node: any): any {
  if (node === null || typeof node !== 'object') return node;
  if (node['@_nil'] === 'true') return null;
  if ('#text' in node || '@_type' in node) {
    const text = node['#text'] ?? '';
    if (node['@_type'] === 'boolean') return text === 'true';
    if (node['@_type'] === 'integer') return Number(text);
    return text;
  }
  const out: Record<string, any> = {};
  for (const [name, value] of Object.entries(node)) if (!name.startsWith('@_')) out[name] = plain(value);
  return out;
}

/** POSTs a transaction in `format`; `fields` null sends an empty body. */
export async function transact(client: ApiClient, format: Format, path: string, fields: Record<string, unknown> | null): Promise<Result> {
  const url = `/v1/${path}.${format}`;
  const res =
    fields === null
      ? await client.request('POST', url)
      : format === 'json'
        ? await client.sendJson('POST', url, { transaction: fields })
        : await client.sendXml('POST', url, toXml('transaction', fields));
  const t = res.status >= 500 ? null : format === 'json' ? res.json().transaction : plain(res.xml().transaction);
  return { status: res.status, t, res };
}

/** Error keys of an errors body in either format. */
export function errorKeys(format: Format, res: ApiResponse): string[] {
  if (format === 'json') return res.json().errors.map((error: { key: string }) => error.key);
  const errors = res.xml().errors.error;
  return (Array.isArray(errors) ? errors : [errors]).map((error: any) => error['@_key']);
}

export interface GatewayE2e {
  server: TestServer;
  /** Client of the production environment. */
  live: ApiClient;
  /** Creates a gateway of the type with these credentials (flat fields); returns its token. */
  createGateway(fields: Record<string, unknown>): Promise<string>;
  /** Vaults a card in the production environment; returns its token. */
  vault(number: string, card?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/**
 * Boots Coffer for `gatewayType` against `fakeUrl` on the given store, with a 2 s call timeout for
 * the type (so timeout tests are quick) and `env` added.
 */
export async function startGatewayE2e(gatewayType: string, fakeUrl: string, store: 'sqlite' | 'postgres', env: Record<string, string> = {}): Promise<GatewayE2e> {
  const server = await startServer({
    store,
    env: {
      COFFER_GATEWAY_ENDPOINTS: JSON.stringify({ [gatewayType]: fakeUrl }),
      COFFER_EGRESS_ALLOW: '127.0.0.1',
      COFFER_GATEWAY_TIMEOUTS: JSON.stringify({ [gatewayType]: 2 }),
      ...env,
    },
  });
  const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
  const live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
  return {
    server,
    live,
    async createGateway(fields) {
      const res = await live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: gatewayType, ...fields } });
      expect(res.status, res.text).toBe(201);
      return res.json().gateway.token as string;
    },
    async vault(number, card = {}) {
      const res = await live.sendJson('POST', '/v1/payment_methods.json', {
        payment_method: {
          email: 'ada@example.com',
          credit_card: { first_name: 'Ada', last_name: 'Lovelace', number, verification_value: '737', month: 3, year: 2030, address1: '12 St James Sq', city: 'London', zip: 'SW1Y 4JH', country: 'GB', ...card },
        },
      });
      expect(res.status, res.text).toBe(201);
      return res.json().transaction.payment_method.token as string;
    },
    close: () => server.close(),
  };
}

/**
 * The fault contract every real gateway shares (docs/gateways/README.md, "The rules a module lives by"), through a purchase:
 * no answer in time is 408 `gateway_processing_result_unknown`; a 5xx or an answer that is not the
 * gateway's format is a failed transaction with `processing_error`. Leaves the fake answering normally.
 */
export async function expectFaultOutcomes(fake: Pick<FakeGatewayServer, 'setMode'>, purchase: (format: Format) => Promise<Result>): Promise<void> {
  fake.setMode('hang');
  const hung = await purchase('json');
  expect(hung.status).toBe(408);
  expect(hung.t).toMatchObject({ state: 'gateway_processing_result_unknown', response: { result_unknown: true } });
  fake.setMode('error500');
  const broken = await purchase('xml');
  expect(broken.status).toBe(422);
  expect(broken.t).toMatchObject({ state: 'gateway_processing_failed', response: { error_code: 'processing_error', result_unknown: false } });
  fake.setMode('garbage');
  expect((await purchase('json')).t).toMatchObject({ state: 'gateway_processing_failed' });
  fake.setMode('normal');
}
