import type { FastifyInstance } from 'fastify';
import { parseSubscription, type CallbackAdminService } from '../../services/callbacks/callback-admin.service.js';
import type { SigningSecretService } from '../../services/callbacks/signing-secret.service.js';
import type { TenancyService } from '../../services/tenancy.service.js';
import { callerOf } from '../auth.js';
import { fieldsOf } from '../body.js';
import { WireList } from '../format/wire.js';
import { sendWire } from '../reply.js';
import { deliveryLogView } from '../views/delivery-log.view.js';
import { environmentView } from '../views/tenancy.view.js';

type KeyParams = { Params: { key: string } };
type IdParams = { Params: { id: string } };

export interface CallbackRouteServices {
  tenancy: TenancyService;
  signingSecrets: SigningSecretService;
  callbackAdmin: CallbackAdminService;
}

/** The signing secret, the environment's subscription, redelivery and the delivery log (docs/events.md). */
export function callbackRoutes(app: FastifyInstance, services: CallbackRouteServices): void {
  const admin = { config: { access: 'admin' as const, organizationWide: true } };
  // The new secret is in the answer: an Idempotency-Key replay must not hand it out again.
  const adminReturningSecret = { config: { ...admin.config, responseCarriesSecret: true } };

  app.post<KeyParams>('/v1/environments/:key/regenerate_signing_secret', adminReturningSecret, async (request, reply) => {
    const environment = await services.tenancy.findEnvironment(callerOf(request).organization.token, request.params.key);
    const secret = await services.signingSecrets.regenerate(environment, request);
    const row = await services.tenancy.findEnvironment(callerOf(request).organization.token, environment.key);
    return sendWire(request, reply, 200, 'environment', { ...environmentView(row), signing_secret: secret });
  });

  app.put<KeyParams>('/v1/environments/:key/callback', admin, async (request, reply) => {
    const subscription = parseSubscription(fieldsOf(request, 'callback'));
    const environment = await services.tenancy.findEnvironment(callerOf(request).organization.token, request.params.key);
    await services.callbackAdmin.subscribe(environment.key, subscription, request);
    return sendWire(request, reply, 200, 'callback', {
      url: subscription.url,
      format: subscription.format,
      event_types: new WireList('event_type', subscription.eventTypes ?? []),
    });
  });

  app.post<IdParams>('/v1/events/:id/redeliver', async (request, reply) => {
    const log = await services.callbackAdmin.redeliver(callerOf(request).environment, request.params.id);
    return sendWire(request, reply, 202, 'deliveries', new WireList('delivery', log.map(deliveryLogView)));
  });

  app.get<IdParams>('/v1/events/:id/deliveries', async (request, reply) => {
    const log = await services.callbackAdmin.log(callerOf(request).environment, request.params.id);
    return sendWire(request, reply, 200, 'deliveries', new WireList('delivery', log.map(deliveryLogView)));
  });
}
