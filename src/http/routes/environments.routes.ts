import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AppError, MESSAGES } from '../../domain/errors.js';
import { ROLES } from '../../domain/tenancy.js';
import { parseListQuery } from '../../services/list-query.js';
import { secretCoversEnvironment, type TenancyService } from '../../services/tenancy.service.js';
import type { AuditService } from '../../services/audit.service.js';
import { callerOf } from '../auth.js';
import { fieldsOf } from '../body.js';
import { WireList } from '../format/wire.js';
import { sendWire } from '../reply.js';
import { flag, parseInput, text } from '../validation.js';
import { parseAllowedOriginsInput } from './allowed-origins.input.js';
import { accessSecretView, environmentView } from '../views/tenancy.view.js';

export const environmentSchema = z.object({ name: text(255), enhanced_iframe_security: flag() });
export const createEnvironmentSchema = z.object({ name: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(255)) });
export const accessSecretSchema = z.object({
  name: text(255),
  role: z.preprocess((v) => (v === '' ? undefined : v), z.enum(ROLES as [string, ...string[]]).optional()),
});

type KeyParams = { Params: { key: string } };
type SecretParams = { Params: { key: string; secretKey: string } };

/**
 * API.md §2 organization administration. Every route needs an admin secret that is not
 * limited to some environments; `production` is not settable here: activating an
 * environment for real cards is the operator's decision (`coffer environments create --production`).
 */
export function environmentRoutes(app: FastifyInstance, tenancy: TenancyService, audit: AuditService): void {
  const admin = { config: { access: 'admin' as const, organizationWide: true } };

  app.get('/v1/environments', admin, async (request, reply) => {
    const query = parseListQuery(request.query as Record<string, unknown>);
    const rows = await tenancy.listEnvironments(callerOf(request).organization.token, query);
    return sendWire(request, reply, 200, 'environments', new WireList('environment', rows.map(environmentView)));
  });

  app.post('/v1/environments', admin, async (request, reply) => {
    const input = parseInput(createEnvironmentSchema, fieldsOf(request, 'environment'));
    const row = await tenancy.createEnvironment(callerOf(request).organization.token, input.name, false, request);
    return sendWire(request, reply, 201, 'environment', environmentView(row));
  });

  app.get<KeyParams>('/v1/environments/:key', admin, async (request, reply) => {
    const row = await tenancy.findEnvironment(callerOf(request).organization.token, request.params.key);
    return sendWire(request, reply, 200, 'environment', environmentView(row));
  });

  app.put<KeyParams>('/v1/environments/:key', admin, async (request, reply) => {
    const fields = fieldsOf(request, 'environment');
    const input = parseInput(environmentSchema, fields);
    const allowedOrigins = parseAllowedOriginsInput(fields.allowed_origins);
    const organization = callerOf(request).organization.token;
    await tenancy.renameEnvironment(organization, request.params.key, input.name, request);
    // The card form's settings (docs/card-capture.md): who may embed it, and whether it must be signed.
    const row = await tenancy.updateCardCapture(organization, request.params.key, {
      allowedOrigins,
      enhancedIframeSecurity: input.enhanced_iframe_security,
    }, request);
    return sendWire(request, reply, 200, 'environment', environmentView(row));
  });

  app.get<KeyParams>('/v1/environments/:key/access_secrets', admin, async (request, reply) => {
    const organization = callerOf(request).organization.token;
    const environment = await tenancy.findEnvironment(organization, request.params.key);
    const rows = await tenancy.listSecretsForEnvironment(organization, environment.key);
    return sendWire(request, reply, 200, 'access_secrets', new WireList('access_secret', rows.map((row) => accessSecretView(row))));
  });

  // The new secret is in the answer: an Idempotency-Key replay must not hand it out again.
  const adminReturningSecret = { config: { ...admin.config, responseCarriesSecret: true } };
  app.post<KeyParams>('/v1/environments/:key/access_secrets', adminReturningSecret, async (request, reply) => {
    const input = parseInput(accessSecretSchema, fieldsOf(request, 'access_secret'));
    const organization = callerOf(request).organization.token;
    const environment = await tenancy.findEnvironment(organization, request.params.key);
    const created = await tenancy.createAccessSecret(organization, {
      name: input.name ?? 'unnamed',
      role: (input.role ?? 'transact') as (typeof ROLES)[number],
      environmentKeys: [environment.key],
    }, request);
    await audit.record(
      { type: 'access_secret', id: callerOf(request).secret.key, address: request.ip ?? null },
      { organizationToken: organization, action: 'access_secret.create', objectType: 'access_secret', objectId: created.accessSecret.key, environmentKey: environment.key, details: { name: created.accessSecret.name, role: created.accessSecret.role } },
    );
    return sendWire(request, reply, 201, 'access_secret', accessSecretView(created.accessSecret, created.secret));
  });

  app.delete<SecretParams>('/v1/environments/:key/access_secrets/:secretKey', admin, async (request, reply) => {
    const organization = callerOf(request).organization.token;
    const environment = await tenancy.findEnvironment(organization, request.params.key);
    const secret = await tenancy.findAccessSecret(request.params.secretKey);
    if (secret === undefined || secret.organizationToken !== organization || secret.revokedAt !== null || !secretCoversEnvironment(secret, environment.key)) {
      throw new AppError({ key: 'errors.access_secret_not_found', message: MESSAGES.accessSecretNotFound });
    }
    await tenancy.revokeAccessSecret(secret.key, request);
    await audit.record(
      { type: 'access_secret', id: callerOf(request).secret.key, address: request.ip ?? null },
      { organizationToken: organization, action: 'access_secret.revoke', objectType: 'access_secret', objectId: secret.key, environmentKey: environment.key, details: { name: secret.name } },
    );
    return reply.code(204).send();
  });
}
