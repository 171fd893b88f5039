import type * as OpenPgp from 'openpgp';

let loading: Promise<typeof OpenPgp> | null = null;

/**
 * OpenPGP.js, loaded on first use: only encrypted imports, import keys and exports need it, and it
 * is the largest library Coffer has (2.3 MB of source, ~4 MB of heap once loaded). A process that
 * never touches them (most servers, a plain import) does not hold it; a long import's resident
 * memory grows with what the process holds (docs/benchmarks.md, "Import").
 */
export function openpgpModule(): Promise<typeof OpenPgp> {
  loading ??= import('openpgp');
  return loading;
}
