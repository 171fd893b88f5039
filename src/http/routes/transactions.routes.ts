import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TOKENIZATION_LIMITS } from '../../limits/rate-limit-policy.js';
import { parseListQuery } from '../../services/list-query.js';
import type { GatewayTransactionService, TransactionResult } from '../../services/transactions/gateway-transaction.service.js';
import type { TransactionPage, TransactionQueryService } from '../../services/transactions/transaction-query.service.js';
import { callerOf } from '../auth.js';
import { fieldsOf } from '../body.js';
import type { Wire } from '../format/wire.js';
import { sendWire, sendWireList } from '../reply.js';
import { transactionView } from '../views/transaction.view.js';
import { parseTransaction } from './transactions.schemas.js';
import { parseRetry } from './retry.schemas.js';
import type { AttemptChain, ChainOperation } from '../../services/routing/attempt-chain.js';
import type { Transaction } from '../../domain/transaction.js';

type TokenParams = { Params: { token: string } };

/** The view of one transaction of `page`, with the payment methods and attempts the page holds. */
function viewOf(page: TransactionPage): (transaction: Transaction) => Wire {
  const lookup = (token: string | null) => (token === null ? null : (page.paymentMethods.get(token) ?? null));
  const attemptsOf = (row: Transaction) => (row.firstAttemptToken === null ? [] : (page.chains?.get(row.firstAttemptToken) ?? []));
  return (transaction) => transactionView(transaction, lookup, attemptsOf);
}

/** A page of transactions, each view made when it is written (reply.ts). */
function sendPage(request: FastifyRequest, reply: FastifyReply, page: TransactionPage): FastifyReply {
  return sendWireList(request, reply, 'transactions', 'transaction', page.transactions, viewOf(page));
}

/** The one transaction of `page` (or `{}`, as before, when there is none). */
function firstView(page: TransactionPage): Wire {
  const first = page.transactions[0];
  return first === undefined ? {} : viewOf(page)(first);
}

/** A transaction result with its payment method and retry-chain attempts, in the request's format. */
export async function sendResult(request: FastifyRequest, reply: FastifyReply, result: TransactionResult, query: TransactionQueryService): Promise<FastifyReply> {
  const environment = callerOf(request).environment;
  const page = await query.withChains(environment, await query.withPaymentMethod(environment, result.transaction, result.paymentMethod));
  return sendWire(request, reply, result.status, 'transaction', firstView(page));
}

const DIRECT = ['purchase', 'authorize', 'verify', 'store', 'general_credit'] as const;
const RETRYABLE: ReadonlySet<string> = new Set<ChainOperation>(['purchase', 'authorize', 'verify']);
const REFERENCE = ['capture', 'credit'] as const;

/** API.md §4 gateway transactions, reference transactions and transactions. */
export function transactionRoutes(app: FastifyInstance, transactions: GatewayTransactionService, query: TransactionQueryService, chain: AttemptChain): void {
  // An inline card enters the vault: it spends the same card-testing budgets as POST payment_methods.
  for (const operation of DIRECT) {
    app.post<TokenParams>(`/v1/gateways/:token/${operation}`, { config: { rateLimits: TOKENIZATION_LIMITS } }, async (request, reply) => {
      const fields = fieldsOf(request, 'transaction');
      const input = parseTransaction(fields, request);
      const environment = callerOf(request).environment;
      // Purchase, authorize and verify may name backup gateways (`retry`; docs/routing-retry.md).
      const retry = RETRYABLE.has(operation) ? parseRetry(fields) : null;
      const result =
        retry === null
          ? await transactions.direct(environment, request.params.token, operation, input)
          : await chain.run({ environment, operation: operation as ChainOperation, gatewayTokens: [request.params.token, ...retry.backupGatewayTokens], input, retry: retry.policy, routing: null });
      return sendResult(request, reply, result, query);
    });
  }
  for (const operation of REFERENCE) {
    app.post<TokenParams>(`/v1/transactions/:token/${operation}`, async (request, reply) => {
      const input = parseTransaction(fieldsOf(request, 'transaction'), request);
      const result = await transactions.reference(callerOf(request).environment, request.params.token, operation, input);
      return sendResult(request, reply, result, query);
    });
  }
  app.route<TokenParams>({
    method: ['PUT', 'POST'],
    url: '/v1/transactions/:token/void',
    handler: async (request, reply) => {
      const input = parseTransaction(fieldsOf(request, 'transaction'), request);
      const result = await transactions.reference(callerOf(request).environment, request.params.token, 'void', input);
      return sendResult(request, reply, result, query);
    },
  });
  app.post<TokenParams>('/v1/transactions/:token/complete', async (request, reply) => {
    fieldsOf(request, 'transaction');
    const result = await transactions.complete(callerOf(request).environment, request.params.token, request);
    return sendResult(request, reply, result, query);
  });

  app.get('/v1/transactions', { config: { rateLimits: ['transactions_list'] } }, async (request, reply) => {
    const params = request.query as Record<string, unknown>;
    const environment = callerOf(request).environment;
    const page = await query.withChains(environment, await query.list(environment, parseListQuery(params), { ...(typeof params.state === 'string' ? { state: params.state } : {}) }));
    return sendPage(request, reply, page);
  });

  app.get<TokenParams>('/v1/gateways/:token/transactions', async (request, reply) => {
    const params = request.query as Record<string, unknown>;
    const environment = callerOf(request).environment;
    const listed = await query.list(environment, parseListQuery(params), {
      gatewayToken: request.params.token,
      ...(typeof params.state === 'string' ? { state: params.state } : {}),
    });
    return sendPage(request, reply, await query.withChains(environment, listed));
  });

  app.get<TokenParams>('/v1/transactions/:token', async (request, reply) => {
    const environment = callerOf(request).environment;
    const page = await query.withChains(environment, await query.show(environment, request.params.token));
    return sendWire(request, reply, 200, 'transaction', firstView(page));
  });

  // Plain text whatever the suffix (clients call it without one), scrubbed when it was stored.
  app.get<TokenParams>('/v1/transactions/:token/transcript', { config: { plainText: true } }, async (request, reply) => {
    const transcript = await query.transcript(callerOf(request).environment, request.params.token);
    return reply.code(200).type('text/plain; charset=utf-8').send(transcript);
  });
}
