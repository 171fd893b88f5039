import { createReadStream, createWriteStream, readFileSync, statSync, type WriteStream } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { Option, type Command } from 'commander';
import type { Core } from '../app.js';
import type { PaymentMethodImport } from '../domain/payment-method-import.js';
import type { ImportFormat } from '../services/portability/import-reader.js';
import { fail, printResult } from './output.js';

type WithCore = (work: (core: Core) => Promise<void>) => Promise<void>;

interface ImportFlags {
  environment: string;
  format?: string;
  allowExpired?: boolean;
  signedBy?: string;
  map?: string;
  batchSize: string;
  json?: boolean;
}

/** Counts the bytes that pass, for the progress bar (the file is read as it streams). */
function counting(onBytes: (bytes: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      onBytes(chunk.length);
      done(null, chunk);
    },
  });
}

/** One progress line on stderr: redrawn in place on a terminal, else printed now and then. */
class Progress {
  private lastPrinted = 0;
  private bytes = 0;

  constructor(private readonly size: number) {}

  /** A new pass over the file (an encrypted file is read twice). */
  restart(): void {
    this.bytes = 0;
  }

  read(bytes: number): void {
    this.bytes += bytes;
  }

  show(job: PaymentMethodImport, final = false): void {
    const now = Date.now();
    if (!final && !process.stderr.isTTY && now - this.lastPrinted < 5_000) return;
    this.lastPrinted = now;
    const share = this.size === 0 ? 1 : Math.min(1, this.bytes / this.size);
    const width = 30;
    const done = Math.round(share * width);
    const { rows, imported, skipped, rejected } = job.report;
    const line = `[${'#'.repeat(done)}${'.'.repeat(width - done)}] ${String(Math.round(share * 100)).padStart(3)}%  rows ${rows}  imported ${imported}  skipped ${skipped}  rejected ${rejected}`;
    process.stderr.write(process.stderr.isTTY ? `\r${line}${final ? '\n' : ''}` : `${line}\n`);
  }
}

/** A CSV cell, quoted when it must be (an old token that did not fit may hold anything). */
function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The report as the CLI prints it: counts, then each refused row and each new token. */
function printReport(job: PaymentMethodImport, json: boolean): void {
  if (json) {
    printResult({ id: job.token, environment_key: job.environmentKey, state: job.state, format: job.format, encrypted: job.encrypted, error: job.error, ...job.report }, true);
    return;
  }
  const { rows, imported, skipped, rejected, rejections, remapped, truncated } = job.report;
  printResult({ id: job.token, state: job.state, format: job.format, rows, imported, skipped, rejected }, false);
  for (const rejection of rejections) process.stdout.write(`rejected  row ${rejection.row}  ${rejection.reason}${rejection.field === undefined ? '' : `  ${rejection.field}`}\n`);
  for (const remap of remapped) process.stdout.write(`new token  row ${remap.row}  ${remap.old_token ?? '-'} -> ${remap.new_token}\n`);
  if (truncated) process.stdout.write('(lists truncated: the counts are whole; --map writes every new token)\n');
}

/**
 * `coffer import-key --environment <key>` (the environment's armored public import key) and
 * `coffer import --environment <key> FILE` (docs/portability.md, "Running an import").
 */
export function importCommands(cli: Command, withCore: WithCore): void {
  cli.command('import-key').description("print an environment's OpenPGP import key (armored): encrypt import files to it")
    .requiredOption('--environment <key>', 'the environment (its key)')
    .addOption(new Option('--json', 'print machine-readable JSON'))
    .action((opts: { environment: string; json?: boolean }) =>
      withCore(async (core) => {
        await core.tenancy.requireEnvironment(opts.environment);
        const key = await core.importKeys.publicKey(opts.environment);
        if (opts.json === true) printResult({ environment_key: opts.environment, fingerprint: key.fingerprint, public_key: key.armored }, true);
        else process.stdout.write(key.armored.endsWith('\n') ? key.armored : `${key.armored}\n`);
      }));

  cli.command('import <file>').description('import payment methods from a JSON Lines or CSV file (optionally OpenPGP-encrypted); safe to run again')
    .requiredOption('--environment <key>', 'the environment (its key)')
    .option('--format <format>', 'jsonl or csv (found from the file otherwise)')
    .option('--allow-expired', 'import expired cards too', false)
    .option('--signed-by <file>', "require the file to be signed by this sender's armored public key")
    .option('--map <file>', 'write every old -> new token (CSV: row,old_token,new_token) to this file')
    .option('--batch-size <n>', 'rows per database transaction', '500')
    .addOption(new Option('--json', 'print machine-readable JSON'))
    .action((file: string, opts: ImportFlags) => {
      if (opts.format !== undefined && opts.format !== 'jsonl' && opts.format !== 'csv') fail('--format must be jsonl or csv');
      const batchSize = Number(opts.batchSize);
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) fail('--batch-size must be a whole number from 1 to 10000');
      let size = 0;
      try {
        size = statSync(file).size;
      } catch {
        fail(`cannot read ${file}`);
      }
      let signedBy: string | null = null;
      if (opts.signedBy !== undefined) {
        try {
          signedBy = readFileSync(opts.signedBy, 'utf8');
        } catch {
          fail(`cannot read ${opts.signedBy}`);
        }
      }
      return withCore(async (core) => {
        const environment = await core.tenancy.requireEnvironment(opts.environment);
        const progress = new Progress(size);
        const map: WriteStream | null = opts.map === undefined ? null : createWriteStream(opts.map, { mode: 0o600 });
        map?.write('row,old_token,new_token\n');
        const source = (): Readable => {
          progress.restart();
          return createReadStream(file).pipe(counting((bytes) => progress.read(bytes)));
        };
        const job = await core.imports.start(environment);
        process.stderr.write(`import ${job.token}: ${file}\n`);
        const ended = await core.imports.run(environment, job, source, {
          ...(opts.format === undefined ? {} : { format: opts.format as ImportFormat }),
          allowExpired: opts.allowExpired === true,
          signedBy,
          batchSize,
          onProgress: (current) => progress.show(current),
          onRemap: (remap) => map?.write(`${remap.row},${csvCell(remap.old_token ?? '')},${remap.new_token}\n`),
        });
        progress.show(ended, true);
        if (map !== null) await new Promise((resolve) => map.end(resolve));
        printReport(ended, opts.json === true);
        if (ended.state === 'failed') fail(ended.error ?? 'the import failed');
      });
    });
}
