import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHelper } from '../bench/helper-process.js';
import { redactUrl } from '../bench/postgres-database.js';
import { formatDrill, notRun, type DrillReport } from './drill-report.js';
import { availabilityDrill } from './availability/availability.drill.js';
import { fuzzDrill } from './fuzz.drill.js';
import { killDrill } from './kill9.drill.js';
import { logScanDrill } from './log-scan.drill.js';
import { DRILL_USAGE, DrillOptionsError, parseDrillOptions, type DrillId, type DrillOptions } from './options.js';
import { pgRestartDrill } from './pg-restart.drill.js';

/**
 * `npm run drill`: kill -9 under load (SQLite, and PostgreSQL when COFFER_BENCH_DATABASE_URL is
 * set), PostgreSQL restarted under load, the fuzz run, the availability attacks (a victim tenant's
 * latency while strangers attack), then a scan of every log those drills' servers wrote. Each
 * drill reports what it tried and what was lost; the exit code is 1 when any drill lost something.
 */

const progress = (line: string) => process.stderr.write(`drill: ${line}\n`);

async function runDrills(options: DrillOptions, workDir: string): Promise<DrillReport[]> {
  const wanted = (id: DrillId) => options.only === undefined || options.only.includes(id);
  const reports: DrillReport[] = [];
  const record = (report: DrillReport) => {
    reports.push(report);
    progress(`${report.notRun !== undefined ? 'not run' : report.ok ? 'pass' : 'FAIL'}: ${report.name}`);
  };
  const logDir = path.join(workDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const fake = await startHelper('../bench/fake-gateway.js', ['50']);
  try {
    const loadSeconds = options.quick ? 3 : 6;
    if (wanted('kill9')) {
      progress('kill -9 on SQLite');
      record(await killDrill({ store: 'sqlite', postgresUrl: null, fakeGatewayUrl: fake.url, logDir: path.join(logDir, 'kill9-sqlite'), loadSeconds, writers: 8 }));
      if (options.postgresUrl === null) record(notRun('kill -9 under tokenize and purchase load (postgres)', 'COFFER_BENCH_DATABASE_URL is not set'));
      else {
        progress('kill -9 on PostgreSQL');
        record(await killDrill({ store: 'postgres', postgresUrl: options.postgresUrl, fakeGatewayUrl: fake.url, logDir: path.join(logDir, 'kill9-postgres'), loadSeconds, writers: 8 }));
      }
    }
    if (wanted('pg-restart')) {
      if (options.postgresUrl === null) record(notRun('PostgreSQL restarted under load', 'COFFER_BENCH_DATABASE_URL is not set'));
      else {
        progress(`PostgreSQL restart (${redactUrl(options.postgresUrl)})`);
        record(await pgRestartDrill({ postgresUrl: options.postgresUrl, fakeGatewayUrl: fake.url, logDir: path.join(logDir, 'pg-restart'), beforeSeconds: 2, afterSeconds: options.quick ? 5 : 8, writers: 8 }));
      }
    }
    if (wanted('fuzz')) {
      progress(`fuzz, ${options.fuzzRuns} cases per endpoint`);
      record(await fuzzDrill({ root: path.join(workDir, 'fuzz'), runs: options.fuzzRuns, seed: options.fuzzSeed }));
    }
    if (wanted('availability')) {
      const availability = await availabilityDrill({ logDir: path.join(logDir, 'availability'), quick: options.quick, postgresUrl: options.postgresUrl, ...(options.attacks === undefined ? {} : { attacks: options.attacks }) }, progress);
      for (const report of availability) record(report);
    }
  } finally {
    await fake.stop();
  }
  record(logScanDrill(reports.flatMap((report) => report.logFiles)));
  return reports;
}

async function main(): Promise<void> {
  const options = parseDrillOptions(process.argv.slice(2), process.env);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-drill-'));
  progress(`logs and scratch data in ${workDir}`);
  const reports = await runDrills(options, workDir);
  const ok = reports.every((report) => report.ok);
  if (options.json) process.stdout.write(`${JSON.stringify({ ok, drills: reports.map(({ logFiles: _logFiles, ...rest }) => rest) })}\n`);
  else process.stdout.write(`${reports.map(formatDrill).join('\n\n')}\n\n${ok ? 'All drills passed.' : 'Some drills lost something: see FAIL above.'}\n`);
  if (ok) fs.rmSync(workDir, { recursive: true, force: true });
  else progress(`kept ${workDir} for inspection`);
  process.exitCode = ok ? 0 : 1;
}

main().catch((error: unknown) => {
  if (error instanceof DrillOptionsError) process.stderr.write(`drill: ${error.message}\n${DRILL_USAGE}\n`);
  else process.stderr.write(`drill: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
