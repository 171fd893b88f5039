import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiCredentials } from '../../bench/api-client.js';
import { startTarget, type BenchTarget } from '../../bench/bench-target.js';
import type { LatencySummary } from '../../bench/latency.js';
import { notRun, type DrillReport } from '../drill-report.js';
import type { Attack, AttackTally, AttackTarget } from './attack.js';
import { startAttack } from './attack-process.js';
import { ATTACKS } from './attacks.js';
import { availabilityPagesDrill, DEFAULT_PAGES_DRILL } from './large-pages.js';
import { callbackAvailabilityDrill } from './slow-callbacks.js';
import { watchOtherLoad } from './other-load.js';
import { createVictimTenant, measureVictim, residentMb, watchResident, type VictimSample } from './victim.js';

/**
 * The availability drill (`npm run drill -- --only availability`): one `coffer serve` with the
 * production rate limits, a victim tenant listing its gateways in a loop, and each attack of
 * attacks.ts run in turn from a process of its own. For each attack it prints the victim's p50 and
 * p99 idle (measured just before) and under attack, and fails when the target is missed:
 * a `latency` attack must keep the victim's p50 within twice its idle p50; a `memory` attack must
 * keep the server's RSS under MEMORY_BOUND_MB, with the victim still answering. Each attack also
 * prints the CPU that other processes used meanwhile; a latency miss measured while they used more
 * than OTHER_LOAD_LIMIT_PERCENT of a core is measured again (at most DISTURBED_RETRIES times), and
 * the report says so.
 */

export const MEMORY_BOUND_MB = 250;
/** The victim's attacked p50 may be at most this many times its idle p50. */
export const LATENCY_FACTOR = 2;

/**
 * The attacks that need a set-up of their own (their own servers, stores or seeded data), run after
 * the request attacks: one tenant's never-answering callback URL (docs/events.md) and readers of
 * the largest pages (docs/wire-compatibility.md, "Large pages").
 */
export const SCENARIOS = ['slow-callbacks', 'large-pages-xml', 'large-pages-json'] as const;

/** Every id `--attacks` takes. */
export const AVAILABILITY_IDS: readonly string[] = [...ATTACKS.map((attack) => attack.id), ...SCENARIOS];

export interface AvailabilityOptions {
  logDir: string;
  quick: boolean;
  /** PostgreSQL server for the callback attack's PostgreSQL runs (one and two nodes); null: SQLite only. */
  postgresUrl: string | null;
  /** Attack ids to run (all when undefined). */
  attacks?: readonly string[];
  /** Another checkout's bin/coffer, to measure a build from before a change the same way. */
  bin?: string;
}

/** How long each phase lasts, in ms. */
interface Phases {
  idle: number;
  warmup: number;
  attacked: number;
  /** A memory attack runs longer: past the 30 s request timeout in a full run. */
  memory: number;
}

function phasesOf(quick: boolean): Phases {
  return quick ? { idle: 2_000, warmup: 500, attacked: 3_000, memory: 10_000 } : { idle: 4_000, warmup: 1_000, attacked: 8_000, memory: 40_000 };
}

/** Two decimals: an idle victim answers in a fraction of a millisecond here (docs/reliability.md). */
function ms(value: number): string {
  return value.toFixed(2);
}

function latencyFigure(summary: LatencySummary): string {
  return `${ms(summary.p50)} / ${ms(summary.p99)}`;
}

function ratioFigure(idle: VictimSample, attacked: VictimSample): string {
  return idle.latency.p50 > 0 ? `${(attacked.latency.p50 / idle.latency.p50).toFixed(2)}×` : '?';
}

function tallyFigure(tally: AttackTally): string {
  const answered = Object.entries(tally.answered).map(([status, count]) => `${status} ×${count}`);
  return `${answered.length === 0 ? 'none answered' : answered.join(', ')}; ${tally.unanswered} cut without an answer`;
}

