import { describe, expect, it } from 'vitest';
import { formatScaleReport, type ScaleReport, type ScaleStoreResult } from '../../bench/scale-report.js';

const figures = (rps: number) => ({ name: 'show a transaction', rps, p50_ms: 2, p99_ms: 7, requests: rps * 10, non_2xx: 0, errors: 0 });

function report(peak: ScaleStoreResult['peak_rss_mb']): ScaleReport {
  return {
    settings: { connections: 10, duration_seconds: 10, rate_limits: '{"*":null}', tls: 'off' },
    machine: { node: 'v20.20.2', cpus: 2, load_average_before: [1, 1, 1], load_average_after: [1, 1, 1] },
    stores: [
      {
        store: 'sqlite',
        rows: { paymentMethods: 1000, transactions: 1000 },
        seeding: { payment_methods_per_second: 500, transactions_per_second: 500, payment_method_seconds: 2, transaction_seconds: 2 },
        empty: { show_transaction: figures(4000) },
        seeded: { show_transaction: figures(3900) },
        pagination: [],
        store_size_mb: 12,
        peak_rss_mb: peak,
      },
    ],
  };
}

describe('the scale report', () => {
  it("gives the server's peak RSS over the empty store's runs and over the seeded store's", () => {
    const text = formatScaleReport(report({ empty: 231, seeded: 412 }));
    expect(text).toContain("sqlite: server peak RSS 231 MiB over the empty store's runs, 412 MiB over the seeded store's");
    expect(text).toContain('show a transaction');
  });

  it('says n/a for a peak the machine could not tell', () => {
    expect(formatScaleReport(report({ empty: null, seeded: 98 }))).toContain("server peak RSS n/a over the empty store's runs, 98 MiB over the seeded store's");
  });
});
