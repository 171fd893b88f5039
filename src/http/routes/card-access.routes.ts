import type { FastifyInstance } from 'fastify';
import { AppError, fieldError } from '../../domain/errors.js';
import type { CardAccessService } from '../../services/card-access.service.js';
import { callerOf } from '../auth.js';
import { sendWireList } from '../reply.js';
import { cardAccessView } from '../views/card-access.view.js';

const DEFAULT_COUNT = 20;
const MAX_COUNT = 100;

/** A positive whole number of at most `digits` digits, or an `errors.invalid` on `name`. */
function positive(value: string, name: string, digits: number): number {
  if (!new RegExp(`^\\d{1,${digits}}$`).test(value) || Number(value) < 1) throw new AppError(fieldError.invalid(name));
  return Number(value);
}

/**
 * `GET /v1/payment_methods/<token>/access_log` (docs/audit.md): who opened the method's card data
 * and why, newest first, for an admin secret of the environment. Paging with `before=<cursor>` and
 * `count` (up to 100).
 */
export function cardAccessRoutes(app: FastifyInstance, cardAccess: CardAccessService): void {
  app.get<{ Params: { token: string } }>('/v1/payment_methods/:token/access_log', { config: { access: 'admin' } }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const count = typeof query.count === 'string' ? Math.min(positive(query.count, 'count', 3), MAX_COUNT + 1) : DEFAULT_COUNT;
    if (count > MAX_COUNT) throw new AppError(fieldError.invalid('count'));
    const before = typeof query.before === 'string' ? positive(query.before, 'before', 15) : undefined;
    const rows = await cardAccess.accessLog(callerOf(request).environment.key, request.params.token, { count, ...(before === undefined ? {} : { before }) });
    return sendWireList(request, reply, 'access_log', 'access', rows, cardAccessView);
  });
}
