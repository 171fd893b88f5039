import type { Readable } from 'node:stream';
import type { Clock } from '../../domain/clock.js';
import type { Environment } from '../../domain/environment.js';
import type { RequestMeta } from '../../domain/request.js';
import type { ErrorEntry } from '../../domain/errors.js';
import { emptyImportReport, IMPORT_REPORT_LIST_LIMIT, type ImportRemap, type ImportReport, type PaymentMethodImport } from '../../domain/payment-method-import.js';
import { orderedToken, TOKEN_LENGTH } from '../../domain/tokens.js';
import type { StoreAccess } from '../../store/store-access.js';
import { luhnValid, normalizePan } from '../../vault/card-rules.js';
import type { Keyring } from '../../vault/keyring.js';
import type { AdoptedPaymentMethod, AdoptOutcome, PaymentMethodAdopter, PreparedMethod } from './adopt-payment-method.js';
import { checkEncrypted, decrypted, isOpenPgp, peek } from './import-decrypt.js';
import type { ImportKeyService } from './import-keys.js';
import { fitsTokenRules, importRecordOf, type ImportRecord, type Rejection } from './import-record.js';
import { ImportFileError, readRows, sniffFormat, type ImportLine, type ImportFormat } from './import-reader.js';

/** The file, opened as many times as asked: an encrypted file is read twice (import-decrypt.ts). */
export type ImportSource = () => Readable;

export interface ImportOptions {
  /** `jsonl` or `csv`; found from the file's first bytes otherwise. */
  format?: ImportFormat;
  allowExpired?: boolean;
  /** The sender's armored public key: the file must be encrypted and signed by it. */
  signedBy?: string | null;
  /** Rows adopted per unit of work. */
  batchSize?: number;
  /** Called after each batch with the job as it stands. */
  onProgress?: (job: PaymentMethodImport) => void;
  /** Every remapped token (the report keeps the first IMPORT_REPORT_LIST_LIMIT): the CLI's `--map`. */
  onRemap?: (remap: ImportRemap) => void;
  /** The API request that started the import: its id is on every event the import records. */
  request?: RequestMeta;
}

const DEFAULT_BATCH = 500;

/** A row about to be adopted, and what the report says of its token. */
interface Pending {
  row: number;
  method: AdoptedPaymentMethod;
  remap: ImportRemap | null;
}

/** A row sealed and waiting for its batch's unit of work. */
interface Sealed {
  row: number;
  prepared: PreparedMethod;
  remap: ImportRemap | null;
}

/**
 * The import job (docs/portability.md): the file streams through parse → check → adopt in batches,
 * never whole in memory; every job is kept with its progress and report. Idempotent: a token
 * already holding the same method is skipped, so a second run imports only what is missing.
 */
export class ImportService {
  constructor(
    private readonly store: StoreAccess<'paymentMethodImports'>,
    private readonly adopter: PaymentMethodAdopter,
    private readonly keys: ImportKeyService,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
  ) {}

  /** A new job, running, before its file is read (so its progress can be shown at once). */
  async start(environment: Environment): Promise<PaymentMethodImport> {
    const at = this.clock.now().toISOString();
    const job: PaymentMethodImport = {
      token: orderedToken(TOKEN_LENGTH.item),
      environmentKey: environment.key,
      state: 'running',
      format: null,
      encrypted: false,
      report: emptyImportReport(),
      error: null,
      createdAt: at,
      updatedAt: at,
    };
    await this.store.repos.paymentMethodImports.insert(job);
    return job;
  }

  find(environment: Environment, token: string): Promise<PaymentMethodImport | undefined> {
    return this.store.repos.paymentMethodImports.find(environment.key, token);
  }

  list(environment: Environment): Promise<PaymentMethodImport[]> {
    return this.store.repos.paymentMethodImports.list(environment.key, 100);
  }

