import type { SelectQueryBuilder } from 'kysely';

/** One page of a list, in Spreedly's terms: after `since` (exclusive), `count` items, in `order`. */
export interface PageRequest {
  /** `seq` of the `since_token` record, or null to start at the beginning. */
  sinceSeq: number | null;
  order: 'asc' | 'desc';
  count: number;
}

/** Applies keyset pagination on `seq`; cost stays flat however deep the page is. */
export function applyPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  seqColumn: string,
  page: PageRequest,
): SelectQueryBuilder<DB, TB, O> {
  // Kysely cannot type a column name passed through a generic helper; the callers pass literals.
  const column = seqColumn as never;
  let q = query;
  if (page.sinceSeq !== null) q = q.where(column, page.order === 'asc' ? '>' : '<', page.sinceSeq as never);
  return q.orderBy(column, page.order).limit(page.count);
}
