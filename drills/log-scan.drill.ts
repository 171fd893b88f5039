import fs from 'node:fs';
import path from 'node:path';
import { BENCH_PANS } from '../bench/bench-tenant.js';
import { findCardData, maskFinding } from '../test/helpers/leak-scan.js';
import type { DrillReport } from './drill-report.js';
import { FUZZ_PAN } from './fuzz-inputs.js';

/**
 * Reads every log line the drills' servers wrote and looks for card data: the card numbers the
 * drills sent, any known test card, and any Luhn-valid run of 13–19 digits (test/helpers/leak-scan.ts).
 */
export function logScanDrill(files: readonly string[]): DrillReport {
  const known = [...BENCH_PANS, FUZZ_PAN];
  const lost: string[] = [];
  let lines = 0;
  let bytes = 0;
  const scanned = files.filter((file) => fs.existsSync(file));
  for (const file of scanned) {
    const text = fs.readFileSync(file, 'utf8');
    bytes += Buffer.byteLength(text);
    text.split('\n').forEach((line, index) => {
      if (line === '') return;
      lines += 1;
      const found = findCardData(line, known);
      if (found.length > 0) lost.push(`${path.basename(file)}:${index + 1}: ${found.map(maskFinding).join(', ')}`);
    });
  }
  return {
    name: 'log scan for card numbers',
    ok: lost.length === 0 && lines > 0,
    tried: [`every line of the ${scanned.length} log files the drills' servers wrote`],
    lost: lines === 0 ? ['no log lines to scan: the drills wrote no logs'] : lost,
    figures: { files: scanned.length, lines, bytes },
    logFiles: [],
  };
}
