/** Prints a result: one JSON document with --json, else aligned `name  value` lines. */
export function printResult(result: object | object[], json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const rows = Array.isArray(result) ? result : [result];
  for (const [index, row] of rows.entries()) {
    if (index > 0) process.stdout.write('\n');
    const entries = Object.entries(row);
    const width = Math.max(...entries.map(([name]) => name.length));
    for (const [name, value] of entries) {
      process.stdout.write(`${name.padEnd(width)}  ${value === null ? '-' : Array.isArray(value) ? value.join(',') : String(value)}\n`);
    }
  }
}

/** The one stderr line and non-zero exit every failed command ends with. */
export function fail(message: string, code = 1): never {
  process.stderr.write(`coffer: ${message}\n`);
  process.exit(code);
}
