import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTarget } from './bench-target.js';
import { startHelper } from './helper-process.js';
import { runLoad } from './load-driver.js';
import type { BenchOptions } from './options.js';
import { formatProfile, summarizeProfile, type CpuProfile } from './cpu-profile.js';
import { cofferScenarios, type ScenarioId } from './scenarios.js';

/**
 * `npm run bench -- --profile`: Coffer on SQLite (PostgreSQL with COFFER_BENCH_DATABASE_URL and
 * `--only` naming no other) under the JSON purchase load with `node --cpu-prof`, stopped cleanly
 * so V8 writes the profile, then summarised by self time. Returns the text to print.
 */
export async function profilePurchase(options: BenchOptions): Promise<string> {
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-profile-'));
  const ids: ScenarioId[] = options.only ?? ['purchase_json'];
  const store = options.postgresUrl === null ? 'sqlite' : 'postgres';
  const fake = ids.includes('purchase_gateway_50ms') ? await startHelper('./fake-gateway.js', ['50']) : null;
  const target = await startTarget({
    store,
    build: 'current',
    postgresUrl: options.postgresUrl,
    fakeGatewayUrl: fake?.url ?? null,
    logDir: profileDir,
    nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir],
  });
  const lines: string[] = [];
  try {
    for (const scenario of cofferScenarios(target.coffer.url, target.tenant, { connections: options.connections, durationSeconds: options.durationSeconds }, ids)) {
      process.stderr.write(`bench: profiling ${store}: ${scenario.title}\n`);
      const result = await runLoad(scenario.job);
      lines.push(`${scenario.title}: ${(result.requests / result.durationSeconds).toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${result.non2xx} non-2xx`);
    }
  } finally {
    // SIGTERM: a clean exit, which is when V8 writes the profile.
    await target.close();
    await fake?.stop();
  }
  const file = fs.readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no .cpuprofile written in ${profileDir}`);
  const summary = summarizeProfile(JSON.parse(fs.readFileSync(path.join(profileDir, file), 'utf8')) as CpuProfile);
  return `${lines.join('\n')}\nprofile: ${path.join(profileDir, file)}\n${formatProfile(summary)}\n`;
}
