import { AppError, fieldError } from '../domain/errors.js';
import type { AuditFilter } from '../domain/audit-event.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * An audit filter from query parameters (portal form and admin API alike): `user` (an email or
 * access secret key), `action`, `from` and `to` (dates, UTC, both inclusive), `before` (the
 * keyset cursor). Bad values are a 422 naming the parameter.
 */
export function auditFilterOf(query: Record<string, string>, count: number): AuditFilter {
  const filter: AuditFilter = { count };
  if (query.user !== undefined && query.user !== '') filter.actor = query.user;
  if (query.action !== undefined && query.action !== '') filter.action = query.action;
  if (query.from !== undefined && query.from !== '') filter.from = dayStart(query.from, 'from');
  if (query.to !== undefined && query.to !== '') filter.to = new Date(Date.parse(dayStart(query.to, 'to')) + 86_400_000).toISOString();
  if (query.before !== undefined && query.before !== '') {
    if (!/^\d{1,15}$/.test(query.before)) throw new AppError(fieldError.invalid('before'));
    filter.before = Number(query.before);
  }
  return filter;
}

function dayStart(value: string, name: string): string {
  if (!DATE.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00.000Z`))) throw new AppError(fieldError.invalid(name));
  return `${value}T00:00:00.000Z`;
}
