import { Validator } from '@seriousme/openapi-schema-validator';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRetainedCard, createTestGateway } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { errorTexts, everyLeaf, PROBE_FORMS, PROBE_PAN, probeFinding, textLeaves, toXml, withValueAt, type JsonSchema, type Leaf } from './echo-probes.js';

/*
 * docs/security.md promises that no error echoes a submitted value. The endpoints and their
 * fields come from the app itself, the OpenAPI document it serves (GET /v1/openapi.json, built
 * from the schemas the routes validate with), so a new endpoint or field is probed without
 * touching this file. Every operation is called in JSON and in XML with a card number in:
 * every field at once; each path parameter; each query parameter; each text field of the body,
 * one at a time, the others valid (so the request reaches the checks past validation: the
 * gateway lookups of a workflow, the retry chain, a duplicate key). No error answer may hold
 * the number in any spelling (plain, grouped, as digits among other text).
 */

const VISA = '4111111111111111';
const FORMATS = ['json', 'xml'] as const;
type Format = (typeof FORMATS)[number];

interface Parameter {
  name: string;
  in: 'path' | 'query';
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: { root: string; schema: JsonSchema };
  public: boolean;
}

interface Probe {
  operation: Operation;
  what: string;
  path: Record<string, string>;
  query: Record<string, string>;
  body?: Record<string, unknown>;
}

interface Fixtures {
  environment: string;
  gateway: string;
  paymentMethod: string;
  transaction: string;
  receiver: string;
  certificate: string;
  event: string;
  workflow: string;
  accessSecret: string;
}

function operationsOf(document: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(methods)) {
      const schema = operation.requestBody?.content['application/json'].schema;
      const root = schema?.required?.[0] as string | undefined;
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: (operation.parameters as Parameter[]).map(({ name, in: where }) => ({ name, in: where })),
        ...(root === undefined ? {} : { body: { root, schema: schema.properties[root] as JsonSchema } }),
        public: Array.isArray(operation.security) && operation.security.length === 0,
      });
    }
  }
  return operations;
}

/** Redactions and removals go last, so that the probes before them find their fixtures alive. */
function destructive(operation: Operation): boolean {
  return operation.method === 'DELETE' || operation.path.endsWith('/redact');
}

/** A real record for a path parameter, so the probes of the other fields get past the lookup. */
function fixtureFor(operation: Operation, parameter: string, fixtures: Fixtures): string {
  if (parameter === 'secretKey') return fixtures.accessSecret;
  const collection = operation.path.split('/')[2] as string;
  const byCollection: Record<string, string> = {
    payment_methods: fixtures.paymentMethod,
    gateways: fixtures.gateway,
    transactions: fixtures.transaction,
    receivers: fixtures.receiver,
    certificates: fixtures.certificate,
    events: fixtures.event,
    environments: fixtures.environment,
    workflows: fixtures.workflow,
  };
  const value = byCollection[collection];
  if (value === undefined) throw new Error(`no fixture for {${parameter}} of ${operation.path}: add one so its probes get past the lookup`);
  return value;
}

let workflowKeys = 0;

/** Valid values of a body's own fields, by root; kept only where the operation's schema has the field. */
function baselineOf(root: string, schema: JsonSchema, fixtures: Fixtures): Record<string, unknown> {
  workflowKeys += 1;
  const byRoot: Record<string, Record<string, unknown>> = {
    transaction: { amount: 100, currency_code: 'USD', payment_method_token: fixtures.paymentMethod, workflow_key: fixtures.workflow },
    payment_method: { credit_card: { first_name: 'Joe', last_name: 'Jones', number: VISA, month: 3, year: 2035 } },
    gateway: { gateway_type: 'test' },
    receiver: { receiver_type: 'test', hostnames: 'https://receiver.example' },
    workflow: { key: `probe-${workflowKeys}`, name: 'Probe', default_target: { gateway_token: fixtures.gateway } },
    certificate: { cn: 'probe.example' },
    environment: { name: 'Probe' },
    access_secret: { name: 'probe', role: 'read' },
    delivery: { payment_method_token: fixtures.paymentMethod },
    export: { payment_method_tokens: [fixtures.paymentMethod] },
  };
  const known = schema.properties ?? {};
  return Object.fromEntries(Object.entries(byRoot[root] ?? {}).filter(([field]) => field in known));
}

