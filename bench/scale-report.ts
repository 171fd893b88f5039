import { columns } from './report.js';
import type { Figures, StoreKind } from './summary.js';

/** One store's scale run: the same scenarios on an empty store and on the seeded one. */
export interface ScaleStoreResult {
  store: StoreKind;
  rows: { paymentMethods: number; transactions: number };
  seeding: { payment_methods_per_second: number; transactions_per_second: number; payment_method_seconds: number; transaction_seconds: number };
  /** Scenario id → figures before and after seeding. */
  empty: Record<string, Figures>;
  seeded: Record<string, Figures>;
  /** The list's page after `since_token` at a fraction of the data, seeded store. */
  pagination: Array<{ depth: string; figures: Figures }>;
  store_size_mb: number | null;
  /** The server's peak RSS (VmHWM) over the empty store's runs and over the seeded store's; null where /proc has none. */
  peak_rss_mb: { empty: number | null; seeded: number | null };
}

/** What `npm run bench:scale -- --json` prints. */
export interface ScaleReport {
  settings: { connections: number; duration_seconds: number; rate_limits: string; tls: 'off' };
  machine: { node: string; cpus: number; load_average_before: number[]; load_average_after: number[] };
  stores: ScaleStoreResult[];
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** p50 on the seeded store relative to the empty one, e.g. `+12%`. */
export function change(before: number, after: number): string {
  if (before <= 0) return 'n/a';
  const percent = Math.round(((after - before) / before) * 100);
  return `${percent >= 0 ? '+' : ''}${percent}%`;
}

function mebibytes(value: number | null): string {
  return value === null ? 'n/a' : `${value} MiB`;
}

/** The human-readable scale report. */
export function formatScaleReport(report: ScaleReport): string {
  const lines = [
    `Coffer scale bench: ${report.settings.connections} connections, ${report.settings.duration_seconds} s per run, COFFER_RATE_LIMITS='${report.settings.rate_limits}', TLS ${report.settings.tls}.`,
    `Machine: ${report.machine.cpus} CPUs, node ${report.machine.node}, load average ${report.machine.load_average_before.join(' ')} before, ${report.machine.load_average_after.join(' ')} after.`,
  ];
  for (const result of report.stores) {
    lines.push(
      '',
      `${result.store}: seeded ${result.rows.paymentMethods.toLocaleString('en-US')} payment methods in ${result.seeding.payment_method_seconds} s (${result.seeding.payment_methods_per_second.toLocaleString('en-US')}/s, sealed by the vault) and ${result.rows.transactions.toLocaleString('en-US')} transactions in ${result.seeding.transaction_seconds} s (${result.seeding.transactions_per_second.toLocaleString('en-US')}/s); store ${result.store_size_mb === null ? 'size n/a' : `${result.store_size_mb} MiB`}`,
      `${result.store}: server peak RSS ${mebibytes(result.peak_rss_mb.empty)} over the empty store's runs, ${mebibytes(result.peak_rss_mb.seeded)} over the seeded store's`,
    );
    const rows = [['scenario', 'empty req/s', 'p50', 'p99', 'seeded req/s', 'p50', 'p99', 'p50 change']];
    for (const [id, before] of Object.entries(result.empty)) {
      const after = result.seeded[id];
      if (after === undefined) continue;
      rows.push([before.name, fixed(before.rps, 0), fixed(before.p50_ms), fixed(before.p99_ms), fixed(after.rps, 0), fixed(after.p50_ms), fixed(after.p99_ms), change(before.p50_ms, after.p50_ms)]);
    }
    lines.push(...columns(rows));
    if (result.pagination.length > 0) {
      lines.push('', 'list transactions, the page after since_token at a depth of the seeded data:');
      lines.push(...columns([['depth', 'req/s', 'p50 ms', 'p99 ms'], ...result.pagination.map(({ depth, figures }) => [depth, fixed(figures.rps, 0), fixed(figures.p50_ms), fixed(figures.p99_ms)])]));
    }
  }
  return `${lines.join('\n')}\n`;
}
