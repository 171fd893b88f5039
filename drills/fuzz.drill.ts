import fc from 'fast-check';
import { findCardData } from '../test/helpers/leak-scan.js';
import type { DrillReport } from './drill-report.js';
import { bodyArb, contentTypeArb, queryArb, seedBodies, type FuzzBody } from './fuzz-inputs.js';
import { harnessPaths, paramKinds, startFuzzHarness, type Fixtures, type FuzzHarness } from './fuzz-harness.js';
import type { Endpoint } from './route-table.js';

/** Longest a fuzzed request may take before it counts as hung. */
const HUNG_MS = 10_000;

interface FuzzCase {
  suffix: string;
  params: string[];
  query: string;
  body: FuzzBody;
  contentType: string | undefined;
  auth: 'valid' | 'none' | 'wrong' | 'garbage';
  accept: string | undefined;
  idempotencyKey: string | null;
  requestId: string | null;
}

/** What fuzzing one endpoint found. */
export interface EndpointOutcome {
  endpoint: Endpoint;
  cases: number;
  /** Responses by status. */
  statuses: Record<string, number>;
  /** The first failure (shrunk by fast-check), or null. */
  failure: string | null;
}

const ODD_PARAMS = ['4111111111111111', '..', '%00', '%zz', 'ÿ', 'a'.repeat(300), '%2F', '%20', 'null', '0'];

function paramArb(kind: string, fixtures: Fixtures): fc.Arbitrary<string> {
  const own = fixtures.byKind[kind] ?? [];
  const any = Object.values(fixtures.byKind).flat();
  return fc.oneof(
    { weight: own.length > 0 ? 6 : 0, arbitrary: own.length > 0 ? fc.constantFrom(...own) : fc.constant('x') },
    { weight: 1, arbitrary: fc.constantFrom(...any) },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9]{1,30}$/) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_PARAMS) },
  );
}

function caseArb(endpoint: Endpoint, fixtures: Fixtures): fc.Arbitrary<FuzzCase> {
  const kinds = paramKinds(endpoint.url);
  const bodyAndType = bodyArb(seedBodies(fixtures.paymentMethod), fixtures.paymentMethod).chain((body) => contentTypeArb(body.format).map((contentType) => ({ body, contentType })));
  return fc
    .record({
      suffix: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('', '.json', '.xml') }, { weight: 1, arbitrary: fc.constantFrom('.html', '.JSON', '.json.xml') }),
      params: kinds.length === 0 ? fc.constant<string[]>([]) : fc.tuple(...kinds.map((kind) => paramArb(kind, fixtures))),
      query: queryArb,
      bodyAndType,
      auth: fc.oneof({ weight: 8, arbitrary: fc.constant<FuzzCase['auth']>('valid') }, { weight: 1, arbitrary: fc.constantFrom<FuzzCase['auth']>('none', 'wrong', 'garbage') }),
      accept: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(undefined, '*/*') },
        { weight: 1, arbitrary: fc.constantFrom('application/json', 'application/xml', 'text/html', 'application/json;q=0', '', 'text/*;q=0.5, */*;q=0.1') },
      ),
      idempotencyKey: fc.option(fc.string({ maxLength: 40 }), { freq: 8 }),
      requestId: fc.option(fc.oneof(fc.string({ maxLength: 40 }), fc.constant('4111111111111111')), { freq: 8 }),
    })
    .map(({ bodyAndType, ...rest }) => ({ ...rest, body: bodyAndType.body, contentType: bodyAndType.contentType }));
}

/** The URL of a case: the route with its params filled in, the suffix, the query. */
export function caseUrl(endpoint: Endpoint, fuzzCase: Pick<FuzzCase, 'params' | 'suffix' | 'query'>): string {
  let index = 0;
  // Odd params are sent as they are (percent signs included): routers must cope with that too.
  const path = endpoint.url.replace(/:[A-Za-z]+/g, () => {
    const value = fuzzCase.params[index++] ?? '';
    return ODD_PARAMS.includes(value) ? value : encodeURIComponent(value);
  });
  return `${path}${fuzzCase.suffix}${fuzzCase.query}`;
}

