/**
 * Fields the portal's search forms share (docs/portal.md, "Find a card", "Find a payment"): a
 * range of UTC days, both inclusive, and the keyset position of a page. A bad value is passed to
 * `refuse` with its field, so each form words the message with its own labels.
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** `from` as the start of its day and `to` as the start of the day after, ISO; the days refused are left out. */
export function dayRange(given: { from?: string; to?: string }, refuse: (field: 'from' | 'to', message: string) => void): { from?: string; to?: string } {
  const range: { from?: string; to?: string } = {};
  for (const field of ['from', 'to'] as const) {
    const value = given[field];
    if (value === undefined) continue;
    if (!DATE.test(value) || Number.isNaN(Date.parse(value))) {
      refuse(field, 'must be a date (YYYY-MM-DD).');
      continue;
    }
    const start = Date.parse(`${value}T00:00:00.000Z`);
    range[field] = new Date(field === 'from' ? start : start + DAY_MS).toISOString();
  }
  return range;
}

/** The `before` position of a page, or undefined when none was given or it is refused. */
export function pagePosition(before: string | undefined, refuse: (message: string) => void): number | undefined {
  if (before === undefined) return undefined;
  if (/^\d{1,15}$/.test(before)) return Number(before);
  refuse('is not a page of this search.');
  return undefined;
}
