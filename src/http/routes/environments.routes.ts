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
import { upstreamView } from '../views/upstream.view.js';
import type { UpstreamSettingsService } from '../../services/upstream/upstream-settings.service.js';
import type { WireObject } from '../format/wire.js';
import type { Environment } from '../../domain/environment.js';

/** Google's merchant ids are short and printable; '' (or an empty element) clears it. */
const googlePayMerchantId = z.preprocess(
  (v) => (v === null ? '' : v),
  z.string().max(100).regex(/^[\x21-\x7e]*$/, 'must be the merchant id from the Google Pay & Wallet Console (no spaces)').optional(),
);

export const environmentSchema = z.object({ name: text(255), enhanced_iframe_security: flag(), google_pay_merchant_id: googlePayMerchantId });
export const createEnvironmentSchema = z.object({ name: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(255)) });
export const accessSecretSchema = z.object({
  name: text(255),
  role: z.preprocess((v) => (v === '' ? undefined : v), z.enum(ROLES as [string, ...string[]]).optional()),
});

/** `environment.upstream{…}` (docs/portability.md, "Live migration"); null clears it. */
export const upstreamSchema = z.object({ url: text(2000), environment_key: text(255), access_secret: text(255), public_url: text(2000), receiver_token: text(255) });

type KeyParams = { Params: { key: string } };
type SecretParams = { Params: { key: string; secretKey: string } };

/**
 * API.md §2 organization administration. Every route needs an admin secret that is not
 * limited to some environments; `production` is not settable here: activating an
 * environment for real cards is the operator's decision (`coffer environments create --production`).
 */
export function environmentRoutes(app: FastifyInstance, tenancy: TenancyService, audit: AuditService, upstreams?: UpstreamSettingsService): void {
  const admin = { config: { access: 'admin' as const, organizationWide: true } };
  // The environment with its upstream (never the upstream's secret), when it names one.
  const withUpstream = async (row: Environment): Promise<WireObject> => {
    const upstream = upstreams === undefined ? undefined : await upstreams.show(row.key).catch(() => undefined);
    return upstream === undefined ? environmentView(row) : { ...environmentView(row), upstream: upstreamView(upstream) };
  };

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
    return sendWire(request, reply, 200, 'environment', await withUpstream(row));
  });

  app.put<KeyParams>('/v1/environments/:key', admin, async (request, reply) => {
    const fields = fieldsOf(request, 'environment');
    const input = parseInput(environmentSchema, fields);
    const allowedOrigins = parseAllowedOriginsInput(fields.allowed_origins);
    const organization = callerOf(request).organization.token;
    // The upstream first: it calls out to check the credentials, and a refusal changes nothing.
    if (upstreams !== undefined && 'upstream' in fields) {
      const environment = await tenancy.findEnvironment(organization, request.params.key);
      if (fields.upstream === null || fields.upstream === '') {
        await upstreams.clear(environment.key).catch((error: unknown) => {
          if (!(error instanceof AppError && error.status === 404)) throw error;
        });
      } else {
        const upstream = parseInput(upstreamSchema, fields.upstream);
        const set = await upstreams.set(environment.key, {
          url: upstream.url,
          environmentKey: upstream.environment_key,
          accessSecret: upstream.access_secret,
          publicUrl: upstream.public_url,
          receiverToken: upstream.receiver_token,
        });
        // Who pointed this environment at another vault, and where (never the secret).
        await audit.record(
          { type: 'access_secret', id: callerOf(request).secret.key, address: request.ip ?? null },
          { organizationToken: organization, action: 'environment.upstream_set', objectType: 'environment', objectId: environment.key, environmentKey: environment.key, details: { url: set.url, upstream_environment_key: set.upstreamEnvironmentKey, public_url: set.publicUrl } },
        );
      }
    }
    await tenancy.renameEnvironment(organization, request.params.key, input.name, request);
    // The card form's settings (docs/card-capture.md): who may embed it, and whether it must be signed.
    const row = await tenancy.updateCardCapture(organization, request.params.key, {
      allowedOrigins,
      enhancedIframeSecurity: input.enhanced_iframe_security,
    }, request);
    // Google Pay's recipient (docs/wallets.md): tokens must be signed for merchant:<this id>.
    if (input.google_pay_merchant_id !== undefined) {
      const merchantId = input.google_pay_merchant_id.trim();
      return sendWire(request, reply, 200, 'environment', await withUpstream(await tenancy.setGooglePayMerchantId(organization, row.key, merchantId === '' ? null : merchantId, request)));
    }
    return sendWire(request, reply, 200, 'environment', await withUpstream(row));
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