/**
 * Other processes on the machine (a build, another test suite) using more than this share of a
 * core while the victim is measured disturb the measurement more than an attack does here.
 */
export const OTHER_LOAD_LIMIT_PERCENT = 25;
/** A latency miss measured while the machine was that busy is measured again, at most this often. */
export const DISTURBED_RETRIES = 2;

/**
 * Whether a missed latency attack should be measured again: the machine was busy with other work
 * during either phase. A miss on a quiet machine stands; so does a memory miss (RSS is the
 * server's own).
 */
export function measureAgain(attack: Pick<Attack, 'goal'>, misses: readonly string[], otherLoad: { idle: number | null; attacked: number | null }): boolean {
  if (attack.goal !== 'latency' || misses.length === 0) return false;
  return [otherLoad.idle, otherLoad.attacked].some((load) => load !== null && load > OTHER_LOAD_LIMIT_PERCENT);
}

/** What the attack must not have done; one line per miss. */
export function judge(attack: Pick<Attack, 'goal'>, idle: VictimSample, attacked: VictimSample, peakRssMb: number | null): string[] {
  const misses: string[] = [];
  if (attacked.answered === 0) misses.push('the victim got no answer under attack');
  if (attacked.failed > 0) misses.push(`${attacked.failed} victim requests failed under attack`);
  if (attack.goal === 'latency' && attacked.latency.p50 > LATENCY_FACTOR * idle.latency.p50) {
    misses.push(`the victim's p50 under attack, ${ms(attacked.latency.p50)} ms, is over ${LATENCY_FACTOR}× its idle p50 of ${ms(idle.latency.p50)} ms`);
  }
  if (attack.goal === 'memory' && peakRssMb !== null && peakRssMb >= MEMORY_BOUND_MB) misses.push(`the server's RSS reached ${peakRssMb} MiB (bound ${MEMORY_BOUND_MB})`);
  return misses;
}

/** One measurement of one attack: its report, and the machine's other load during each phase. */
interface AttackRun {
  report: DrillReport;
  misses: string[];
  otherLoad: { idle: number | null; attacked: number | null };
}

function loadFigure(load: number | null): string {
  return load === null ? '?' : String(load);
}

async function runAttack(attack: Attack, target: BenchTarget, attacker: AttackTarget, victim: ApiCredentials, phases: Phases): Promise<AttackRun> {
  const url = target.coffer.url;
  const idleLoad = watchOtherLoad([target.coffer.pid, process.pid]);
  const idle = await measureVictim(url, victim, phases.idle);
  const otherIdle = idleLoad.stop();
  const rssBefore = residentMb(target.coffer.pid);
  const measured = attack.goal === 'memory' ? phases.memory : phases.attacked;
  const running = startAttack({ attack: attack.id, target: attacker, durationMs: phases.warmup + measured + 500 });
  await running.ready;
  await sleep(phases.warmup);
  const rss = watchResident(target.coffer.pid);
  const attackedLoad = watchOtherLoad([target.coffer.pid, process.pid, ...(running.pid === undefined ? [] : [running.pid])]);
  const attacked = await measureVictim(url, victim, measured);
  const otherAttacked = attackedLoad.stop();
  const peakRss = rss.stop();
  const tally = await running.done.catch((error: unknown) => {
    running.stop();
    throw error;
  });
  const figures: Record<string, string> = {
    'victim p50 / p99 idle (ms)': latencyFigure(idle.latency),
    'victim p50 / p99 under attack (ms)': latencyFigure(attacked.latency),
    ...(attack.goal === 'latency' ? { 'victim p50 under attack / idle': `${ratioFigure(idle, attacked)} (bound ${LATENCY_FACTOR}×)` } : {}),
    'victim requests under attack': `${attacked.answered} answered, ${attacked.failed} failed`,
    'attack requests': tallyFigure(tally),
    'server RSS before / peak under attack (MiB)': `${rssBefore ?? '?'} / ${peakRss ?? '?'}`,
    "other processes' CPU idle / under attack (% of a core)": `${loadFigure(otherIdle)} / ${loadFigure(otherAttacked)}`,
  };
  const misses = judge(attack, idle, attacked, peakRss);
  const report = { name: `availability: ${attack.id}`, ok: misses.length === 0, tried: [attack.title], lost: misses, figures, logFiles: [target.logFile] };
  return { report, misses, otherLoad: { idle: otherIdle, attacked: otherAttacked } };
}

