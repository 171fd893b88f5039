import { cpuPerRequest } from './rounds.js';
import type { BenchReport, Figures } from './summary.js';

/** Lays out rows as columns: the first left-aligned, the others right-aligned. */
export function columns(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0))).join('   ').trimEnd());
}

const number = (value: number, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function figuresRow(figures: Figures, ratio: string): string[] {
  const flags = figures.non_2xx + figures.errors > 0 ? `  (${figures.non_2xx} non-2xx, ${figures.errors} errors)` : '';
  return [figures.name, number(figures.rps), number(figures.p50_ms, 2), number(figures.p99_ms, 2), `${ratio}${flags}`];
}

/** The human-readable report `npm run bench` prints. */
const optional = (value: number | null, digits: number) => (value === null ? '-' : number(value, digits));

export function formatReport(report: BenchReport): string {
  const s = report.settings;
  const lines = [
    `Coffer bench (${s.mode}): ${s.connections} connections, ${s.duration_seconds} s per run${(s.rounds ?? 1) > 1 ? `, ${s.rounds} rounds per scenario and build (each row its build's median round)` : ''}, stores: ${s.stores.join(', ')}`,
    `Rate limits lifted for the run: COFFER_RATE_LIMITS='${s.rate_limits}'. TLS ${s.tls} (as behind a terminating proxy), logs at ${s.log_level}. Master key: ${s.master_key_provider ?? 'env'}.`,
    `Machine: ${report.machine.cpus} CPUs, node ${report.machine.node}, load average ${report.machine.load_average_before.join(' ')} before, ${report.machine.load_average_after.join(' ')} after.`,
    `Disk: fdatasync after a 12 KiB append in ${report.machine.fdatasync.directory}: p50 ${number(report.machine.fdatasync.p50_ms, 3)} ms, p99 ${number(report.machine.fdatasync.p99_ms, 3)} ms (the floor under every durable commit).`,
    '',
  ];
  const rows = [['scenario', 'req/s', 'p50 ms', 'p99 ms', 'ratio to baseline']];
  rows.push(figuresRow(report.baseline, '1.000'));
  if (report.fake_gateway !== null) rows.push(figuresRow(report.fake_gateway, '-'));
  for (const scenario of report.scenarios) rows.push(figuresRow(scenario, scenario.ratio_to_baseline.toFixed(3)));
  lines.push(...columns(rows));
  if (report.gateway_overhead.length > 0) {
    lines.push('', 'Coffer on top of a gateway that answers after 50 ms (added = through Coffer minus the gateway alone):');
    const overhead = [['', 'gateway p50/p99', 'via Coffer p50/p99', 'added p50', 'added p99']];
    for (const row of report.gateway_overhead) {
      overhead.push([
        `${row.build === 'compare' ? 'compare ' : ''}${row.store}`,
        `${number(row.gateway_p50_ms, 2)} / ${number(row.gateway_p99_ms, 2)}`,
        `${number(row.coffer_p50_ms, 2)} / ${number(row.coffer_p99_ms, 2)}`,
        `${number(row.added_p50_ms, 2)} ms`,
        `${number(row.added_p99_ms, 2)} ms`,
      ]);
    }
    lines.push(...columns(overhead));
  }
  // Every scenario the server's /metrics were read for, with or without commits (a show commits nothing).
  const committed = report.scenarios.filter((scenario) => scenario.commits !== undefined && scenario.commits !== null);
  if (committed.length > 0) {
    lines.push('', 'Store commits and server CPU during each measured run (from the server\'s /metrics; on SQLite one commit is one group-commit fsync):');
    const table = [['scenario', 'CPU µs/request', 'commits', 'transactions', 'mean batch', 'p99 batch', 'commit p50 ms', 'commit p99 ms']];
    for (const scenario of committed) {
      const c = scenario.commits as NonNullable<typeof scenario.commits>;
      table.push([scenario.name, optional(cpuPerRequest(scenario), 0), number(c.commits, 0), number(c.transactions, 0), optional(c.meanBatchSize, 2), optional(c.p99BatchSize, 0), optional(c.p50Ms, 3), optional(c.p99Ms, 3)]);
    }
    lines.push(...columns(table));
  }
  if (report.rounds !== undefined && report.rounds.length > 0) {
    lines.push('', 'Server CPU per request, current / compare, round by round (the order of the two builds swapped every round):');
    const table = [['scenario', 'per round', 'median']];
    for (const row of report.rounds) table.push([`${row.store}: ${row.scenario}`, row.cpu_ratios.map((ratio) => ratio.toFixed(3)).join(' '), optional(row.median_cpu_ratio, 3)]);
    lines.push(...columns(table));
  }
  const rss = Object.entries(report.peak_rss_mb).map(([name, mb]) => `${name} ${mb === null ? 'n/a' : `${mb} MiB`}`);
  lines.push('', `Peak RSS: ${rss.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
