import { z } from 'zod';
import { errorsSchema } from './response-schemas.js';
import { OPERATIONS, type Body, type Method, type Operation } from './operations.js';

/*
 * The OpenAPI 3.1 document of the v1 API (docs/wire-compatibility.md), built once from OPERATIONS. Its JSON
 * Schemas come from zod (z.toJSONSchema), so request bodies are documented by the very schemas
 * that validate them. Each body is given in both formats: JSON under its root key, XML as the
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
  409: 'An Idempotency-Key is in use by a request still running',
  413: 'Body over the route’s limit (docs/wire-compatibility.md, Request body limits)',
  415: 'Content-Type does not match the suffix',
  422: 'Invalid request, or a failed transaction (then the body is the transaction)',
  429: 'Rate limited (Retry-After)',
  503: 'Gateway circuit open or busy, or store unavailable',
};

/** A zod schema as plain JSON Schema 2020-12: what a body may contain, unknown fields ignored. */
function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const generated = z.toJSONSchema(schema, { unrepresentable: 'any' }) as JsonSchema;
  delete generated.$schema;
  return relax(generated) as JsonSchema;
}

/** Unknown fields are ignored by the API, not refused: drop zod's `additionalProperties: false`. */
function relax(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(relax);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'additionalProperties' && inner === false) continue;
    out[key] = relax(inner);
  }
  return out;
}

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z]+)/g, '{$1}');
}

function bodyContent(body: Body): Record<string, unknown> {
  const inner = jsonSchemaOf(body.schema);
  const json =
    body.item === undefined
      ? { type: 'object', required: [body.root], properties: { [body.root]: inner } }
      : { type: 'object', required: [body.root], properties: { [body.root]: { type: 'array', items: inner } } };
  const xml =
    body.item === undefined
      ? { ...inner, xml: { name: body.root } }
      : { type: 'array', xml: { name: body.root, wrapped: true }, items: { ...inner, xml: { name: body.item } } };
  return { 'application/json': { schema: json }, 'application/xml': { schema: xml } };
}

function errorResponse(status: number): Record<string, unknown> {
  const errors = jsonSchemaOf(errorsSchema);
  return {
    description: ERROR_DESCRIPTIONS[status] ?? 'Error',
    content: { 'application/json': { schema: errors }, 'application/xml': { schema: { ...errors, xml: { name: 'errors' } } } },
  };
}

const LIST_PARAMETERS = [
  { name: 'since_token', in: 'query', required: false, schema: { type: 'string' }, description: 'Records after this one, in the current order' },
  { name: 'order', in: 'query', required: false, schema: { type: 'string', enum: ['asc', 'desc'] } },
  { name: 'count', in: 'query', required: false, schema: { type: 'integer', minimum: 1 }, description: 'Page size, default 20, at most 100' },
];

function parametersOf(operation: Operation): unknown[] {
  const path = [...operation.path.matchAll(/:([A-Za-z]+)/g)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } }));
  const query = Object.entries(operation.query ?? {}).map(([name, description]) => ({ name, in: 'query', required: false, schema: { type: 'string' }, description }));
  return [...path, ...(operation.list === true ? LIST_PARAMETERS : []), ...query];
}

function operationObject(operation: Operation, method: Method): Record<string, unknown> {
  const success: Record<string, unknown> = { description: operation.success.description };
  if (operation.success.body !== undefined) success.content = bodyContent(operation.success.body);
  if (operation.success.plainText === true) success.content = { 'text/plain': { schema: { type: 'string' } } };
  if (operation.success.binary !== undefined) success.content = { [operation.success.binary]: { schema: { type: 'string', format: 'binary' } } };
  if (operation.path === '/v1/openapi.json') success.content = { 'application/json': { schema: { type: 'object' } } };
  const errorStatuses = operation.access === 'none' ? operation.errors : [401, 406, 429, ...operation.errors];
  const responses: Record<string, unknown> = { [String(operation.success.status)]: success };
  for (const status of [...new Set(errorStatuses)].sort()) responses[String(status)] = errorResponse(status);
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
    components: { securitySchemes: { basic: { type: 'http', scheme: 'basic', description: 'Environment key : access secret' } } },
  };
}