/** A URL with the probe in its host, path and query: what gets a URL field past its format check. */
const PROBE_URL = `https://${PROBE_PAN}.example/${PROBE_PAN}?reference=${PROBE_PAN}`;

function leafValues(leaf: Leaf): unknown[] {
  if (leaf.freeForm) return [PROBE_PAN, { probe: PROBE_PAN }];
  return /url|hostnames/.test(String(leaf.path.at(-1))) ? [PROBE_PAN, PROBE_URL] : [PROBE_PAN];
}

/** Every probe of one operation: all fields at once, then each parameter and body leaf alone. */
function probesOf(operation: Operation, fixtures: Fixtures): Probe[] {
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
  // The public tokenization route names its environment in the query (docs/card-capture.md).
  const queryParameters = [...operation.parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name), ...(operation.public && operation.body !== undefined ? ['environment_key'] : [])];
  const validPath = Object.fromEntries(pathParameters.map((name) => [name, fixtureFor(operation, name, fixtures)]));
  const validQuery: Record<string, string> = queryParameters.includes('environment_key') ? { environment_key: fixtures.environment } : {};
  const baseline = () => (operation.body === undefined ? undefined : baselineOf(operation.body.root, operation.body.schema, fixtures));
  const probes: Probe[] = [
    {
      operation,
      what: 'every field',
      path: Object.fromEntries(pathParameters.map((name) => [name, PROBE_FORMS[2] as string])),
      query: Object.fromEntries(queryParameters.map((name) => [name, PROBE_FORMS[1] as string])),
      ...(operation.body === undefined ? {} : { body: everyLeaf(operation.body.schema, PROBE_PAN) }),
    },
  ];
  const one = (what: string, change: Partial<Probe>): Probe => {
    const body = change.body ?? baseline();
    return { operation, what, path: { ...validPath, ...change.path }, query: { ...validQuery, ...change.query }, ...(body === undefined ? {} : { body }) };
  };
  for (const name of pathParameters) probes.push(one(`path {${name}}`, { path: { [name]: PROBE_PAN } }));
  for (const name of queryParameters) probes.push(one(`query ${name}`, { query: { [name]: PROBE_PAN } }));
  for (const leaf of operation.body === undefined ? [] : textLeaves(operation.body.schema)) {
    for (const value of leafValues(leaf)) {
      const shape = value === PROBE_URL ? ' (URL)' : typeof value === 'string' ? '' : ' (object)';
      probes.push(one(`body ${leaf.path.join('.')}${shape}`, { body: withValueAt(baseline() ?? {}, leaf.path, value) }));
    }
  }
  return probes;
}