  /**
   * Runs `job` over the file to its end; the job as it ended (`succeeded`, or `failed` with the
   * reason when the file as a whole was refused). Any other error is recorded and thrown.
   */
  async run(environment: Environment, job: PaymentMethodImport, source: ImportSource, options: ImportOptions = {}): Promise<PaymentMethodImport> {
    try {
      const plain = await this.plaintext(environment, job, source, options.signedBy ?? null);
      const first = await peek(plain);
      const format = options.format ?? sniffFormat(first);
      job.format = format;
      await this.importRows(environment, job, readRows(plain, format), options);
      job.state = 'succeeded';
    } catch (error) {
      job.state = 'failed';
      job.error = error instanceof ImportFileError ? error.message : 'The import stopped before the end of the file; run it again to import the rest';
      await this.save(job);
      if (!(error instanceof ImportFileError)) throw error;
      return job;
    }
    await this.save(job);
    return job;
  }

  /** The file's plaintext: as it is, or decrypted after a first pass checked it (import-decrypt.ts). */
  private async plaintext(environment: Environment, job: PaymentMethodImport, source: ImportSource, senderKey: string | null): Promise<Readable> {
    const input = source();
    const first = await peek(input);
    if (first.length === 0) throw new ImportFileError('The file is empty');
    if (!isOpenPgp(first)) {
      if (senderKey !== null) throw new ImportFileError('A signature is required: the file must be encrypted to the import key and signed by the sender key');
      return input;
    }
    job.encrypted = true;
    const keys = { decryptionKey: await this.keys.privateKey(environment.key), senderKey };
    await checkEncrypted(input, first, keys);
    const again = source();
    return decrypted(again, await peek(again), keys);
  }

  /**
   * Each row is checked and sealed as it is read; a batch holds sealed rows only, written in one
   * unit of work. Nothing of a row outlives its sealing but what will be written: a bulk import's
   * resident memory follows what its batches hold (docs/benchmarks.md, "Import").
   */
  private async importRows(environment: Environment, job: PaymentMethodImport, rows: AsyncIterable<ImportLine>, options: ImportOptions): Promise<void> {
    const batchSize = options.batchSize ?? DEFAULT_BATCH;
    const adoptOptions = {
      allowExpired: options.allowExpired === true,
      transactionDetails: { import: job.token },
      ...(options.request === undefined ? {} : { request: options.request }),
    };
    let batch: Sealed[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const prepared: PreparedMethod[] = new Array<PreparedMethod>(batch.length);
      for (let index = 0; index < batch.length; index += 1) prepared[index] = (batch[index] as Sealed).prepared;
      const results = await this.adopter.storeOutcomes(environment, prepared, adoptOptions);
      for (let index = 0; index < batch.length; index += 1) this.tally(job.report, batch[index] as Sealed, results[index] as AdoptOutcome, options);
      batch = [];
      job.updatedAt = this.clock.now().toISOString();
      await this.save(job);
      options.onProgress?.(job);
    };
    for await (const line of rows) {
      job.report.rows = Math.max(job.report.rows, line.row);
      const pending = await this.pending(environment, line);
      if ('reason' in pending) {
        reject(job.report, line.row, pending);
        continue;
      }
      const prepared = await this.adopter.prepare(environment, pending.method, adoptOptions);
      if ('errors' in prepared) {
        reject(job.report, line.row, rejectionOf(prepared.errors));
        continue;
      }
      batch.push({ row: pending.row, prepared, remap: pending.remap });
      if (batch.length >= batchSize) await flush();
    }
    await flush();
    // Rows refused before adoption are counted as read, the others after their batch: in row order for the report.
    job.report.rejections.sort((a, b) => a.row - b.row);
  }

