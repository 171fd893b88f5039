import type { FastifyInstance } from 'fastify';
import { AppError, fieldError } from '../../domain/errors.js';
import type { AuditService } from '../../services/audit.service.js';
import { auditFilterOf } from '../../services/audit-filter.js';
import { callerOf } from '../auth.js';
import { sendWireList } from '../reply.js';
import { auditEventView } from '../views/audit.view.js';

const DEFAULT_COUNT = 20;
const MAX_COUNT = 100;

/**
 * `GET /v1/audit_events`: the organization's audit log, newest first, for an organization-wide
 * admin secret. Filters `user`, `action`, `from`, `to` (dates, inclusive); paging with
 * `before=<cursor of the last event>` and `count` (up to 100).
 */
export function auditRoutes(app: FastifyInstance, audit: AuditService): void {
  app.get('/v1/audit_events', { config: { access: 'admin', organizationWide: true } }, async (request, reply) => {
    const query = Object.fromEntries(Object.entries((request.query ?? {}) as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
    let count = DEFAULT_COUNT;
    if (query.count !== undefined) {
      if (!/^\d{1,3}$/.test(query.count) || Number(query.count) < 1 || Number(query.count) > MAX_COUNT) throw new AppError(fieldError.invalid('count'));
      count = Number(query.count);
    }
    const rows = await audit.list(callerOf(request).organization.token, auditFilterOf(query, count));
    return sendWireList(request, reply, 'audit_events', 'audit_event', rows, auditEventView);
  });
}
