import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { buildCore } from '../src/app.js';
import { buildApp, resolveTls } from '../src/http-app.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/logger.js';
import { seedStore } from './seeder.js';

/**
 * Portal page load times on a large store: seeds N payment methods and N transactions (default
 * 1,000,000 each, spread over 30 days, through the scale bench's bulk path, with distinct card
 * numbers, names and emails) into one environment of a fresh SQLite store (or PostgreSQL with
 * COFFER_DATABASE_URL), starts Coffer in this process, signs in, and times each page and search
 * (docs/portal.md, "Find a card", "Find a payment") by its full response (server time + transfer
 * on loopback) over 20 sequential loads; p50, p95 and max.
 *
 *   npm run bench:portal                  # 1,000,000 payment methods and transactions
 *   PORTAL_BENCH_ROWS=100000 npm run bench:portal
 */
const ROWS = Number(process.env.PORTAL_BENCH_ROWS ?? 1_000_000);
const LOADS = 20;
const PASSWORD = 'bench password 1234';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-portal-bench-'));
  const env = {
    COFFER_DATA_DIR: dir,
    COFFER_PORT: '0',
    COFFER_MASTER_KEY: randomBytes(32).toString('base64'),
    COFFER_LOG_LEVEL: 'silent',
    COFFER_RATE_LIMITS: '{"*":null}',
    ...(process.env.COFFER_DATABASE_URL === undefined ? {} : { COFFER_DATABASE_URL: process.env.COFFER_DATABASE_URL }),
  };
  const config = loadConfig(env);
  let core = await buildCore(config);
  const init = await core.tenancy.init();
  const environment = await core.tenancy.requireEnvironment(init.environment_key);
  const gateway = await core.gateways.create(environment, 'test', { credentials: {} });
  await core.portalUsers.create(init.organization_token, { email: 'bench@example.com', role: 'owner', password: PASSWORD });
  await core.close();

  const started = performance.now();
  const seeded = await seedStore({
    store: config.store,
    masterKey: Buffer.from(env.COFFER_MASTER_KEY, 'base64'),
    environmentKey: init.environment_key,
    gatewayToken: gateway.token,
    paymentMethods: ROWS,
    transactions: ROWS,
    variedCards: true,
    onProgress: (line) => process.stderr.write(`\r${line}          `),
  });
  process.stderr.write(`\nseeded ${ROWS.toLocaleString('en-US')} payment methods and transactions in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);

  core = await buildCore(config);
  const tls = await resolveTls(config);
  const app = buildApp(core, createLogger('silent'), tls.material);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const base = address.replace(/^http:/, 'https:');
  const agent = new Agent({ connect: { ca: fs.readFileSync(tls.caPath as string, 'utf8') } });
  try {
    const signInPage = await request(`${base}/portal/sign-in`, { dispatcher: agent });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await signInPage.body.text())?.[1] as string;
    const preCookie = String(signInPage.headers['set-cookie']).split(';')[0] as string;
    const signIn = await request(`${base}/portal/sign-in`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: preCookie },
      body: new URLSearchParams({ _csrf: csrf, email: 'bench@example.com', password: PASSWORD }).toString(),
    });
    await signIn.body.dump();
    const cookie = (signIn.headers['set-cookie'] as string[]).find((c) => c.startsWith('coffer_session='))?.split(';')[0] as string;
    const e = init.environment_key;
    const deep = seeded.transactionsAtDepth.find((d) => d.fraction === 0.5)?.token as string;
    // A card half-way down the store, as a support agent would look it up.
    const card = await core.paymentMethods.show(environment, seeded.samplePaymentMethods[50] as string);
    if (card.paymentMethodType !== 'credit_card') throw new Error('the sample is not a card');
    const { last_four_digits: lastFour, first_six_digits: firstSix, first_name: first, last_name: last } = card.details;
    const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
    const pages: Array<[string, string]> = [
      ['overview (24 h + 30 d aggregates)', `/portal/e/${e}/overview`],
      ['transactions, first page', `/portal/e/${e}/transactions`],
      ['transactions, state=failed (none match)', `/portal/e/${e}/transactions?state=failed`],
      ['transactions, by order id', `/portal/e/${e}/transactions?order_id=none-such`],
      ['transactions, by token', `/portal/e/${e}/transactions?token=${deep}`],
      ['transactions, one day 15 days ago', `/portal/e/${e}/transactions?from=${day(15)}&to=${day(15)}`],
      ['transaction detail', `/portal/e/${e}/transactions/${deep}`],
      ['transactions, by card last four', `/portal/e/${e}/transactions?${q({ last_four: lastFour ?? '' })}`],
      ['transactions, by amount range (window)', `/portal/e/${e}/transactions?${q({ amount_from: '1.50', amount_to: '2.00', currency: 'USD' })}`],
      ['transactions, by gateway and state', `/portal/e/${e}/transactions?${q({ gateway: gateway.token, state: 'succeeded' })}`],
      ['payment methods, newest', `/portal/e/${e}/payment-methods`],
      ['card search, last four', `/portal/e/${e}/payment-methods?${q({ last_four: lastFour ?? '' })}`],
      ['card search, first six', `/portal/e/${e}/payment-methods?${q({ first_six: firstSix ?? '' })}`],
      ['card search, email', `/portal/e/${e}/payment-methods?${q({ email: card.email ?? '' })}`],
      ['card search, name prefix', `/portal/e/${e}/payment-methods?${q({ name: `${first ?? ''} ${(last ?? '').slice(0, 5)}` })}`],
      ['card search, fingerprint', `/portal/e/${e}/payment-methods?${q({ fingerprint: card.fingerprint ?? '' })}`],
      ['card search, state retained', `/portal/e/${e}/payment-methods?${q({ state: 'retained' })}`],
      ['card search, one day created', `/portal/e/${e}/payment-methods?${q({ from: day(15), to: day(15) })}`],
      ['card search, last four + email', `/portal/e/${e}/payment-methods?${q({ last_four: lastFour ?? '', email: card.email ?? '' })}`],
      ['card search, metadata (window)', `/portal/e/${e}/payment-methods?${q({ metadata_key: 'customer', metadata_value: 'c-0' })}`],
      ['card page (with its transactions)', `/portal/e/${e}/payment-methods/${card.token}`],
      ['gateways', `/portal/e/${e}/gateways`],
      ['access secrets', `/portal/e/${e}/secrets`],
      ['environments', '/portal/environments'],
      ['audit log', '/portal/audit'],
      ['team', '/portal/team'],
    ];
    // As `coffer serve` does: the overview's ended hours are counted in the background from the
    // start. One overview while that runs (it answers without the hours not counted yet), then
    // the pages once the round is done (a node that has been up for a while).
    const fillStarted = performance.now();
    const round = core.overviewRoller.round();
    const t0 = performance.now();
    const during = await request(`${base}/portal/e/${e}/overview`, { dispatcher: agent, headers: { cookie } });
    const duringText = await during.body.text();
    const duringMs = performance.now() - t0;
    await round;
    const fillMs = performance.now() - fillStarted;
    const lines = [`| page | p50 ms | p95 ms | max ms | rows shown |`, `|---|---|---|---|---|`];
    for (const [name, url] of pages) {
      const times: number[] = [];
      let shown = 0;
      for (let i = 0; i < LOADS; i += 1) {
        const t0 = performance.now();
        const res = await request(`${base}${url}`, { dispatcher: agent, headers: { cookie } });
        const text = await res.body.text();
        // Table rows in the page's table bodies: what the search found (a page holds at most one page of them).
        shown = (text.match(/<tbody[\s\S]*?<\/tbody>/g) ?? []).reduce((n, body) => n + (body.match(/<tr[ >]/g)?.length ?? 0), 0);
        times.push(performance.now() - t0);
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
      }
      times.sort((a, b) => a - b);
      lines.push(`| ${name} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 95).toFixed(1)} | ${(times.at(-1) as number).toFixed(1)} | ${shown} |`);
    }
    process.stdout.write(
      `overview while the start-up count ran: ${duringMs.toFixed(1)} ms (${during.statusCode}, ${duringText.includes('in the background') ? 'hours still being counted' : 'complete'}); the count of 31 days of ended hours took ${(fillMs / 1000).toFixed(1)} s\n`,
    );
    process.stdout.write(`load average ${os.loadavg().map((n) => n.toFixed(1)).join(' ')}, ${new Date().toISOString()}\n`);
    process.stdout.write(`${config.store.kind}, ${ROWS.toLocaleString('en-US')} payment methods and ${ROWS.toLocaleString('en-US')} transactions, ${LOADS} sequential loads per page\n${lines.join('\n')}\n`);
  } finally {
    await agent.close();
    await app.close();
    await core.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function day(daysAgo: number): string {
  return new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
}

await main();
