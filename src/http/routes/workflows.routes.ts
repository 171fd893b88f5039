import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { TOKENIZATION_LIMITS } from '../../limits/rate-limit-policy.js';
import type { ChainOperation } from '../../services/routing/attempt-chain.js';
import type { RoutedTransactionService } from '../../services/routing/routed-transactions.js';
import type { WorkflowService } from '../../services/routing/workflow.service.js';
import type { TransactionQueryService } from '../../services/transactions/transaction-query.service.js';
import { callerOf } from '../auth.js';
import { fieldsOf } from '../body.js';
import { WireList } from '../format/wire.js';
import { sendWire } from '../reply.js';
import { text, parseInput } from '../validation.js';
import { explanationView, workflowView } from '../views/workflow.view.js';
import { parseTransaction } from './transactions.schemas.js';
import { sendResult } from './transactions.routes.js';
import { workflowInput } from './workflows.schemas.js';
import { z } from 'zod';

type KeyParams = { Params: { key: string } };

/** Everything the workflow routes call. */
export interface WorkflowRouteServices {
  workflows: WorkflowService;
  routedTransactions: RoutedTransactionService;
  transactionQuery: TransactionQueryService;
}

const ROUTED: readonly ChainOperation[] = ['purchase', 'authorize', 'verify'];

const workflowKeyField = z.object({ workflow_key: text(64) });

/**
 * `workflow_key` of a routed transaction body; the rest is a gateway transaction's body. A `retry`
 * is refused rather than ignored: the workflow's backups and retry mode are what apply here.
 */
function workflowKeyOf(fields: Record<string, unknown>): string | undefined {
  if (fields.retry !== undefined) {
    throw new AppError({ key: 'errors.invalid', attribute: 'retry', message: "Retry is set by the workflow (its backup_gateway_tokens and retry_mode); send retry to /v1/gateways/<token>/purchase instead." });
  }
  return parseInput(workflowKeyField, fields).workflow_key;
}

/** Routing workflows (admin API), their explain dry run, and routed transactions (docs/routing.md). */
export function workflowRoutes(app: FastifyInstance, services: WorkflowRouteServices): void {
  const { workflows, routedTransactions } = services;

  app.post('/v1/workflows', { config: { access: 'admin' } }, async (request, reply) => {
    const created = await workflows.create(callerOf(request).environment, workflowInput(fieldsOf(request, 'workflow')), request);
    return sendWire(request, reply, 201, 'workflow', workflowView(created));
  });

  app.get('/v1/workflows', async (request, reply) => {
    const list = await workflows.list(callerOf(request).environment);
    return sendWire(request, reply, 200, 'workflows', new WireList('workflow', list.map(workflowView)));
  });

  app.get<KeyParams>('/v1/workflows/:key', async (request, reply) => {
    return sendWire(request, reply, 200, 'workflow', workflowView(await workflows.show(callerOf(request).environment, request.params.key)));
  });

  app.put<KeyParams>('/v1/workflows/:key', { config: { access: 'admin' } }, async (request, reply) => {
    const updated = await workflows.update(callerOf(request).environment, request.params.key, workflowInput(fieldsOf(request, 'workflow')), request);
    return sendWire(request, reply, 200, 'workflow', workflowView(updated));
  });

  app.delete<KeyParams>('/v1/workflows/:key', { config: { access: 'admin' } }, async (request, reply) => {
    const removed = await workflows.remove(callerOf(request).environment, request.params.key, request);
    return sendWire(request, reply, 200, 'workflow', workflowView(removed));
  });

  // Read access is enough: explain calls no gateway and writes nothing.
  app.post<KeyParams>('/v1/workflows/:key/explain', { config: { access: 'read' } }, async (request, reply) => {
    const input = parseTransaction(fieldsOf(request, 'transaction'));
    const explanation = await routedTransactions.explain(callerOf(request).environment, request.params.key, input);
    return sendWire(request, reply, 200, 'explanation', explanationView(explanation));
  });

  // An inline card enters the vault: the same card-testing budgets as a gateway purchase.
  for (const operation of ROUTED) {
    app.post(`/v1/transactions/${operation}`, { config: { rateLimits: TOKENIZATION_LIMITS } }, async (request, reply) => {
      const fields = fieldsOf(request, 'transaction');
      const input = parseTransaction(fields, request);
      const environment = callerOf(request).environment;
      const result = await routedTransactions.run(environment, operation, workflowKeyOf(fields), input);
      return sendResult(request, reply, result, services.transactionQuery);
    });
  }
}