  /** A file row → the method to adopt under its token, or why it is refused before adoption. */
  private async pending(environment: Environment, line: ImportLine): Promise<Pending | Rejection> {
    if ('malformed' in line) return { reason: 'malformed' };
    if ('invalidField' in line) return { reason: 'invalid', field: line.invalidField };
    const record = importRecordOf(line.value);
    if ('reason' in record) return record;
    const number = record.method.card?.number;
    if (number !== undefined) {
      const digits = normalizePan(number);
      if (/^\d{12,19}$/.test(digits) && !luhnValid(digits)) return { reason: 'luhn', field: 'number' };
    }
    if (record.fits) return { row: line.row, method: { ...record.method, token: record.oldToken as string }, remap: null };
    const token = await this.mint(environment, record);
    return { row: line.row, method: { ...record.method, token }, remap: { row: line.row, old_token: record.oldToken, new_token: token } };
  }

  /**
   * A new token for a row whose token does not fit (or that has none), derived with the
   * environment's fingerprint key from the old token (or from the method itself), so a second run
   * gives the same token and the method is skipped, not duplicated.
   */
  private async mint(environment: Environment, record: ImportRecord): Promise<string> {
    const method = record.method;
    const material =
      record.oldToken !== null
        ? `token\u0000${record.oldToken}`
        : method.type === 'credit_card'
          ? `card\u0000${normalizePan(method.card?.number ?? '')}`
          : method.type === 'bank_account'
            ? `bank\u0000${method.bankAccount?.bank_routing_number ?? ''}\u0000${method.bankAccount?.bank_account_number ?? ''}`
            : `reference\u0000${method.thirdParty?.gateway_type ?? ''}\u0000${method.thirdParty?.reference ?? ''}`;
    for (let attempt = 0; ; attempt += 1) {
      const hex = await this.keyring.fingerprint(environment.key, `import-token\u0000${attempt}\u0000${material}`);
      const token = base62(hex).padStart(TOKEN_LENGTH.item - 5, '0');
      if (fitsTokenRules(token)) return token;
    }
  }

  private tally(report: ImportReport, item: Sealed, result: AdoptOutcome, options: ImportOptions): void {
    if (result.outcome === 'imported' || result.outcome === 'skipped') {
      if (result.outcome === 'imported') report.imported += 1;
      else report.skipped += 1;
      if (item.remap !== null) {
        options.onRemap?.(item.remap);
        if (report.remapped.length < IMPORT_REPORT_LIST_LIMIT) report.remapped.push(item.remap);
        else report.truncated = true;
      }
      return;
    }
    reject(report, item.row, result.outcome === 'conflict' ? { reason: 'token_taken', field: 'token' } : rejectionOf(result.errors));
  }

  private save(job: PaymentMethodImport): Promise<void> {
    return this.store.repos.paymentMethodImports.save(job);
  }
}

function reject(report: ImportReport, row: number, rejection: Rejection): void {
  report.rejected += 1;
  if (report.rejections.length >= IMPORT_REPORT_LIST_LIMIT) {
    report.truncated = true;
    return;
  }
  report.rejections.push(rejection.field === undefined ? { row, reason: rejection.reason } : { row, reason: rejection.reason, field: rejection.field });
}

/** Adoption's field errors → the report's reason (docs/portability.md, "What is refused, and why"). */
function rejectionOf(errors: ErrorEntry[]): Rejection {
  const first = errors[0];
  if (first === undefined) return { reason: 'invalid' };
  if (first.key === 'errors.account_inactive') return { reason: 'not_activated' };
  const field = first.attribute;
  if (field === 'number') return { reason: 'number_invalid', field };
  if (field === 'month' || field === 'year') return { reason: 'expiry', field };
  if (field === 'verification_value') return { reason: 'cvv_present', field };
  return field === undefined ? { reason: 'invalid' } : { reason: 'invalid', field };
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Hex → base 62 (a token's alphabet). */
function base62(hex: string): string {
  let value = BigInt(`0x${hex}`);
  let out = '';
  while (value > 0n) {
    out = (ALPHABET[Number(value % 62n)] as string) + out;
    value /= 62n;
  }
  return out;
}