/** Runs an attack, and again (DISTURBED_RETRIES at most) while its misses were measured on a busy machine. */
async function judgedAttack(attack: Attack, target: BenchTarget, attacker: AttackTarget, victim: ApiCredentials, phases: Phases): Promise<DrillReport> {
  const disturbed: string[] = [];
  let run = await runAttack(attack, target, attacker, victim, phases);
  while (disturbed.length < DISTURBED_RETRIES && measureAgain(attack, run.misses, run.otherLoad)) {
    disturbed.push(`${loadFigure(run.otherLoad.idle)} / ${loadFigure(run.otherLoad.attacked)}`);
    run = await runAttack(attack, target, attacker, victim, phases);
  }
  if (disturbed.length === 0) return run.report;
  const note = `measured ${disturbed.length + 1} times: the earlier measurements missed while other processes used ${disturbed.join(', ')} % of a core (idle / under attack)`;
  return { ...run.report, figures: { ...run.report.figures, 'measured again': note } };
}

export async function availabilityDrill(options: AvailabilityOptions, progress: (line: string) => void): Promise<DrillReport[]> {
  const chosen = (id: string) => options.attacks === undefined || options.attacks.includes(id);
  const wanted = ATTACKS.filter((attack) => chosen(attack.id));
  const reports: DrillReport[] = [];
  if (wanted.length > 0) {
    // The production rate limits (the drills' servers lift them unless told otherwise): they are part of the defence.
    const target = await startTarget({ store: 'sqlite', build: 'current', postgresUrl: null, fakeGatewayUrl: null, logDir: options.logDir, sizes: { cards: 1, purchases: 0 }, env: { COFFER_RATE_LIMITS: '{}' }, ...(options.bin === undefined ? {} : { bin: options.bin }) });
    try {
      const victim = await createVictimTenant(target.coffer.url, target.env);
      const attacker: AttackTarget = { url: target.coffer.url, ca: null, environmentKey: target.init.environment_key, ownCredentials: target.init };
      for (const attack of wanted) {
        progress(`availability: ${attack.id}`);
        reports.push(await judgedAttack(attack, target, attacker, victim, phasesOf(options.quick)));
      }
    } finally {
      await target.close();
    }
  }
  if (chosen('slow-callbacks')) {
    const runs = options.postgresUrl === null ? [{ store: 'sqlite', nodes: 1 }] : [{ store: 'sqlite', nodes: 1 }, { store: 'postgres', nodes: 1 }, { store: 'postgres', nodes: 2 }];
    for (const run of runs as Array<{ store: 'sqlite' | 'postgres'; nodes: 1 | 2 }>) {
      progress(`availability: slow-callbacks (${run.store}, ${run.nodes} node${run.nodes === 1 ? '' : 's'})`);
      reports.push(await callbackAvailabilityDrill({ ...run, postgresUrl: options.postgresUrl, logDir: options.logDir, samples: options.quick ? 3 : 5 }));
    }
    if (options.postgresUrl === null) reports.push(notRun('availability: slow-callbacks on PostgreSQL, one and two nodes', 'COFFER_BENCH_DATABASE_URL is not set'));
  }
  for (const format of ['xml', 'json'] as const) {
    if (!chosen(`large-pages-${format}`)) continue;
    progress(`availability: large-pages-${format}`);
    const seconds = options.quick ? 3 : DEFAULT_PAGES_DRILL.seconds;
    reports.push(await availabilityPagesDrill({ ...DEFAULT_PAGES_DRILL, seconds, format, logDir: options.logDir }));
  }
  return reports;
}
