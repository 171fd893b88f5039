/** The states of an import job: running until its file is read to the end, then succeeded or failed. */
export const IMPORT_STATES = ['running', 'succeeded', 'failed'] as const;
export type ImportState = (typeof IMPORT_STATES)[number];

/** A refused row: its number (from 1), why, and at most the name of the field concerned; never a value. */
export interface ImportRejection {
  row: number;
  reason: string;
  field?: string;
}

/** A row whose token did not fit Coffer's token rules (or had none), and the token it got. */
export interface ImportRemap {
  row: number;
  old_token: string | null;
  new_token: string;
}

/**
 * What an import did (docs/portability.md, "Running an import"). The lists keep their first
 * `IMPORT_REPORT_LIST_LIMIT` entries (`truncated` says more were left out; the CLI writes the
 * whole token map with `--map`); the counts are always whole.
 */
export interface ImportReport {
  rows: number;
  imported: number;
  skipped: number;
  rejected: number;
  rejections: ImportRejection[];
  remapped: ImportRemap[];
  truncated: boolean;
}

export const IMPORT_REPORT_LIST_LIMIT = 10_000;

/** An import of a file into one environment, as its progress and report are kept. */
export interface PaymentMethodImport {
  token: string;
  environmentKey: string;
  state: ImportState;
  /** `jsonl` or `csv`; null until the file's first bytes were read. */
  format: string | null;
  encrypted: boolean;
  /** The progress (rows read, imported, skipped, rejected) and, once ended, the lists. */
  report: ImportReport;
  /** Why the file as a whole was refused or the job stopped (never a value of the file). */
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An environment's import key pair: the public half armored, the private half sealed. */
export interface ImportKey {
  environmentKey: string;
  publicKey: string;
  sealedPrivateKey: string;
  fingerprint: string;
  createdAt: string;
}

export function emptyImportReport(): ImportReport {
  return { rows: 0, imported: 0, skipped: 0, rejected: 0, rejections: [], remapped: [], truncated: false };
}
