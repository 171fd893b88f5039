import { AppError, fieldError } from '../domain/errors.js';
import type { PageRequest } from '../store/repositories/page.js';

/** A list request as the API states it, before `since_token` is resolved to a position. */
export interface ListQuery {
  sinceToken: string | null;
  order: 'asc' | 'desc';
  count: number;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** Reads `since_token`, `order` and `count` from a query string (wire reference §4). */
export function parseListQuery(query: Record<string, unknown>): ListQuery {
  const errors = [];
  const since = typeof query.since_token === 'string' && query.since_token !== '' ? query.since_token : null;
  const orderRaw = typeof query.order === 'string' && query.order !== '' ? query.order.toLowerCase() : 'asc';
  if (orderRaw !== 'asc' && orderRaw !== 'desc') errors.push(fieldError.inclusion('order'));
  let count = DEFAULT_PAGE_SIZE;
  if (query.count !== undefined && query.count !== '') {
    const raw = String(query.count);
    if (!/^\d+$/.test(raw) || Number(raw) < 1) errors.push(fieldError.invalid('count'));
    // Larger pages are clamped rather than refused, as Spreedly does.
    else count = Math.min(Number(raw), MAX_PAGE_SIZE);
  }
  if (errors.length > 0) throw new AppError(errors);
  return { sinceToken: since, order: orderRaw as 'asc' | 'desc', count };
}

/** `since_token` names no record of this list. */
function unknownSinceToken(): AppError {
  return new AppError({ key: 'errors.invalid', attribute: 'since_token', message: 'Since token is invalid' });
}

/**
 * The page a list query asks for: `since_token` resolved to its position by `find`, which
 * returns the record only when it belongs to this list (else 422 on `since_token`).
 */
export async function pageAfter(query: ListQuery, find: (token: string) => Promise<{ seq: number } | undefined>): Promise<PageRequest> {
  let sinceSeq: number | null = null;
  if (query.sinceToken !== null) {
    const since = await find(query.sinceToken);
    if (since === undefined) throw unknownSinceToken();
    sinceSeq = since.seq;
  }
  return { sinceSeq, order: query.order, count: query.count };
}