function headersOf(harness: FuzzHarness, fuzzCase: FuzzCase): Record<string, string> {
  const headers: Record<string, string> = {};
  if (fuzzCase.auth === 'valid') headers.authorization = harness.authorization;
  if (fuzzCase.auth === 'wrong') headers.authorization = `Basic ${Buffer.from(`${harness.init.environment_key}:wrong`).toString('base64')}`;
  if (fuzzCase.auth === 'garbage') headers.authorization = 'Basic !!!not base64';
  if (fuzzCase.contentType !== undefined) headers['content-type'] = fuzzCase.contentType;
  if (fuzzCase.accept !== undefined) headers.accept = fuzzCase.accept;
  if (fuzzCase.idempotencyKey !== null) headers['idempotency-key'] = fuzzCase.idempotencyKey;
  if (fuzzCase.requestId !== null) headers['x-request-id'] = fuzzCase.requestId;
  return headers;
}

/** The browser pages (the portal, the card form's frame): their errors are HTML pages by design. */
export function isBrowserPage(url: string): boolean {
  return /^\/(portal|iframe)(\/|$)/.test(url);
}

/** Why a response is wrong, or null when it is fine. `browserPage`: an HTML error page is the right answer. */
export function judge(method: string, status: number, contentType: string, body: string, browserPage = false): string | null {
  if (status >= 500) return `status ${status}`;
  if (status < 400 || method === 'HEAD') return null;
  if (findCardData(body).length > 0) return `status ${status}: card data in the error body`;
  if (browserPage && contentType.includes('text/html')) return null;
  if (contentType.includes('json')) {
    try {
      const first = (JSON.parse(body) as { errors?: Array<{ key?: unknown; message?: unknown }> }).errors?.[0];
      if (typeof first?.key === 'string' && typeof first.message === 'string') return null;
    } catch {
      return `status ${status}: error body is not JSON`;
    }
    return `status ${status}: JSON error without errors[0].key and message`;
  }
  if (contentType.includes('xml')) return /<errors>\s*<error [^>]*key="[^"]+"/.test(body) ? null : `status ${status}: XML error without <errors><error key>`;
  return `status ${status}: error answered as ${contentType || 'no content type'}`;
}

async function send(harness: FuzzHarness, endpoint: Endpoint, fuzzCase: FuzzCase): Promise<{ status: number; problem: string | null }> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), HUNG_MS)));
  try {
    const reply = await Promise.race([
      harness.app.inject({
        method: endpoint.method as 'GET',
        url: caseUrl(endpoint, fuzzCase),
        headers: headersOf(harness, fuzzCase),
        ...(fuzzCase.body.format === 'none' ? {} : { payload: fuzzCase.body.text }),
      }),
      hung,
    ]);
    if (reply === null) return { status: 0, problem: `no answer within ${HUNG_MS / 1000} s` };
    return { status: reply.statusCode, problem: judge(endpoint.method, reply.statusCode, String(reply.headers['content-type'] ?? ''), reply.body, isBrowserPage(endpoint.url)) };
  } finally {
    clearTimeout(timer);
  }
}

/** A failing case, fit to print: card numbers and secrets never appear in it. */
function describeCase(endpoint: Endpoint, fuzzCase: FuzzCase, problem: string): string {
  const body = fuzzCase.body.text.length > 160 ? `${fuzzCase.body.text.slice(0, 160)}… (${fuzzCase.body.text.length} chars)` : fuzzCase.body.text;
  const masked = (text: string) => findCardData(text).reduce((out, found) => out.split(found).join('[card]'), text);
  const url = caseUrl(endpoint, fuzzCase);
  return `${endpoint.method} ${masked(url.length > 120 ? `${url.slice(0, 120)}…` : url)}: ${problem}; auth ${fuzzCase.auth}, content-type ${fuzzCase.contentType ?? '(none)'}, body ${JSON.stringify(masked(body))}`;
}

