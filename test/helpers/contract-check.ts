import { createRequire } from 'node:module';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/http/openapi/document.js';

/*
 * The contract check of the e2e client (client.ts): every JSON answer of an API route must match the
 * response schema the OpenAPI document gives for its operation and status (docs/openapi.md). An
 * undocumented status of a documented operation is a mismatch too. Routes the document does not
 * list (the portal, the card form's frames, unknown paths) are not checked.
 */

// Ajv 8 (JSON Schema 2020-12, which OpenAPI 3.1 uses). The top-level `ajv` is eslint's Ajv 6, so
// this loads the Ajv 8 that @seriousme/openapi-schema-validator (the document's validator) uses.
const requireFromValidator = createRequire(createRequire(import.meta.url).resolve('@seriousme/openapi-schema-validator/package.json'));
const Ajv2020 = requireFromValidator('ajv/dist/2020.js').default as new (options: Record<string, unknown>) => Ajv;

/** The part of Ajv 8's API used here (its types are not the top-level package's). */
interface Ajv {
  addSchema(schema: object, key: string): unknown;
  compile(schema: object): ValidateFunction;
}
interface ValidateFunction {
  (data: unknown): boolean;
  errors?: Array<{ instancePath: string; message?: string; params: unknown }> | null;
}

type Json = Record<string, any>;

export class ContractMismatchError extends Error {
  override name = 'ContractMismatchError';
}

interface Route {
  path: string;
  pattern: RegExp;
  params: number;
}

interface Contract {
  document: Json;
  routes: Route[];
  ajv: Ajv;
  validators: Map<string, ValidateFunction>;
}

const DOCUMENT_ID = 'coffer-openapi';
let contract: Contract | null = null;

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function load(): Contract {
  if (contract !== null) return contract;
  const document = buildOpenApiDocument('test') as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, inlineRefs: false });
  (addFormats as unknown as { default: (ajv: Ajv) => void }).default(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  const routes = Object.keys(document.paths as Json).map((path) => {
    const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[A-Za-z]+\}/g, '[^/]+');
    return { path, pattern: new RegExp(`^${source}$`), params: (path.match(/\{/g) ?? []).length };
  });
  // A literal segment wins over a parameter: /v1/payment_methods/events before /v1/payment_methods/{token}.
  routes.sort((a, b) => a.params - b.params);
  contract = { document, routes, ajv, validators: new Map() };
  // The shared bodies compiled once, up front: an operation's validator then only refers to them
  // (inlineRefs: false), so no answer in a timed section waits for a large compile.
  for (const name of ['Transaction', 'Errors']) ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/${name}` });
  // And the gateway calls' answers (timed by the fault tests): each success, and each status that may carry the transaction.
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const [verb, operation] of Object.entries(item as Json)) {
      for (const [status, response] of Object.entries((operation as Json).responses as Json)) {
        if (!/\/(purchase|authorize|verify|capture|credit|void|complete)$/.test(path) || typeof (response as Json).$ref === 'string') continue;
        if ((response as Json).content?.['application/json'] !== undefined) validatorFor(contract, `/paths/${escapePointer(path)}/${verb}/responses/${status}/content/application~1json/schema`);
      }
    }
  }
  return contract;
}

// Built when the e2e client is imported, before any test runs (a timed request must not pay for it).
load();

/** The compiled validator of the schema at a JSON pointer of the document (compiled once). */
function validatorFor(loaded: Contract, schemaPointer: string): ValidateFunction {
  let validate = loaded.validators.get(schemaPointer);
  if (validate === undefined) {
    validate = loaded.ajv.compile({ $ref: `${DOCUMENT_ID}#${schemaPointer}` });
    loaded.validators.set(schemaPointer, validate);
  }
  return validate;
}

/** The documented path an actual request path (suffix, query and all) belongs to. */
function documentedPath(routes: Route[], requestPath: string): string | null {
  const withSuffix = requestPath.split('?')[0]!;
  // The document's own path keeps its suffix; its .xml form is not a route.
  if (withSuffix === '/v1/openapi' || withSuffix === '/v1/openapi.json') return '/v1/openapi.json';
  const bare = withSuffix.replace(/\.(json|xml)$/, '');
  return routes.find((route) => route.pattern.test(bare))?.path ?? null;
}

/** Follows a `$ref` to a response object; returns the object and its JSON pointer in the document. */
function responseAt(document: Json, pointer: string, response: Json): { response: Json; pointer: string } {
  if (typeof response.$ref !== 'string') return { response, pointer };
  const target = (response.$ref as string).slice(1);
  const resolved = target.split('/').slice(1).reduce((node: Json, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  return { response: resolved, pointer: target };
}

/** The value at a JSON pointer of an answer (what a mismatch shows). */
function valueAt(value: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce((at: any, key) => (at === null || typeof at !== 'object' ? undefined : at[key.replace(/~1/g, '/').replace(/~0/g, '~')]), value);
}

/**
 * Checks one answer; throws ContractMismatchError when it does not match the document. `body` is the
 * text; only JSON answers (Content-Type application/json) are checked against a schema.
 */
export function checkAgainstContract(method: string, requestPath: string, status: number, contentType: string | undefined, body: string): void {
  const loaded = load();
  const { document, routes } = loaded;
  const path = documentedPath(routes, requestPath);
  if (path === null) return;
  const verb = method.toLowerCase();
  const operation = (document.paths as Json)[path]?.[verb] as Json | undefined;
  if (operation === undefined || verb === 'head') return;
  const where = `${method} ${path} answered ${status}`;
  const declared = (operation.responses as Json)[String(status)] as Json | undefined;
  if (declared === undefined) {
    throw new ContractMismatchError(`${where}, a status the OpenAPI document does not list for it (lists ${Object.keys(operation.responses).join(', ')}): ${body.slice(0, 300)}`);
  }
  if (!(contentType ?? '').startsWith('application/json')) return;
  const base = `/paths/${escapePointer(path)}/${verb}/responses/${status}`;
  const { response, pointer } = responseAt(document, base, declared);
  if (response.content?.['application/json'] === undefined) {
    throw new ContractMismatchError(`${where} with a JSON body, but the document gives no JSON body for it: ${body.slice(0, 300)}`);
  }
  const validate = validatorFor(loaded, `${pointer}/content/application~1json/schema`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ContractMismatchError(`${where} with a Content-Type of JSON and a body that is not JSON: ${body.slice(0, 300)}`);
  }
  if (!validate(parsed)) {
    const errors = (validate.errors ?? []).slice(0, 8).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}, is ${JSON.stringify(valueAt(parsed, error.instancePath))?.slice(0, 200)}`);
    throw new ContractMismatchError(`${where}, body does not match the OpenAPI document:\n  ${errors.join('\n  ')}`);
  }
}
