import type { Wire } from './wire.js';

/*
 * A response body written a step at a time, so that a large one (a page of 100 payment methods
 * whose `data` is as large as input allows: hundreds of MB of XML) never holds the event loop for
 * long: the caller writes a step, yields, writes the next (src/http/sliced-body.ts). The bytes are
 * those the one-call encoders (encodeXml, encodeJson) print for the same tree; only when they are
 * produced changes. docs/wire-compatibility.md, "Large pages".
 */

/** What one step may still write; the writer lowers both as it goes. */
export interface WriteBudget {
  /** Values (elements, members, items) it may still start. */
  values: number;
  /** Characters it may still write. */
  chars: number;
}

export function budgetSpent(budget: WriteBudget): boolean {
  return budget.values <= 0 || budget.chars <= 0;
}

/** A body being written; see the comment at the top. */
export interface BodyWriter {
  /** Writes on until the body is done (true) or `budget` is spent (false). Throws what the one-call encoder throws. */
  advance(budget: WriteBudget): boolean;
  /** The text written since the last take, as far as it is final ('' while a part written may still be taken back). */
  take(): string;
  /** Forgets everything it holds (after the last take, a throw, or when the body is abandoned). */
  close(): void;
}

/** The items of a list body, each made when it is written (a view of a stored row), then dropped. */
export interface ListItems {
  readonly count: number;
  item(index: number): Wire;
}

/** A list's items from rows and the view of one. */
export function listItems<Row>(rows: readonly Row[], view: (row: Row) => Wire): ListItems {
  return { count: rows.length, item: (index) => view(rows[index] as Row) };
}