/** Fuzzes every endpoint of the harness's app with `runs` cases each. */
export async function fuzzEndpoints(harness: FuzzHarness, options: { runs: number; seed: number; onEndpoint?: (outcome: EndpointOutcome) => void }): Promise<EndpointOutcome[]> {
  const outcomes: EndpointOutcome[] = [];
  for (const endpoint of harness.endpoints) {
    const fixtures = await harness.fixtures();
    const outcome: EndpointOutcome = { endpoint, cases: 0, statuses: {}, failure: null };
    const details = await fc.check(
      fc.asyncProperty(caseArb(endpoint, fixtures), async (fuzzCase) => {
        const { status, problem } = await send(harness, endpoint, fuzzCase);
        outcome.cases += 1;
        outcome.statuses[String(status)] = (outcome.statuses[String(status)] ?? 0) + 1;
        return problem === null;
      }),
      { numRuns: options.runs, seed: options.seed, endOnFailure: true },
    );
    if (details.failed && details.counterexample !== null) {
      const [fuzzCase] = details.counterexample;
      const { problem } = await send(harness, endpoint, fuzzCase);
      outcome.failure = describeCase(endpoint, fuzzCase, problem ?? 'failed once, passed when repeated');
    } else if (details.failed) {
      outcome.failure = `${endpoint.method} ${endpoint.url}: ${String(details.errorInstance ?? 'property failed')}`;
    }
    options.onEndpoint?.(outcome);
    outcomes.push(outcome);
  }
  return outcomes;
}

/**
 * One line per kind of failure (the problem with its status), with how many endpoints showed it
 * and the first example: one missing error handler shows up on every route, and is one finding.
 */
export function groupFailures(outcomes: readonly EndpointOutcome[]): string[] {
  const groups = new Map<string, { endpoints: number; example: string }>();
  for (const outcome of outcomes) {
    if (outcome.failure === null) continue;
    const problem = /: (status \d+[^;]*|no answer within [^;]*|failed once[^;]*);/.exec(outcome.failure)?.[1] ?? outcome.failure;
    const group = groups.get(problem);
    if (group === undefined) groups.set(problem, { endpoints: 1, example: outcome.failure });
    else group.endpoints += 1;
  }
  return [...groups.entries()].map(([problem, group]) => `${problem} on ${group.endpoints} endpoint(s), e.g. ${group.example}`);
}

/** The fuzz drill: every endpoint of the running app, random and mutated JSON and XML bodies. */
export async function fuzzDrill(options: { root: string; runs: number; seed: number }): Promise<DrillReport> {
  const harness = await startFuzzHarness(harnessPaths(options.root));
  try {
    const started = Date.now();
    const outcomes = await fuzzEndpoints(harness, { runs: options.runs, seed: options.seed });
    const statuses: Record<string, number> = {};
    for (const outcome of outcomes) for (const [status, count] of Object.entries(outcome.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
    const lost = groupFailures(outcomes);
    return {
      name: 'fuzz: random and mutated JSON and XML bodies against every endpoint',
      ok: lost.length === 0,
      tried: [
        `${outcomes.length} endpoints (method × route, read from the app's route table), ${options.runs} cases each, fast-check seed ${options.seed}`,
        'bodies: valid, mutated, random JSON and XML, mangled XML, entity attacks, deep nesting, binary; odd params, queries, headers and credentials',
      ],
      lost,
      figures: {
        endpoints: outcomes.length,
        cases: outcomes.reduce((sum, outcome) => sum + outcome.cases, 0),
        statuses: JSON.stringify(statuses),
        seconds: ((Date.now() - started) / 1000).toFixed(1),
      },
      logFiles: [harness.logFile],
    };
  } finally {
    await harness.close();
  }
}
