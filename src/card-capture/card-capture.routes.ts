import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { normalizeOrigin, originAllowed } from '../domain/origins.js';
import { MESSAGES } from '../domain/errors.js';
import { TOKENIZATION_LIMITS } from '../limits/rate-limit-policy.js';
import { fieldsOf } from '../http/body.js';
import { sendWire } from '../http/reply.js';
import { parseCreate, parseRecache } from '../http/routes/payment-methods.schemas.js';
import { vaultTransactionView } from '../http/views/vault-transaction.view.js';
import { CARD_CAPTURE_ASSETS, readAsset, type AssetPath } from './assets.js';
import type { BrowserTokenizationService, RequestOrigin } from './browser-tokenization.service.js';
import { CHANNEL, FRAME_FIELDS, frameCsp, framePage, refusalPage, type FrameField } from './frame-page.js';
import { signedFields } from './signed-fields.js';

const PUBLIC = { access: 'none' as const, plainText: true };

type FrameQuery = { Querystring: Record<string, string | undefined> };
type TokenParams = { Params: { token: string } };

/** Headers every frame page carries besides its CSP. */
function pageHeaders(reply: FastifyReply, parentOrigin: string | null): FastifyReply {
  return reply
    .header('Content-Security-Policy', frameCsp(parentOrigin))
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8');
}

/**
 * Where a tokenization comes from. A browser marks requests from Coffer's own frames
 * `Sec-Fetch-Site: same-origin` (page scripts cannot set it); those name the page that embeds
 * the frame. Other browser requests carry their page's Origin; servers send neither.
 */
function requestOrigin(request: FastifyRequest, parentOrigin: string | undefined): RequestOrigin {
  if (request.headers['sec-fetch-site'] === 'same-origin') return { kind: 'frame', parentOrigin: parentOrigin ?? null };
  const origin = request.headers.origin;
  return typeof origin === 'string' ? { kind: 'page', origin } : { kind: 'none' };
}

/** CORS for a merchant page calling across origins: only an allowed origin may read the answer. */
function allowCors(request: FastifyRequest, reply: FastifyReply, allowed: readonly string[]): boolean {
  const origin = request.headers.origin;
  reply.header('Vary', 'Origin');
  if (typeof origin !== 'string' || request.headers['sec-fetch-site'] === 'same-origin' || !originAllowed(allowed, origin)) return false;
  reply.header('Access-Control-Allow-Origin', origin);
  return true;
}

function environmentKeyOf(request: FastifyRequest): string | undefined {
  const key = (request.query as Record<string, unknown>).environment_key;
  return typeof key === 'string' ? key : undefined;
}

/**
 * The card form (docs/card-capture.md): the iFrame-compatible script and its frame pages,
 * `POST /v1/payment_methods/restricted`, the tokenization the frames (and merchants' own
 * pages) call with the environment key alone, and `POST /v1/payment_methods/restricted/<t>/recache`,
 * the CVV recache of the form's recache mode.
 */
export function cardCaptureRoutes(app: FastifyInstance, tokenization: BrowserTokenizationService): void {
  for (const [url, asset] of Object.entries(CARD_CAPTURE_ASSETS)) {
    app.get(url, { config: PUBLIC }, async (_request, reply) =>
      reply
        .header('Cache-Control', 'public, max-age=300')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Access-Control-Allow-Origin', '*')
        .type(asset.type)
        .send(readAsset(url as AssetPath)),
    );
  }

  app.get<FrameQuery>('/iframe/v1/frame.html', { config: PUBLIC }, async (request, reply) => {
    const { field, environment_key: environmentKey, origin, channel } = request.query;
    const parentOrigin = origin === undefined ? null : normalizeOrigin(origin);
    if (!FRAME_FIELDS.includes(field as FrameField) || environmentKey === undefined || parentOrigin === null || channel === undefined || !CHANNEL.test(channel)) {
      return pageHeaders(reply.code(422), null).send('<!doctype html><title>Card form unavailable</title><p>This card form was loaded with invalid parameters.</p>');
    }
    const environment = await tokenization.findEnvironment(environmentKey);
    if (environment === undefined) {
      const page = refusalPage({ parentOrigin, channel, key: 'errors.access_denied', message: MESSAGES.accessDenied });
      return pageHeaders(reply.code(404), parentOrigin).send(page);
    }
    if (!originAllowed(tokenization.allowedOrigins(environment), parentOrigin)) {
      const page = refusalPage({ parentOrigin, channel, key: 'errors.origin_not_allowed', message: MESSAGES.originNotAllowed });
      return pageHeaders(reply.code(403), parentOrigin).send(page);
    }
    return pageHeaders(reply, parentOrigin).send(framePage({ field: field as FrameField, environmentKey, parentOrigin, channel }));
  });

  app.options('/v1/payment_methods/restricted', { config: { access: 'none' } }, async (request, reply) => {
    const environment = await tokenization.environment(environmentKeyOf(request));
    tokenization.checkOrigin(environment, requestOrigin(request, undefined));
    allowCors(request, reply, tokenization.allowedOrigins(environment));
    return reply
      .code(204)
      .header('Access-Control-Allow-Methods', 'POST')
      .header('Access-Control-Allow-Headers', 'Content-Type, Accept')
      .header('Access-Control-Max-Age', '600')
      .send();
  });

  // Before the body is read (an unknown key is refused without reading it) and before the
  // rate limits of API.md §7, which count per environment.
  const resolveEnvironment = async (request: FastifyRequest, reply: FastifyReply) => {
    const environment = await tokenization.environment(environmentKeyOf(request));
    allowCors(request, reply, tokenization.allowedOrigins(environment));
    request.tokenizingEnvironment = environment;
  };

  app.post(
    '/v1/payment_methods/restricted',
    {
      config: { access: 'none', publicTokenization: true, rateLimits: TOKENIZATION_LIMITS },
      onRequest: resolveEnvironment,
    },
    async (request, reply) => {
      const environment = request.tokenizingEnvironment ?? (await tokenization.environment(environmentKeyOf(request)));
      const fields = fieldsOf(request, 'payment_method');
      const signed = signedFields(fields);
      const origin = requestOrigin(request, typeof fields.parent_origin === 'string' ? fields.parent_origin : undefined);
      const outcome = await tokenization.tokenize(environment, origin, signed, parseCreate(fields), request);
      return sendWire(request, reply, 201, 'transaction', vaultTransactionView(outcome.transaction, outcome.paymentMethod));
    },
  );

  // The recache mode's CVV (`Spreedly.setRecache` / `recache()`): called by the number frame
  // (same origin) or a server. It vaults no card, so only the per-address public budget applies.
  app.post<TokenParams>(
    '/v1/payment_methods/restricted/:token/recache',
    { config: { access: 'none', publicTokenization: true }, onRequest: resolveEnvironment },
    async (request, reply) => {
      const environment = request.tokenizingEnvironment ?? (await tokenization.environment(environmentKeyOf(request)));
      const fields = fieldsOf(request, 'payment_method');
      const origin = requestOrigin(request, typeof fields.parent_origin === 'string' ? fields.parent_origin : undefined);
      const outcome = await tokenization.recache(environment, origin, signedFields(fields), request.params.token, parseRecache(fields), request);
      return sendWire(request, reply, outcome.succeeded ? 200 : 422, 'transaction', vaultTransactionView(outcome.transaction, outcome.paymentMethod));
    },
  );
}
