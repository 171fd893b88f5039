import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { csvRowToLine, unknownColumns } from './csv-record.js';

/*
 * An import file, read as it streams: one value per row, numbered from 1 (docs/portability.md).
 * Nothing holds more than a line (or a CSV record) and what the stream buffers.
 */

export type ImportFormat = 'jsonl' | 'csv';

/** A row of the file: its parsed value, or why it could not be read (never its text). */
export type ImportLine = { row: number; value: unknown } | { row: number; malformed: true } | { row: number; invalidField: string };

/** The file as a whole cannot be imported (nothing was): the message names the problem, never a value. */
export class ImportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportFileError';
  }
}

/** Lines of JSON; a blank line is skipped (still counted, so row N is line N). */
async function* jsonLines(input: Readable): AsyncGenerator<ImportLine> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let row = 0;
  for await (const line of lines) {
    row += 1;
    if (line.trim() === '') continue;
    try {
      yield { row, value: JSON.parse(line) as unknown };
    } catch {
      yield { row, malformed: true };
    }
  }
}

/**
 * CSV records with a header row (not counted). A header naming a column the format does not have
 * refuses the file; a record that cannot be read (wrong number of cells) is a malformed row.
 */
async function* csvRows(input: Readable): AsyncGenerator<ImportLine> {
  const parser = parse({
    bom: true,
    info: true,
    trim: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    columns: (header: string[]) => {
      const unknown = unknownColumns(header);
      if (unknown.length > 0) throw new ImportFileError(`Unknown CSV column(s): ${unknown.map((name) => JSON.stringify(name.slice(0, 40))).join(', ')}`);
      return header;
    },
  });
  // A refused record does not count in `info.records`: its row number is worked out from how many
  // good records came before it and how many were refused before it.
  const skippedAfter: number[] = [];
  const pending: ImportLine[] = [];
  parser.on('skip', (error: { records?: number }) => {
    const before = error.records ?? 0;
    pending.push({ row: before + skippedAfter.length + 1, malformed: true });
    skippedAfter.push(before);
  });
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  for await (const item of parser as AsyncIterable<{ record: Record<string, string>; info: { records: number } }>) {
    const good = item.info.records;
    const row = good + skippedAfter.filter((before) => before < good).length;
    while (pending.length > 0 && (pending[0] as ImportLine).row < row) yield pending.shift() as ImportLine;
    const line = csvRowToLine(item.record);
    yield 'invalidJson' in line ? { row, invalidField: line.invalidJson as string } : { row, value: line };
  }
  yield* pending;
}

/** The rows of `input` in `format`. */
export function readRows(input: Readable, format: ImportFormat): AsyncGenerator<ImportLine> {
  return format === 'csv' ? csvRows(input) : jsonLines(input);
}

/** The format of a file by its first meaningful byte: `{` is JSON Lines, anything else CSV. */
export function sniffFormat(firstBytes: Buffer): ImportFormat {
  const text = firstBytes.toString('utf8').replace(/^\uFEFF/, '').trimStart();
  return text.startsWith('{') ? 'jsonl' : 'csv';
}
