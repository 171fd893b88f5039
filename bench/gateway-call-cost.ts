import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startHelper } from './helper-process.js';
import { repoRoot } from './coffer-process.js';

/**
 * The CPU one gateway call costs Coffer, without HTTP in front or a store behind: a Stripe
 * purchase through the GatewayCaller (adapter, channel, undici, both scrubbing passes) against
 * the fake gateway answering at once, in a process of its own so its CPU is not counted. Each
 * call carries a card number never seen before, as real traffic does (`--same-card`: one card,
 * as the load bench's live tenant has). With `--compare DIR`, that built checkout is measured
 * too, round for round, so both see the same machine (docs/benchmarks.md, "Through a gateway").
 *
 *   npm run build && npx tsc -p tsconfig.bench.json
 *   node dist/tools/bench/gateway-call-cost.js [--compare DIR] [--same-card] [--calls N]
 */

interface Build {
  label: string;
  call(index: number): Promise<void>;
  close(): Promise<void>;
}

const KEY = 'sk_live_benchfake0123456789';

/** A 16-digit card number for call `index`, different for every call. */
function cardNumber(index: number, sameCard: boolean): string {
  return sameCard ? '4539148803436467' : String(4_000_000_000_000_000 + index * 7_919);
}

async function loadBuild(label: string, dist: string, gatewayUrl: string, sameCard: boolean): Promise<Build> {
  const load = (file: string) => import(pathToFileURL(path.join(dist, file)).href);
  const { GatewayCaller } = await load('services/transactions/gateway-caller.js');
  const { GatewayHttpClient } = await load('gateways/kit/http-client.js');
  const { MemoryBreakerStore, InFlightLimiter } = await load('limits/circuit-breaker.js');
  const { Secret } = await load('domain/secret.js');
  const http = new GatewayHttpClient(null);
  const endpoints = { stripe: gatewayUrl };
  const caller = new GatewayCaller(new MemoryBreakerStore(), new InFlightLimiter(100), { http, endpoints }, { timeoutMs: 60_000, timeoutMsByType: {}, endpoints, maxInFlight: 100 }, { now: () => new Date() }, null);
  const gateway = { token: 'BenchGatewayToken', gatewayType: 'stripe', settings: {} };
  const address = { address1: '12 St James Sq', address2: null, city: 'London', state: null, zip: 'SW1Y 4JH', country: 'GB' };
  return {
    label,
    async call(index) {
      const card = { type: 'credit_card', number: new Secret(cardNumber(index, sameCard)), verificationValue: new Secret('123'), month: 12, year: 2034, firstName: 'Ada', lastName: 'Lovelace', cardType: 'visa', address, email: 'ada@example.com' };
      const request = {
        operation: 'purchase',
        transactionToken: `BenchTransaction${String(index).padStart(10, '0')}`,
        testMode: false,
        credentials: { login: new Secret(KEY) },
        amount: 100,
        currencyCode: 'USD',
        paymentMethod: card,
        reference: null,
        orderId: null,
        description: null,
        ip: null,
        email: null,
        shippingAddress: null,
        gatewaySpecificFields: {},
        attempt3dsecure: false,
      };
      const permit = await caller.permit(gateway, { name: 'Stripe' });
      try {
        const outcome = await caller.call(permit, gateway, request, [], null);
        if (outcome.kind !== 'answered' || outcome.response.success !== true) throw new Error(`${label}: the call did not succeed (${outcome.kind})`);
      } finally {
        permit.release();
      }
    },
    close: () => http.close(),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const compareAt = argv.indexOf('--compare');
  const compareDir = compareAt === -1 ? null : (argv[compareAt + 1] ?? null);
  const callsAt = argv.indexOf('--calls');
  const calls = callsAt === -1 ? 3_000 : Number(argv[callsAt + 1]);
  const sameCard = argv.includes('--same-card');
  const fake = await startHelper('./fake-gateway.js', ['0']);
  const builds = [await loadBuild('current', path.join(repoRoot, 'dist'), fake.url, sameCard)];
  if (compareDir !== null) builds.push(await loadBuild('compare', path.join(path.resolve(compareDir), 'dist'), fake.url, sameCard));
  const rounds = 6;
  const perRound = Math.ceil(calls / rounds);
  const cpu = new Map<string, number[]>(builds.map((build) => [build.label, []]));
  let index = 0;
  try {
    // Warm-up: JIT, connection pools.
    for (const build of builds) for (let warm = 0; warm < 300; warm += 1) await build.call((index += 1));
    for (let round = 0; round < rounds; round += 1) {
      for (const build of builds) {
        const started = process.cpuUsage();
        for (let call = 0; call < perRound; call += 1) await build.call((index += 1));
        const used = process.cpuUsage(started);
        cpu.get(build.label)?.push((used.user + used.system) / perRound);
      }
    }
  } finally {
    for (const build of builds) await build.close();
    await fake.stop();
  }
  process.stdout.write(`One Stripe purchase through the GatewayCaller, ${sameCard ? 'one card for every call' : 'a new card for every call'}, ${rounds} rounds of ${perRound} calls:\n`);
  for (const [label, values] of cpu) {
    process.stdout.write(`${label.padEnd(8)} CPU µs/call: median ${median(values).toFixed(0)}, rounds ${values.map((value) => value.toFixed(0)).join(' ')}\n`);
  }
}

await main();
