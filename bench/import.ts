import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buildCore, type Core } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { createScratchDatabase } from './postgres-database.js';

/*
 * `npm run bench:import`: imports generated cards (1,000,000 by default) through the import job
 * (docs/portability.md), the file streamed as it is generated, on SQLite and, with
 * COFFER_BENCH_DATABASE_URL, on a scratch PostgreSQL database. Prints cards per second and the
 * peak resident set size; docs/benchmarks.md keeps the figures.
 *
 *   npm run bench:import -- [--count N] [--batch-size N] [--store sqlite|postgres|both]
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A 16-digit Visa-range number passing Luhn, from `index` (distinct per index). */
function cardNumber(index: number): string {
  const body = `4${String(index).padStart(14, '0')}`;
  let sum = 0;
  for (let i = 0; i < body.length; i += 1) {
    let digit = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/** A token of letters only (no digit runs), distinct per index. */
function token(index: number): string {
  let out = '';
  let value = index;
  do {
    out = (ALPHABET[value % ALPHABET.length] as string) + out;
    value = Math.floor(value / ALPHABET.length);
  } while (value > 0);
  return `bench${out.padStart(8, 'A')}`;
}

/** The file, generated as it is read: JSON Lines, a thousand lines a chunk. */
function generatedFile(count: number): Readable {
  return Readable.from(
    (function* lines() {
      for (let start = 0; start < count; start += 1000) {
        let chunk = '';
        for (let index = start; index < Math.min(count, start + 1000); index += 1) {
          chunk += `${JSON.stringify({
            token: token(index),
            payment_method_type: 'credit_card',
            created_at: '2024-05-06T07:08:09Z',
            storage_state: 'retained',
            email: `customer${index}@example.com`,
            metadata: { customer: String(index) },
            credit_card: { number: cardNumber(index), month: 1 + (index % 12), year: 2030 + (index % 8), first_name: 'Card', last_name: `Holder${index}` },
          })}\n`;
        }
        yield Buffer.from(chunk);
      }
    })(),
  );
}

async function measure(label: string, core: Core, count: number, batchSize: number): Promise<string> {
  const init = await core.tenancy.init();
  // A production environment: the generated numbers are not test cards.
  const environment = await core.tenancy.createEnvironment(init.organization_token, 'import bench', true);
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 100);
  const started = process.hrtime.bigint();
  let last = Date.now();
  const job = await core.imports.start(environment);
  const ended = await core.imports.run(environment, job, () => generatedFile(count), {
    batchSize,
    onProgress: (current) => {
      if (Date.now() - last < 10_000) return;
      last = Date.now();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      process.stderr.write(`${label}: ${current.report.imported} imported, ${Math.round(current.report.imported / seconds)} cards/s, RSS ${Math.round(process.memoryUsage().rss / 1048576)} MB\n`);
    },
  });
  clearInterval(sampler);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (ended.state !== 'succeeded' || ended.report.imported !== count) throw new Error(`${label}: the import did not import every card: ${JSON.stringify({ state: ended.state, error: ended.error, imported: ended.report.imported, rejected: ended.report.rejected, first: ended.report.rejections[0] })}`);
  return `| ${label} | ${count.toLocaleString('en')} | ${seconds.toFixed(1)} | ${Math.round(count / seconds).toLocaleString('en')} | ${Math.round(peakRss / 1048576)} |`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at === -1 ? undefined : args[at + 1];
  };
  const count = Number(option('--count') ?? 1_000_000);
  const batchSize = Number(option('--batch-size') ?? 500);
  const postgres = process.env.COFFER_BENCH_DATABASE_URL?.trim() || null;
  // Each store in a process of its own gives each its own peak RSS.
  const stores = option('--store') ?? 'both';
  if (!['sqlite', 'postgres', 'both'].includes(stores)) throw new Error('--store must be sqlite, postgres or both');
  if (stores === 'postgres' && postgres === null) throw new Error('--store postgres needs COFFER_BENCH_DATABASE_URL');
  const rows: string[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-import-bench-'));
  try {
    if (stores !== 'postgres') {
      const sqlite = await buildCore(loadConfig({ COFFER_DATA_DIR: dir, COFFER_TLS: 'off', COFFER_LOG_LEVEL: 'error' }));
      try {
        rows.push(await measure('SQLite', sqlite, count, batchSize));
      } finally {
        await sqlite.close();
      }
    }
    if (postgres !== null && stores !== 'sqlite') {
      const database = await createScratchDatabase(postgres, 'coffer_import_bench');
      try {
        const core = await buildCore(loadConfig({ COFFER_DATA_DIR: dir, COFFER_TLS: 'off', COFFER_LOG_LEVEL: 'error', COFFER_DATABASE_URL: database.url }));
        try {
          rows.push(await measure('PostgreSQL', core, count, batchSize));
        } finally {
          await core.close();
        }
      } finally {
        await database.drop();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`| store | cards | seconds | cards/s | peak RSS (MB) |\n|---|---|---|---|---|\n${rows.join('\n')}`);
}

await main();
