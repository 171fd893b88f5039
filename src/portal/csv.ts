/**
 * CSV for people's spreadsheets (RFC 4180: every cell quoted, quotes doubled, CRLF lines), safe
 * against formula injection (OWASP "CSV Injection"): a cell that a spreadsheet would read as a
 * formula — starting with =, +, -, @, a tab or a carriage return — is prefixed with a single
 * quote, so it is shown as text and never evaluated.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '""';
  const text = typeof value === 'string' ? value : String(value);
  const safe = typeof value === 'string' && FORMULA_START.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

export function csvLine(cells: ReadonlyArray<string | number | boolean | null | undefined>): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
