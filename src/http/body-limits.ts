import type { FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../domain/errors.js';
import { isPublicFormPost } from './auth.js';
import { MAX_FREE_FORM_BYTES } from './format/input-bounds.js';

/**
 * The largest request body each API route reads, in one table (docs/wire-compatibility.md,
 * "Request body limits"). A body is only ever read after the caller is known (or, on the public
 * card-capture routes, after the environment and the public rate limit), and never past its
 * route's limit: a stranger cannot make Coffer read, hold or parse more than the few KiB of the
 * public routes.
 *
 * Each size is what the route's schema can legitimately carry written plainly (UTF-8, the format's
 * usual escaping), with room to spare, rounded up to a power of two. XML spells a free-form field
 * more verbosely than JSON (every key twice, `&lt;` for `<`), so a free-form field counts three
 * times its 64 KiB JSON cap (input-bounds.ts). API.md §1's 1 MiB stays the ceiling.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

/** API.md §1: no body is ever larger. Also the limit of a route this table does not list. */
export const MAX_BODY_LIMIT = MiB;

/**
 * The card form (`POST payment_methods/restricted`) and the transparent redirect's form post:
 * a card's fields (about 20 short texts), the signature fields and a little metadata. Anyone may
 * call them, so they stay small; larger metadata is added later with `PUT payment_methods/<t>`.
 */
export const PUBLIC_TOKENIZATION_BODY_LIMIT = 16 * KiB;

/** CORS preflights carry no body. */
const PREFLIGHT = 1 * KiB;
/** Routes that take no fields or a few short ones (retain, redact, void-like actions, names, a URL). */
const SMALL = 16 * KiB;
/** Short fields plus lists of short fields: 50 allowed origins, a callback's event types. */
const LISTS = 64 * KiB;
/** A free-form field written in XML: three times its JSON cap (input-bounds.ts). */
const FREE_FORM_IN_XML = 3 * MAX_FREE_FORM_BYTES;
/** Short fields: a card's or a transaction's (a few dozen texts of at most 1,000 characters). */
const SHORT_FIELDS = 16 * KiB;
/** Metadata: 25 keys of 50 characters and values of 500, each `<` of a value written `&lt;`. */
const METADATA_IN_XML = 25 * (2 * 50 + 4 * 500 + 5);
/** One free-form field (a transaction's gateway_specific_fields) and the short fields beside it. */
const ONE_FREE_FORM = roundUp(FREE_FORM_IN_XML + SHORT_FIELDS);
/** A payment method: its data, its metadata and the card's fields. */
const PAYMENT_METHOD = roundUp(FREE_FORM_IN_XML + METADATA_IN_XML + SHORT_FIELDS);
/**
 * A certificate's PEM chain (64 KiB) and private key (16 KiB); a gateway's credentials, which
 * include PEM keys for some gateway types; an export recipient's armored OpenPGP key.
 */
const PEM = 256 * KiB;
/**
 * The largest bodies of the API: a receiver's 50 credentials of 10,000 characters, a delivery's
 * 64 KiB template and 16 KB of headers written with XML's escapes, a workflow's 50 rules of up to
 * 200 list entries each in XML.
 */
const LARGEST = MAX_BODY_LIMIT;

/**
 * An import file (docs/portability.md): received into a private temporary file (import-spool.ts),
 * never held in memory, so only a bound on the disk one request may take: 8 GiB is over ten
 * million cards in JSON Lines.
 */
export const IMPORT_FILE_LIMIT = 8 * 1024 * MiB;

/**
 * An import file uploaded in the portal (`POST /portal/e/<key>/imports`, docs/portal.md): streamed
 * like the API's, so the body arrives only as fast as it is imported, and the whole request must
 * arrive within the request timeout (server-timeouts.ts, 30 s). Measured on the 2-core box: about
 * 0.5 MiB (3,800 cards) a second, so 4 MiB (about 30,000 cards) takes some 8 s, with room for a
 * busier machine; larger files go through `coffer import`.
 */
export const PORTAL_IMPORT_FILE_LIMIT = 4 * MiB;

const GATEWAY_OPERATIONS = ['purchase', 'authorize', 'verify', 'store', 'general_credit'];
const REFERENCE_OPERATIONS = ['capture', 'credit'];
const ROUTED_OPERATIONS = ['purchase', 'authorize', 'verify'];

/** `METHOD url` (the route's pattern, as registered) → bytes. */
export const BODY_LIMITS: ReadonlyMap<string, number> = new Map([
  // Public: anyone with the environment key (which is on the merchant's page).
  ['POST /v1/payment_methods/restricted', PUBLIC_TOKENIZATION_BODY_LIMIT],
  ['OPTIONS /v1/payment_methods/restricted', PREFLIGHT],
  // The card form's recache: a CVV and the signature fields.
  ['POST /v1/payment_methods/restricted/:token/recache', PUBLIC_TOKENIZATION_BODY_LIMIT],
  ['OPTIONS /v1/gateways', PREFLIGHT],

  // Payment methods. POST also takes the transparent redirect's form, narrowed to the public limit.
  ['POST /v1/payment_methods', PAYMENT_METHOD],
  ['PUT /v1/payment_methods/:token', PAYMENT_METHOD],
  ['POST /v1/payment_methods/imports', IMPORT_FILE_LIMIT],
  // The recipient's armored OpenPGP public key (a few KiB, more with many signatures) and the filter.
  ['POST /v1/payment_methods/exports', PEM],
  ['POST /v1/payment_methods/exports/:id/approve', SMALL],
  ['POST /v1/payment_methods/exports/:id/cancel', SMALL],
  ['POST /v1/payment_methods/exports/:id/reject', SMALL],
  ...both('/v1/payment_methods/:token/retain', SMALL),
  ...both('/v1/payment_methods/:token/redact', SMALL),
  ...both('/v1/payment_methods/:token/recache', SMALL),

  // Gateways and their transactions.
  ['POST /v1/gateways', PEM],
  ['PUT /v1/gateways/:token', PEM],
  ...both('/v1/gateways/:token/redact', SMALL),
  ...both('/v1/gateways/:token/retain', SMALL),
  ...GATEWAY_OPERATIONS.map((operation): [string, number] => [`POST /v1/gateways/:token/${operation}`, ONE_FREE_FORM]),
  ...REFERENCE_OPERATIONS.map((operation): [string, number] => [`POST /v1/transactions/:token/${operation}`, ONE_FREE_FORM]),
  ...both('/v1/transactions/:token/void', ONE_FREE_FORM),
  ['POST /v1/transactions/:token/complete', SMALL],
  ...ROUTED_OPERATIONS.map((operation): [string, number] => [`POST /v1/transactions/${operation}`, ONE_FREE_FORM]),

  // Routing workflows.
  ['POST /v1/workflows', LARGEST],
  ['PUT /v1/workflows/:key', LARGEST],
  ['DELETE /v1/workflows/:key', SMALL],
  ['POST /v1/workflows/:key/explain', ONE_FREE_FORM],

  // Receivers.
  ['POST /v1/receivers', LARGEST],
  ['PUT /v1/receivers/:token', LARGEST],
  ...both('/v1/receivers/:token/redact', SMALL),
  ['POST /v1/receivers/:token/deliver', LARGEST],
  ['POST /v1/receivers/:token/export', LARGEST],

  // Certificates.
  ['POST /v1/certificates', PEM],
  ['POST /v1/certificates/generate', SMALL],
  ['PUT /v1/certificates/:token', PEM],
  ...both('/v1/certificates/:token/redact', SMALL),

  // Organization administration and events.
  ['POST /v1/environments', SMALL],
  ['PUT /v1/environments/:key', LISTS],
  ['POST /v1/environments/:key/access_secrets', SMALL],
  ['DELETE /v1/environments/:key/access_secrets/:secretKey', SMALL],
  ['POST /v1/environments/:key/regenerate_signing_secret', SMALL],
  ['PUT /v1/environments/:key/callback', LISTS],
  ['POST /v1/events/:id/redeliver', SMALL],

  // Live migration (docs/portability.md): the upstream's progress and the intake of one card.
  ['DELETE /v1/environments/:key/upstream', SMALL],
  ['POST /v1/environments/:key/upstream/backfill', SMALL],
  ['POST /v1/upstream/intake', SMALL],
]);

/** The next power of two. */
function roundUp(bytes: number): number {
  return 2 ** Math.ceil(Math.log2(bytes));
}

/** The PUT and POST spellings of one action (clients differ). */
function both(url: string, bytes: number): Array<[string, number]> {
  return [
    [`PUT ${url}`, bytes],
    [`POST ${url}`, bytes],
  ];
}

/** Methods whose bodies Fastify never reads. */
const BODYLESS = new Set(['GET', 'HEAD']);

/** The limit of one route: the largest of its methods' (a route declared for PUT and POST has one). */
export function bodyLimitOf(methods: string | readonly string[], url: string): number {
  const list = typeof methods === 'string' ? [methods] : methods;
  let limit = 0;
  for (const method of list) {
    if (BODYLESS.has(method)) continue;
    limit = Math.max(limit, BODY_LIMITS.get(`${method} ${url}`) ?? MAX_BODY_LIMIT);
  }
  return limit === 0 ? MAX_BODY_LIMIT : limit;
}

/** onRoute hook: gives every API route its limit from the table (or its own, when that is smaller). */
export function applyBodyLimit(route: RouteOptions): void {
  // A route without a limit of its own takes the table's, larger than the default where the table says so (an import file).
  route.bodyLimit = Math.min(route.bodyLimit ?? Number.POSITIVE_INFINITY, bodyLimitOf(route.method, route.url ?? ''));
}

/** "16 KiB", "1 MiB": the limit as error messages and docs show it. */
export function describeBytes(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= KiB && bytes % KiB === 0) return `${bytes / KiB} KiB`;
  return `${bytes} bytes`;
}

/** The most this request's body may hold: its route's, or the public limit for a transparent-redirect form. */
export function bodyLimitOfRequest(request: FastifyRequest): number {
  const routeLimit = request.routeOptions.bodyLimit ?? MAX_BODY_LIMIT;
  return isPublicFormPost(request) ? Math.min(routeLimit, PUBLIC_TOKENIZATION_BODY_LIMIT) : routeLimit;
}

/** 413 errors.payload_too_large, naming the limit that applied. */
export function payloadTooLarge(limit: number): AppError {
  return new AppError({ key: 'errors.payload_too_large', message: `The request body is larger than ${describeBytes(limit)}.` });
}