describe('no error answer echoes a submitted card number (every operation of the OpenAPI document)', () => {
  let server: TestServer;
  let fixtures: Fixtures;
  let agent: Agent;
  let operations: Operation[];

  async function send(probe: Probe, format: Format): Promise<{ status: number; text: string }> {
    let path = probe.operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(probe.path[name] as string));
    if (path.startsWith('/v1/') && !path.endsWith('.json')) path += `.${format}`;
    const query = new URLSearchParams(probe.query).toString();
    const headers: Record<string, string> = {};
    if (!probe.operation.public) headers.authorization = `Basic ${Buffer.from(`${server.init.environment_key}:${server.init.access_secret}`).toString('base64')}`;
    let body: string | undefined;
    if (probe.body !== undefined && probe.operation.body !== undefined) {
      const root = probe.operation.body.root;
      headers['content-type'] = format === 'json' ? 'application/json' : 'application/xml';
      body = format === 'json' ? JSON.stringify({ [root]: probe.body }) : toXml(root, probe.body);
    }
    const response = await request(`${server.client.baseUrl}${path}${query === '' ? '' : `?${query}`}`, { method: probe.operation.method as 'GET', headers, body, dispatcher: agent });
    return { status: response.statusCode, text: await response.body.text() };
  }

  beforeAll(async () => {
    server = await startServer();
    agent = new Agent({ connect: { ca: server.ca as string } });
    const api = server.client;
    const gateway = await createTestGateway(api);
    const paymentMethod = await createRetainedCard(api, VISA);
    const authorized = await api.sendJson('POST', `/v1/gateways/${gateway}/authorize.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: paymentMethod } });
    const receiver = await api.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: 'https://receiver.example' } });
    const certificate = await api.sendJson('POST', '/v1/certificates/generate.json', { certificate: { cn: 'probe.example' } });
    const workflow = await api.sendJson('POST', '/v1/workflows.json', { workflow: { key: 'probe', name: 'Probe', default_target: { gateway_token: gateway } } });
    const secret = await api.sendJson('POST', `/v1/environments/${server.init.environment_key}/access_secrets.json`, { access_secret: { name: 'probe', role: 'read' } });
    const events = await api.get('/v1/events.json');
    for (const res of [authorized, receiver, certificate, workflow, secret, events]) expect(res.status, res.text).toBeLessThan(300);
    fixtures = {
      environment: server.init.environment_key,
      gateway,
      paymentMethod,
      transaction: authorized.json().transaction.token,
      receiver: receiver.json().receiver.token,
      certificate: certificate.json().certificate.token,
      event: events.json().events[0].id,
      workflow: 'probe',
      accessSecret: secret.json().access_secret.key,
    };
    const document = await api.get('/v1/openapi.json');
    // The document names its schemas once (components, $ref): read it with every reference resolved.
    const validator = new Validator();
    expect((await validator.validate(document.json())).valid).toBe(true);
    operations = operationsOf(validator.resolveRefs());
  });

  afterAll(async () => {
    await agent?.close();
    await server?.close();
  });

  /** The masked finding of an answer to a probe, or null when it holds no card number. */
  const findingOf = (res: { status: number; text: string }, what: string): string | null => {
    const finding = probeFinding(errorTexts(res.status, res.text));
    return finding === null ? null : `${what}: ${res.status} ${finding}`;
  };

  it('finds no card number in any error answer, JSON or XML', { timeout: 300_000 }, async () => {
    const ordered = [...operations.filter((operation) => !destructive(operation)), ...operations.filter(destructive)];
    const findings: string[] = [];
    const probed = new Set<string>();
    let errorAnswers = 0;
    for (const operation of ordered) {
      for (const probe of probesOf(operation, fixtures)) {
        for (const format of FORMATS) {
          const res = await send(probe, format);
          probed.add(`${operation.method} ${operation.path}`);
          if (res.status >= 400) errorAnswers += 1;
          const finding = findingOf(res, `${operation.method} ${operation.path} (${probe.what}, ${format})`);
          if (finding !== null) findings.push(finding);
        }
      }
    }
    expect(findings).toEqual([]);
    // Every operation the app documents was probed, and the probes did reach error answers.
    expect(probed.size).toBe(operations.length);
    expect(errorAnswers).toBeGreaterThan(operations.length);
  });

  it('nor with a card number in the credentials of every gateway type (GET /v1/gateways_options)', { timeout: 120_000 }, async () => {
    const options = (await server.client.get('/v1/gateways_options.json')).json().gateways as Array<{ gateway_type: string; auth_modes: Array<{ credentials: Array<{ name: string }> }> }>;
    const create = operations.find((operation) => operation.method === 'POST' && operation.path === '/v1/gateways') as Operation;
    const findings: string[] = [];
    let probes = 0;
    for (const option of options) {
      for (const mode of option.auth_modes.filter((candidate) => candidate.credentials.length > 0)) {
        const credentials = Object.fromEntries(mode.credentials.map((credential) => [credential.name, PROBE_PAN]));
        const probe: Probe = { operation: create, what: `credentials of ${option.gateway_type}`, path: {}, query: {}, body: { gateway_type: option.gateway_type, sandbox: true, ...credentials } };
        for (const format of FORMATS) {
          probes += 1;
          const finding = findingOf(await send(probe, format), `${probe.what} (${format})`);
          if (finding !== null) findings.push(finding);
        }
      }
    }
    expect(findings).toEqual([]);
    expect(probes).toBeGreaterThan(10);
  });

  it('nor with a card number in the path of an unknown route or in the headers a client sends', async () => {
    const auth = `Basic ${Buffer.from(`${server.init.environment_key}:${server.init.access_secret}`).toString('base64')}`;
    const findings: string[] = [];
    const cases: Array<[string, string, Record<string, string>, string | undefined]> = [
      ['GET', `/v1/${PROBE_PAN}.json`, {}, undefined],
      ['GET', `/v1/gateways/${PROBE_FORMS[1]}/nothing.xml`, {}, undefined],
      ['GET', `/${PROBE_PAN}`, {}, undefined],
      ['POST', '/v1/gateways.json', { 'content-type': `application/x-${PROBE_PAN}` }, '{}'],
      ['POST', '/v1/gateways.xml', { 'content-type': `text/xml; charset=${PROBE_PAN}` }, '<gateway/>'],
      ['GET', '/v1/gateways.json', { accept: `application/x-${PROBE_PAN}` }, undefined],
      ['GET', '/v1/gateways.json', { 'x-request-id': PROBE_PAN }, undefined],
      ['POST', '/v1/gateways.json', { 'idempotency-key': PROBE_PAN, 'content-type': 'application/json' }, '{"gateway":{"gateway_type":"nope"}}'],
      ['GET', '/v1/gateways.json', { authorization: `Basic ${Buffer.from(`${PROBE_PAN}:${PROBE_PAN}`).toString('base64')}` }, undefined],
    ];
    for (const [method, path, headers, body] of cases) {
      const response = await request(`${server.client.baseUrl}${path}`, { method: method as 'GET', headers: { authorization: auth, ...headers }, body, dispatcher: agent });
      const res = { status: response.statusCode, text: await response.body.text() };
      const finding = findingOf(res, `${method} ${path.replace(/\d/g, '#')} ${Object.keys(headers).join(', ')}`) ?? (probeFinding([JSON.stringify(response.headers)]) === null ? null : `${method} headers of the answer`);
      if (finding !== null) findings.push(finding);
    }
    expect(findings).toEqual([]);
  });

  it('nor in the errors the transparent redirect sends back (form fields of POST /v1/payment_methods)', { timeout: 120_000 }, async () => {
    const create = operations.find((operation) => operation.method === 'POST' && operation.path === '/v1/payment_methods') as Operation;
    // A form nests one level of brackets (docs/card-capture.md): `credit_card[number]`, `metadata[probe]`.
    const formName = (path: readonly (string | number)[]) => (path.length === 1 ? String(path[0]) : `${String(path[0])}[${String(path[1])}]`);
    const baseline: Record<string, string> = {
      environment_key: server.init.environment_key,
      redirect_url: 'https://shop.example/return',
      'credit_card[first_name]': 'Joe',
      'credit_card[last_name]': 'Jones',
      'credit_card[number]': VISA,
      'credit_card[month]': '3',
      'credit_card[year]': '2035',
    };
    const names = ['environment_key', 'redirect_url', ...textLeaves(create.body?.schema as JsonSchema).map((leaf) => formName(leaf.freeForm ? [...leaf.path, 'probe'] : leaf.path))];
    const findings: string[] = [];
    let refusals = 0;
    for (const name of [...new Set(names)]) {
      for (const value of /url/.test(name) ? [PROBE_PAN, PROBE_URL] : [PROBE_PAN]) {
        const body = new URLSearchParams({ ...baseline, [name]: value }).toString();
        const response = await request(`${server.client.baseUrl}/v1/payment_methods`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body, dispatcher: agent });
        const text = await response.body.text();
        const location = typeof response.headers.location === 'string' ? new URL(response.headers.location) : null;
        // The browser goes back to redirect_url as the merchant gave it; the errors added to it are Coffer's words.
        const errors = location === null ? [] : ['error', 'error_message', 'error_attribute'].flatMap((key) => location.searchParams.getAll(key));
        if (errors.length > 0 || response.statusCode >= 400) refusals += 1;
        const finding = probeFinding([...errorTexts(response.statusCode, text), ...errors]);
        if (finding !== null) findings.push(`form field ${name}: ${response.statusCode} ${finding}`);
      }
    }
    expect(findings).toEqual([]);
    // Refused both ways: errors sent back to redirect_url, and errors answered (no safe redirect_url).
    expect(refusals).toBeGreaterThan(5);
  });

  it('nor when a secret is limited to an environment of another organization (the CLI path)', async () => {
    const refused = server.core.tenancy.createAccessSecret(server.init.organization_token, { name: 'cli', role: 'read', environmentKeys: [PROBE_PAN] });
    await expect(refused).rejects.toMatchObject({ entries: [{ key: 'errors.invalid', attribute: 'environment_key', message: 'One of the environments named for this secret is not in this organization' }] });
  });
});
