import type { SelectQueryBuilder } from 'kysely';
import { nextBulkTurn } from '../../limits/bulk-turns.js';

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

/** The first statement of a page reads this many rows: a default page (20) in one, as ever. */
const FIRST_READ_ROWS = 20;

/** Each later statement reads about this many characters of rows, judged by the rows read so far. */
const READ_BATCH_CHARS = 512 * 1024;

/** Characters of a row's text columns: what reading it costs (the free-form JSON, the transcript). */
function rowChars(row: object): number {
  let chars = 0;
  for (const value of Object.values(row)) if (typeof value === 'string') chars += value.length;
  return chars;
}

/** How much the statements so far read, and so how many units (rows, keys) the next may ask for. */
class BatchSizer {
  private units = 0;
  private chars = 0;

  add(units: number, rows: readonly object[]): void {
    this.units += units;
    for (const row of rows) this.chars += rowChars(row);
  }

  /** At least one, at most `remaining`. */
  next(remaining: number): number {
    const perUnit = Math.max(1, this.chars / Math.max(1, this.units));
    return Math.max(1, Math.min(remaining, Math.floor(READ_BATCH_CHARS / perUnit)));
  }
}

/**
 * The rows of `page`, read by `read` in keyset statements of at most about READ_BATCH_CHARS each
 * (the first, FIRST_READ_ROWS rows), with a bulk turn of the event loop between two
 * (src/limits/bulk-turns.ts). better-sqlite3 reads synchronously: 100 payment methods whose `data`
 * is as large as input allows are ~8 MB, and one statement for them held the event loop for tens
 * of ms. Each statement goes on after the last row of the one before, with the same filters, so
 * the rows are those of one statement when nothing changes meanwhile; a row written meanwhile is
 * read as it is then. The page is never short: it has `count` rows unless the list ends
 * (docs/wire-compatibility.md, "Large pages").
 */
export async function readPage<Row extends { seq: number }>(page: PageRequest, read: (part: PageRequest) => Promise<Row[]>): Promise<Row[]> {
  const rows: Row[] = [];
  const sizer = new BatchSizer();
  let part: PageRequest = { ...page, count: Math.min(page.count, FIRST_READ_ROWS) };
  for (;;) {
    const batch = await read(part);
    rows.push(...batch);
    const last = batch[batch.length - 1];
    if (last === undefined || batch.length < part.count || rows.length >= page.count) return rows;
    // Sized only when another statement follows: a default page is one statement, and measuring
    // its rows' text was a few percent of a list request.
    sizer.add(batch.length, batch);
    await nextBulkTurn();
    part = { sinceSeq: last.seq, order: page.order, count: sizer.next(page.count - rows.length) };
  }
}

/** The rows `read` finds for `keys`, asked a group of keys a statement, sized as readPage sizes its statements. */
export async function readInGroups<Key, Row extends object>(keys: readonly Key[], read: (group: Key[]) => Promise<Row[]>): Promise<Row[]> {
  const rows: Row[] = [];
  const sizer = new BatchSizer();
  let start = 0;
  let size = FIRST_READ_ROWS;
  while (start < keys.length) {
    if (start > 0) await nextBulkTurn();
    const group = keys.slice(start, start + size);
    const batch = await read(group);
    rows.push(...batch);
    start += group.length;
    if (start >= keys.length) break;
    sizer.add(group.length, batch);
    size = sizer.next(keys.length - start);
  }
  return rows;
}
