import { errorsSchema } from './response-schemas.js';
import { componentSchemas, schemaRef } from './components.js';
import { OPERATIONS, type Body, type Method, type Operation } from './operations.js';

/*
 * The OpenAPI 3.1 document of the v1 API (docs/wire-compatibility.md, docs/openapi.md), built once from OPERATIONS.
 * Its JSON Schemas come from zod (z.toJSONSchema), so request bodies are documented by the very schemas
 * that validate them; each is written once under components.schemas and referred to by `$ref`. Each body is given in both formats: JSON under its root key, XML as the
 * root element (the schema's `xml.name`), Rails style, `type="integer|boolean"` on typed values.
 */

type JsonSchema = Record<string, unknown>;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  401: 'Unable to authenticate (exact message: see API.md)',
  402: 'Environment not activated for real payment methods, or organization deactivated',
  403: 'Forbidden (an unknown receiver_type)',
  404: 'Not found',
  406: 'The Accept header does not allow the format of the suffix',
  408: 'The gateway did not answer in time (the transaction, state gateway_processing_result_unknown)',
  409: 'The Idempotency-Key is in use by a request still running, or its answer carried a secret and cannot be replayed; an export not yet approved, no longer pending, or cancelled or rejected',
  410: 'An export past its window, or already downloaded (docs/portability.md, "Exporting")',
  500: 'An internal error (the message names the request id, for the logs)',
  413: 'Body over the route’s limit (docs/wire-compatibility.md, Request body limits)',
  415: 'Content-Type does not match the suffix',
  422: 'Invalid request (or an Idempotency-Key reused with another request), or a failed transaction (then the body is the transaction)',
  429: 'Rate limited (Retry-After)',
  502: 'The upstream vault (live migration, docs/portability.md) cannot be reached',
  503: 'Gateway circuit open or busy, store unavailable, master key unreachable (HSM), or vault sealed (docs/key-custody.md)',
};

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z]+)/g, '{$1}');
}

/** The JSON form of a body: an object holding the body under its root key (a bare body is the schema itself). */
function jsonEnvelope(body: Body): JsonSchema {
  const inner = schemaRef(body.schema);
  if (body.bare === true) return inner;
  return { type: 'object', required: [body.root], properties: { [body.root]: body.item === undefined ? inner : { type: 'array', items: inner } } };
}

/** The XML form: the root element is the body (Rails style), a list wraps repeated `item` elements. */
function xmlForm(body: Body): JsonSchema {
  const inner = schemaRef(body.schema);
  return body.item === undefined ? { ...inner, xml: { name: body.root } } : { type: 'array', xml: { name: body.root, wrapped: true }, items: { ...inner, xml: { name: body.item } } };
}

function bodyContent(body: Body): Record<string, unknown> {
  if (body.bare === true) return { 'application/json': { schema: jsonEnvelope(body) } };
  return { 'application/json': { schema: jsonEnvelope(body) }, 'application/xml': { schema: xmlForm(body) } };
}

const ERRORS: Body = { root: 'errors', schema: errorsSchema };

/** `components.responses`: one error answer per status, shared by every operation. */
function errorResponses(): Record<string, unknown> {
  const errors = schemaRef(errorsSchema);
  const out: Record<string, unknown> = {};
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS)) {
    out[`Error${status}`] = { description, content: { 'application/json': { schema: errors }, 'application/xml': { schema: { ...errors, xml: { name: 'errors' } } } } };
  }
  return out;
}

/**
 * A status that answers either an error or the operation's own body (a declined transaction is
 * 422 with the transaction): both forms, `oneOf`.
 */
function errorOrBody(status: number, body: Body): Record<string, unknown> {
  const errors = schemaRef(errorsSchema);
  return {
    description: ERROR_DESCRIPTIONS[status] ?? 'Error',
    content: {
      'application/json': { schema: { oneOf: [errors, jsonEnvelope(body)] } },
      'application/xml': { schema: { oneOf: [{ ...errors, xml: { name: ERRORS.root } }, xmlForm(body)] } },
    },
  };
}

/** `components.parameters`: the paging parameters of every list. */
const LIST_PARAMETERS: Record<string, JsonSchema> = {
  since_token: { name: 'since_token', in: 'query', required: false, schema: { type: 'string' }, description: 'Records after this one, in the current order' },
  order: { name: 'order', in: 'query', required: false, schema: { type: 'string', enum: ['asc', 'desc'] } },
  count: { name: 'count', in: 'query', required: false, schema: { type: 'integer', minimum: 1 }, description: 'Page size, default 20, at most 100' },
};

function parametersOf(operation: Operation): unknown[] {
  const path = [...operation.path.matchAll(/:([A-Za-z]+)/g)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } }));
  const query = Object.entries(operation.query ?? {}).map(([name, description]) => ({ name, in: 'query', required: false, schema: { type: 'string' }, description }));
  const list = operation.list === true ? Object.keys(LIST_PARAMETERS).map((name) => ({ $ref: `#/components/parameters/${name}` })) : [];
  return [...path, ...list, ...query];
}

