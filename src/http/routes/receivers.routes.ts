import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ReceiverService } from '../../services/receiver.service.js';
import type { ReceiverDeliveryService } from '../../services/receivers/receiver-delivery.service.js';
import type { ReceiverExportService } from '../../services/receivers/receiver-export.service.js';
import type { TransactionQueryService } from '../../services/transactions/transaction-query.service.js';
import { parseListQuery } from '../../services/list-query.js';
import { callerOf } from '../auth.js';
import { fieldsOf } from '../body.js';
import { WireList } from '../format/wire.js';
import { sendWire, sendWireList } from '../reply.js';
import { receiverOptionView, receiverView } from '../views/receiver.view.js';
import { receiverTransactionView, redactReceiverView } from '../views/receiver-transaction.view.js';
import { deliveryInput, exportInput, receiverInput } from './receivers.schemas.js';

type TokenParams = { Params: { token: string } };

/** Everything the receivers routes call. */
export interface ReceiverRouteServices {
  receivers: ReceiverService;
  deliveries: ReceiverDeliveryService;
  exports: ReceiverExportService;
  transactionQuery: TransactionQueryService;
}

/** API.md §4 Receivers; limits of API.md §7 on each route (deliver and export too: rendering is costly). */
export function receiverRoutes(app: FastifyInstance, services: ReceiverRouteServices): void {
  const { receivers, deliveries, exports } = services;
  const options = async (request: FastifyRequest, reply: FastifyReply) =>
    sendWire(request, reply, 200, 'receivers', new WireList('receiver', receivers.types.all().map(receiverOptionView)));
  app.get('/v1/receivers_options', { config: { access: 'none', rateLimits: ['receivers_options'] } }, options);

  app.post('/v1/receivers', { config: { rateLimits: ['receivers_create'] } }, async (request, reply) => {
    const { receiverType, input } = receiverInput(fieldsOf(request, 'receiver'));
    const created = await receivers.create(callerOf(request).environment, receiverType, input, request);
    return sendWire(request, reply, 201, 'receiver', receiverView(created.row));
  });

  app.get('/v1/receivers', { config: { rateLimits: ['receivers_list'] } }, async (request, reply) => {
    const records = await receivers.list(callerOf(request).environment, parseListQuery(request.query as Record<string, unknown>));
    return sendWireList(request, reply, 'receivers', 'receiver', records, (record) => receiverView(record.row));
  });

  app.get<TokenParams>('/v1/receivers/:token', { config: { rateLimits: ['receivers_show'] } }, async (request, reply) => {
    const record = await receivers.show(callerOf(request).environment, request.params.token);
    return sendWire(request, reply, 200, 'receiver', receiverView(record.row));
  });

  app.put<TokenParams>('/v1/receivers/:token', { config: { rateLimits: ['receivers_update'] } }, async (request, reply) => {
    const { input } = receiverInput(fieldsOf(request, 'receiver'));
    const record = await receivers.update(callerOf(request).environment, request.params.token, input, request);
    return sendWire(request, reply, 200, 'receiver', receiverView(record.row));
  });

  app.route<TokenParams>({
    method: ['PUT', 'POST'],
    url: '/v1/receivers/:token/redact',
    config: { rateLimits: ['receivers_redact'] },
    handler: async (request, reply) => {
      const redacted = await receivers.redact(callerOf(request).environment, request.params.token, request);
      return sendWire(request, reply, 200, 'transaction', redactReceiverView(redacted));
    },
  });

  app.post<TokenParams>('/v1/receivers/:token/deliver', { config: { rateLimits: ['receivers_deliver'] } }, async (request, reply) => {
    const environment = callerOf(request).environment;
    const outcome = await deliveries.deliver(environment, request.params.token, deliveryInput(fieldsOf(request, 'delivery')), request);
    const page = await services.transactionQuery.withPaymentMethods(environment, [outcome.transaction]);
    const paymentMethod = outcome.transaction.paymentMethodToken === null ? null : (page.paymentMethods.get(outcome.transaction.paymentMethodToken) ?? null);
    return sendWire(request, reply, outcome.status, 'transaction', receiverTransactionView(outcome.transaction, paymentMethod));
  });

  app.post<TokenParams>('/v1/receivers/:token/export', { config: { rateLimits: ['receivers_export'] } }, async (request, reply) => {
    const transaction = await exports.start(callerOf(request).environment, request.params.token, exportInput(fieldsOf(request, 'export')), request);
    return sendWire(request, reply, 202, 'transaction', receiverTransactionView(transaction, null));
  });
}
