import type { FastifyInstance } from 'fastify';
import { parseListQuery } from '../../services/list-query.js';
import { parseEventType, type EventService } from '../../services/event.service.js';
import { callerOf } from '../auth.js';
import { sendWire, sendWireList } from '../reply.js';
import { eventView } from '../views/event.view.js';

type IdParams = { Params: { id: string } };
type TokenParams = { Params: { token: string } };

/** The query of an events list: newest first unless `order` says otherwise (Spreedly's default). */
function eventsQuery(raw: unknown) {
  const query = raw as Record<string, unknown>;
  const list = parseListQuery({ ...query, order: query.order === undefined || query.order === '' ? 'desc' : query.order });
  const eventType = parseEventType(query);
  return { list, filter: eventType === undefined ? {} : { eventType } };
}

/** The events feed (docs/events.md), all of an environment's and a payment method's own. */
export function eventRoutes(app: FastifyInstance, events: EventService): void {
  const limited = { config: { rateLimits: ['events_list' as const] } };

  app.get('/v1/events', limited, async (request, reply) => {
    const { list, filter } = eventsQuery(request.query);
    const rows = await events.list(callerOf(request).environment, list, filter);
    return sendWireList(request, reply, 'events', 'event', rows, eventView);
  });

  app.get<IdParams>('/v1/events/:id', async (request, reply) => {
    return sendWire(request, reply, 200, 'event', eventView(await events.show(callerOf(request).environment, request.params.id)));
  });

  app.get('/v1/payment_methods/events', limited, async (request, reply) => {
    const { list, filter } = eventsQuery(request.query);
    const rows = await events.list(callerOf(request).environment, list, { ...filter, objectType: 'payment_method' });
    return sendWireList(request, reply, 'payment_method_events', 'event', rows, eventView);
  });

  app.get<TokenParams>('/v1/payment_methods/:token/events', limited, async (request, reply) => {
    const { list, filter } = eventsQuery(request.query);
    const rows = await events.forPaymentMethod(callerOf(request).environment, request.params.token, list, filter);
    return sendWireList(request, reply, 'payment_method_events', 'event', rows, eventView);
  });
}