/**
 * The statuses every route of a kind may answer, whatever it does (API.md §2, §8): 500; authenticated
 * routes 401, 406, 429 and 503 (store unavailable); authenticated writes 402 (a deactivated organization only reads); POST
 * and PUT 413 and 415 (the body's size and Content-Type), and when authenticated 409 and 422 (an
 * Idempotency-Key in use, not replayable, or reused with another request).
 */
function commonErrors(authenticated: boolean, method: Method): number[] {
  // Any route may fail inside; the answer is the usual errors body.
  const statuses: number[] = [500];
  // Authentication reads the store: 503 when it cannot be reached.
  if (authenticated) statuses.push(401, 406, 429, 503);
  if (authenticated && method !== 'get' && method !== 'options') statuses.push(402);
  if (method === 'post' || method === 'put') statuses.push(413, 415, ...(authenticated ? [409, 422] : []));
  return statuses;
}

function operationObject(operation: Operation, method: Method): Record<string, unknown> {
  const success: Record<string, unknown> = { description: operation.success.description };
  if (operation.success.body !== undefined) success.content = bodyContent(operation.success.body);
  if (operation.success.plainText === true) success.content = { 'text/plain': { schema: { type: 'string' } } };
  if (operation.success.binary !== undefined) success.content = { [operation.success.binary]: { schema: { type: 'string', format: 'binary' } } };
  if (operation.path === '/v1/openapi.json') success.content = { 'application/json': { schema: { type: 'object' } } };
  const errorStatuses = [...commonErrors(operation.access !== 'none', method), ...operation.errors];
  const responses: Record<string, unknown> = { [String(operation.success.status)]: success };
  for (const status of [...new Set(errorStatuses)].sort()) {
    const body = operation.success.body;
    responses[String(status)] = body !== undefined && operation.bodyAlsoOn?.includes(status) === true ? errorOrBody(status, body) : { $ref: `#/components/responses/Error${status}` };
  }
  if (operation.formRedirect === true) {
    responses['302'] = {
      description: 'A form post (application/x-www-form-urlencoded, the transparent redirect): to redirect_url with token=… or error=…, error_message=…, error_attribute=… in the query',
      headers: { Location: { schema: { type: 'string' }, description: 'redirect_url with the outcome in its query' } },
      content: { 'text/html': { schema: { type: 'string' } } },
    };
  }
  const object: Record<string, unknown> = {
    operationId: `${method}_${operation.path.replace(/^\//, '').replace(/[/:]+/g, '_')}`,
    summary: operation.summary,
    tags: [operation.tag],
    parameters: parametersOf(operation),
    responses,
  };
  if (operation.request !== undefined) object.requestBody = { required: false, content: bodyContent(operation.request) };
  if (operation.access === 'none') object.security = [];
  else if (operation.access === 'admin') object.description = 'Needs an organization-wide admin access secret.';
  return object;
}

const DESCRIPTION = [
  "Coffer's v1 API, wire-compatible with Spreedly's Core API v1 (see API.md).",
  '',
  'Format: every path under /v1 takes a `.json` or `.xml` suffix (`/v1/gateways/{token}/purchase.xml`) that picks the format',
  'of the request body and of the response; the paths below are listed without it. Without a suffix responses are JSON,',
  'errors XML unless Accept asks for JSON; the transcript is plain text. XML bodies are Rails-style: the root element named',
  'as the JSON root key, one element per field, `type="integer"` / `type="boolean"` on typed values, `nil="true"` on nulls,',
  'lists as repeated elements inside their plural root, errors as `<errors><error key="…" attribute="…">message</error></errors>`.',
  '',
  'Authentication: HTTP Basic, environment key as user and access secret as password (admin routes: an organization-wide',
  'admin secret). Responses of 1 KiB or more are compressed (br, gzip, deflate) when Accept-Encoding allows it.',
].join('\n');

/** The whole document; `version` is the package's. */
export function buildOpenApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS) {
    const entry = (paths[openApiPath(operation.path)] ??= {});
    entry[operation.method] = operationObject(operation, operation.method);
    if (operation.alsoAs !== undefined) entry[operation.alsoAs] = { ...operationObject(operation, operation.alsoAs), description: `Same as ${operation.method.toUpperCase()} (clients differ).` };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Coffer API', version, description: DESCRIPTION, license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } },
    servers: [{ url: '/' }],
    security: [{ basic: [] }],
    tags: [...new Set(OPERATIONS.map((operation) => operation.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: componentSchemas(),
      responses: errorResponses(),
      parameters: LIST_PARAMETERS,
      securitySchemes: { basic: { type: 'http', scheme: 'basic', description: 'Environment key : access secret' } },
    },
  };
}
