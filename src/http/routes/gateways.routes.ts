import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, fieldError } from '../../domain/errors.js';
import { gatewayDefinitions } from '../../gateways/registry.js';
import type { GatewayInput, GatewayService } from '../../services/gateway.service.js';
import { parseListQuery } from '../../services/list-query.js';
import { callerOf } from '../auth.js';
import { fieldsOf } from '../body.js';
import { WireList } from '../format/wire.js';
import { sendWire, sendWireList } from '../reply.js';
import { flag, integer, parseInput, text } from '../validation.js';
import { gatewayOptionView, gatewayView } from '../views/gateway.view.js';
import { redactGatewayView } from '../views/redact-gateway.view.js';

export const gatewaySchema = z.object({
  gateway_type: text(100),
  description: text(1000),
  merchant_profile_key: text(100),
  sub_merchant_key: text(100),
  sandbox: flag(),
  token: text(100),
  gateway_settings: z.object({ timeout_seconds: integer().pipe(z.number().int().min(1).max(600).optional()) }).optional(),
});

const KNOWN_FIELDS = new Set(Object.keys(gatewaySchema.shape));

/** Credentials arrive as flat fields beside the known ones; the service keeps those the type declares. */
function credentialCandidates(fields: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (KNOWN_FIELDS.has(name)) continue;
    if (typeof value === 'string' || typeof value === 'number') out[name] = String(value);
  }
  return out;
}

function gatewayInput(request: FastifyRequest, create = false): { gatewayType: string | undefined; input: GatewayInput } {
  const fields = fieldsOf(request, 'gateway');
  const parsed = parseInput(gatewaySchema, fields);
  return {
    gatewayType: parsed.gateway_type,
    input: {
      description: parsed.description,
      merchantProfileKey: parsed.merchant_profile_key,
      subMerchantKey: parsed.sub_merchant_key,
      sandbox: parsed.sandbox,
      credentials: credentialCandidates(fields),
      settings:
        parsed.gateway_settings?.timeout_seconds === undefined ? undefined : { timeout_seconds: parsed.gateway_settings.timeout_seconds },
      // Only a new gateway takes a token; an update's `token` field is ignored.
      token: create ? keptToken(request, parsed.token) : undefined,
    },
  };
}

/** Gateway tokens Coffer keeps from another vault: Spreedly's shape (letters, digits, _ and -). */
const KEPT_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `gateway.token` (docs/portability.md, "Live migration"): the token the gateway has upstream,
 * so merchant code keeps its URLs. Only an admin may choose a token; anyone else is 403.
 */
function keptToken(request: FastifyRequest, token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  if (callerOf(request).secret.role !== 'admin') throw new AppError({ key: 'errors.forbidden', attribute: 'token', message: 'Only an admin access secret may choose a gateway token.' });
  if (!KEPT_TOKEN.test(token)) throw new AppError(fieldError.invalid('token'));
  return token;
}

type TokenParams = { Params: { token: string } };

/** API.md §4 Gateways. */
export function gatewayRoutes(app: FastifyInstance, gateways: GatewayService): void {
  const options = async (request: FastifyRequest, reply: import('fastify').FastifyReply) =>
    sendWire(request, reply, 200, 'gateways', new WireList('gateway', gatewayDefinitions().map(gatewayOptionView)));
  app.get('/v1/gateways_options', { config: { access: 'none' } }, options);
  // The 2012 API listed gateway classes with OPTIONS /gateways; old clients still may.
  app.options('/v1/gateways', { config: { access: 'none' } }, options);

  app.post('/v1/gateways', async (request, reply) => {
    const { gatewayType, input } = gatewayInput(request, true);
    const created = await gateways.create(callerOf(request).environment, gatewayType, input, request);
    return sendWire(request, reply, 201, 'gateway', gatewayView(created));
  });

  app.get('/v1/gateways', async (request, reply) => {
    const query = parseListQuery(request.query as Record<string, unknown>);
    const records = await gateways.list(callerOf(request).environment, query);
    return sendWireList(request, reply, 'gateways', 'gateway', records, gatewayView);
  });

  app.get<TokenParams>('/v1/gateways/:token', async (request, reply) => {
    const record = await gateways.show(callerOf(request).environment, request.params.token);
    return sendWire(request, reply, 200, 'gateway', gatewayView(record));
  });

  app.put<TokenParams>('/v1/gateways/:token', async (request, reply) => {
    const { gatewayType, input } = gatewayInput(request);
    const record = await gateways.update(callerOf(request).environment, request.params.token, gatewayType, input, request);
    return sendWire(request, reply, 200, 'gateway', gatewayView(record));
  });

  app.route<TokenParams>({
    method: ['PUT', 'POST'],
    url: '/v1/gateways/:token/redact',
    handler: async (request, reply) => {
      const redacted = await gateways.redact(callerOf(request).environment, request.params.token, request);
      return sendWire(request, reply, 200, 'transaction', redactGatewayView(redacted));
    },
  });

  app.route<TokenParams>({
    method: ['PUT', 'POST'],
    url: '/v1/gateways/:token/retain',
    handler: async (request, reply) => {
      const record = await gateways.retain(callerOf(request).environment, request.params.token, request);
      return sendWire(request, reply, 200, 'gateway', gatewayView(record));
    },
  });
}
