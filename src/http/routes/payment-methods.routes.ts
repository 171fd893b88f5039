import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TOKENIZATION_LIMITS } from '../../limits/rate-limit-policy.js';
import { parseListQuery } from '../../services/list-query.js';
import type { PaymentMethodListFilter, PaymentMethodService, VaultOutcome } from '../../services/payment-method.service.js';
import { callerOf } from '../auth.js';
import { emptyFieldsOf, fieldsOf } from '../body.js';
import { sendWire, sendWireList } from '../reply.js';
import { paymentMethodView } from '../views/payment-method.view.js';
import { vaultTransactionView } from '../views/vault-transaction.view.js';
import { transactionView } from '../views/transaction.view.js';
import type { TransactionQueryService } from '../../services/transactions/transaction-query.service.js';
import { parseCreate, parseRecache, parseRedact, parseUpdate } from './payment-methods.schemas.js';

type TokenParams = { Params: { token: string } };

/** `state=retained,cached` (default retained) and `metadata[key]=value` filters. */
function listFilter(query: Record<string, unknown>): PaymentMethodListFilter {
  const rawState = typeof query.state === 'string' && query.state.trim() !== '' ? query.state : 'retained';
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    const match = /^metadata\[(.+)\]$/.exec(name);
    if (match !== null && typeof value === 'string') metadata[match[1] as string] = value;
  }
  return { states: rawState.split(',').map((state) => state.trim()).filter((state) => state !== ''), metadata };
}

function sendOutcome(request: FastifyRequest, reply: FastifyReply, status: number, outcome: VaultOutcome): FastifyReply {
  return sendWire(request, reply, status, 'transaction', vaultTransactionView(outcome.transaction, outcome.paymentMethod));
}

/** The transparent redirect's part of `POST payment_methods` (form posts only; src/card-capture). */
export interface FormPostHandling {
  isFormPost(request: FastifyRequest): boolean;
  preValidation(request: FastifyRequest): Promise<void>;
  handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  errorHandler(error: Error, request: FastifyRequest, reply: FastifyReply): FastifyReply;
}

/** API.md §4 Payment methods. Retain, redact and recache take PUT or POST (clients differ). */
export function paymentMethodRoutes(app: FastifyInstance, paymentMethods: PaymentMethodService, transactionQuery: TransactionQueryService, formPost?: FormPostHandling): void {
  // Card testing: per BIN + last four (keyed by a hash of those digits) and per client IP.
  const tokenizationLimits = { rateLimits: TOKENIZATION_LIMITS };
  const formOptions = formPost === undefined ? {} : { preValidation: formPost.preValidation, errorHandler: formPost.errorHandler };
  app.post('/v1/payment_methods', { config: { ...tokenizationLimits, formPost: formPost !== undefined }, ...formOptions }, async (request, reply) => {
    if (formPost !== undefined && formPost.isFormPost(request)) return formPost.handle(request, reply);
    const input = parseCreate(fieldsOf(request, 'payment_method'));
    return sendOutcome(request, reply, 201, await paymentMethods.create(callerOf(request).environment, input, request));
  });

  app.get('/v1/payment_methods', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const rows = await paymentMethods.list(callerOf(request).environment, listFilter(query), parseListQuery(query));
    return sendWireList(request, reply, 'payment_methods', 'payment_method', rows, paymentMethodView);
  });

  app.get<TokenParams>('/v1/payment_methods/:token', async (request, reply) => {
    const row = await paymentMethods.show(callerOf(request).environment, request.params.token);
    return sendWire(request, reply, 200, 'payment_method', paymentMethodView(row));
  });

  app.put<TokenParams>('/v1/payment_methods/:token', async (request, reply) => {
    const input = parseUpdate(fieldsOf(request, 'payment_method'), emptyFieldsOf(request, 'payment_method'));
    const row = await paymentMethods.update(callerOf(request).environment, request.params.token, input, request);
    return sendWire(request, reply, 200, 'payment_method', paymentMethodView(row));
  });

  app.route<TokenParams>({
    method: ['PUT', 'POST'],
    url: '/v1/payment_methods/:token/retain',
    handler: async (request, reply) => {
      const outcome = await paymentMethods.retain(callerOf(request).environment, request.params.token, request);
      return sendOutcome(request, reply, outcome.succeeded ? 200 : 422, outcome);
    },
  });

  app.route<TokenParams>({
    method: ['PUT', 'POST'],
    url: '/v1/payment_methods/:token/redact',
    handler: async (request, reply) => {
      const options = parseRedact(fieldsOf(request, 'transaction'));
      return sendOutcome(request, reply, 200, await paymentMethods.redact(callerOf(request).environment, request.params.token, options, request));
    },
  });

  app.route<TokenParams>({
    method: ['PUT', 'POST'],
    url: '/v1/payment_methods/:token/recache',
    handler: async (request, reply) => {
      const verificationValue = parseRecache(fieldsOf(request, 'payment_method'));
      const outcome = await paymentMethods.recache(callerOf(request).environment, request.params.token, verificationValue, request);
      return sendOutcome(request, reply, outcome.succeeded ? 200 : 422, outcome);
    },
  });

  app.get<TokenParams>('/v1/payment_methods/:token/transactions', async (request, reply) => {
    const params = request.query as Record<string, unknown>;
    const environment = callerOf(request).environment;
    const filter = typeof params.state === 'string' ? { state: params.state } : {};
    const { transactions } = await paymentMethods.transactions(environment, request.params.token, parseListQuery(params), filter);
    // The same full shape as GET /v1/transactions, as on Spreedly: gateway transactions with
    // amount and gateway fields, the vault's own lean, each with the methods it nests.
    const page = await transactionQuery.withPaymentMethods(environment, transactions);
    const lookup = (token: string | null) => (token === null ? null : (page.paymentMethods.get(token) ?? null));
    return sendWireList(request, reply, 'transactions', 'transaction', page.transactions, (transaction) => transactionView(transaction, lookup));
  });
}
