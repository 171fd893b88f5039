import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { buildCore } from '../src/app.js';
import { buildApp } from '../src/http-app.js';
import { loadConfig } from '../src/config/config.js';
import { MAX_FREE_FORM_BYTES, MAX_FREE_FORM_KEYS, MAX_NESTING } from '../src/http/format/input-bounds.js';
import { createLogger } from '../src/logger.js';
import { renderTemplate } from '../src/receivers/delivery-template.js';
import { EXPORT_BUDGET, MAX_EXPORT_TOKENS } from '../src/receivers/template-limits.js';
import { exportVariables, type DeliverySubject } from '../src/receivers/template-variables.js';

/**
 * Worst cases at the input and template limits (docs/security.md; `npm run bench:limits`): the most expensive export render
 * the caps allow, and the most expensive read of a payment method whose `data` sits at every cap.
 * Reports total time and the longest stretch the event loop was held (what other tenants wait).
 */

/**
 * Runs `work` while a timer measures the longest gap between event-loop turns, in wall time and
 * in CPU time of the process (on a loaded machine the wall gap includes time the OS gave to others).
 */
async function withLoopWatch<T>(work: () => Promise<T>): Promise<{ result: T; totalMs: number; longestBlockMs: number; longestCpuMs: number }> {
  let longest = 0;
  let longestCpu = 0;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let watching = true;
  const tick = () => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    longest = Math.max(longest, now - last);
    longestCpu = Math.max(longestCpu, (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000);
    last = now;
    lastCpu = cpu;
    if (watching) setImmediate(tick);
  };
  setImmediate(tick);
  const started = performance.now();
  const result = await work();
  const totalMs = performance.now() - started;
  watching = false;
  longest = Math.max(longest, performance.now() - last);
  return { result, totalMs, longestBlockMs: longest, longestCpuMs: longestCpu };
}

function subjects(count: number): DeliverySubject[] {
  return Array.from({ length: count }, (_, index) => ({
    token: `Pm${String(index).padStart(24, '0')}`,
    paymentMethodType: 'credit_card' as const,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    email: 'someone@example.com',
    fields: { first_name: 'Ada'.repeat(20), last_name: 'Lovelace'.repeat(10), month: 4, year: 2031, card_type: 'visa', address1: 'x'.repeat(100) },
    number: '4111111111111111',
    verificationValue: '123',
  }));
}

async function exportWorstCase(): Promise<string[]> {
  const view = exportVariables(subjects(MAX_EXPORT_TOKENS), { api_key: 'k'.repeat(100) });
  // 190 tags a payment method: 10,000 of them come close to the 2,000,000-step budget.
  const line = `${'{{credit_card_month}}'.repeat(189)}\n`;
  const lines: string[] = [];
  for (const [label, template] of [
    ['10,000 payment methods, ~190 tags each (steps cap)', `{{#payment_methods}}${line}{{/payment_methods}}`],
    ['10,000 payment methods, 1 KiB of text each (size cap)', `{{#payment_methods}}${'y'.repeat(1000)}{{credit_card_token}}\n{{/payment_methods}}`],
  ] as const) {
    const outcome = await withLoopWatch(() => renderTemplate(template, view, EXPORT_BUDGET).then((text) => text.length, (error: Error) => error.message));
    lines.push(`export render, ${label}: ${outcome.totalMs.toFixed(0)} ms in all, event loop held at most ${outcome.longestBlockMs.toFixed(1)} ms (${outcome.longestCpuMs.toFixed(1)} ms of CPU); result: ${outcome.result}`);
  }
  return lines;
}

/** `data` at every cap at once: 32 levels, 1000 keys, just under 64 KiB. */
function cappedData(): Record<string, unknown> {
  const leaves: Record<string, unknown> = {};
  const perLeaf = Math.floor((MAX_FREE_FORM_BYTES - 4000) / (MAX_FREE_FORM_KEYS - MAX_NESTING)) - 12;
  for (let index = 0; index < MAX_FREE_FORM_KEYS - MAX_NESTING + 1; index += 1) leaves[`k${index}`] = 'v'.repeat(Math.max(1, perLeaf));
  let value: Record<string, unknown> = leaves;
  for (let level = 1; level < MAX_NESTING; level += 1) value = { n: value };
  return value;
}

async function deepReadWorstCase(): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-limits-'));
  const config = loadConfig({ COFFER_DATA_DIR: dir, COFFER_TLS: 'off', COFFER_RATE_LIMITS: '{"*":null}', COFFER_LOG_LEVEL: 'warn' });
  const core = await buildCore(config);
  const app = buildApp(core, createLogger('warn', pino.destination({ dest: path.join(dir, 'log'), sync: true })), null);
  await app.ready();
  try {
    const init = await core.tenancy.init();
    const authorization = `Basic ${Buffer.from(`${init.environment_key}:${init.access_secret}`).toString('base64')}`;
    const data = cappedData();
    const payload = JSON.stringify({ payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: '4111111111111111', month: 4, year: 2031 }, data, retained: true } });
    let token = '';
    for (let index = 0; index < 20; index += 1) {
      const created = await app.inject({ method: 'POST', url: '/v1/payment_methods.json', headers: { authorization, 'content-type': 'application/json' }, payload });
      if (created.statusCode !== 201) throw new Error(`create answered ${created.statusCode}: ${created.body}`);
      token = created.json().transaction.payment_method.token;
    }
    const lines: string[] = [];
    for (const [label, url] of [
      ['GET payment_methods/<t>.xml', `/v1/payment_methods/${token}.xml`],
      ['GET payment_methods/<t>.json', `/v1/payment_methods/${token}.json`],
      ['GET payment_methods.xml (a page of 20 such)', '/v1/payment_methods.xml'],
    ] as const) {
      const times: number[] = [];
      let longest = 0;
      let longestCpu = 0;
      let bytes = 0;
      for (let round = 0; round < 20; round += 1) {
        const outcome = await withLoopWatch(() => app.inject({ method: 'GET', url, headers: { authorization } }));
        times.push(outcome.totalMs);
        longest = Math.max(longest, outcome.longestBlockMs);
        longestCpu = Math.max(longestCpu, outcome.longestCpuMs);
        bytes = outcome.result.body.length;
      }
      times.sort((a, b) => a - b);
      lines.push(`capped deep read, ${label}: ${bytes} bytes, median ${times[10]?.toFixed(1)} ms, worst ${times[19]?.toFixed(1)} ms, event loop held at most ${longest.toFixed(1)} ms (${longestCpu.toFixed(1)} ms of CPU)`);
    }
    return lines;
  } finally {
    await app.close();
    await core.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const report = [...(await exportWorstCase()), ...(await deepReadWorstCase())];
console.log([`load average ${os.loadavg().map((load) => load.toFixed(1)).join(' ')} on ${os.cpus().length} CPUs`, ...report].join('\n'));
