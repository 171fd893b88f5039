import type { Clock } from '../domain/clock.js';
import { BREAKER_POLICY } from '../limits/circuit-breaker.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import type { FigureRollup } from '../domain/rollup.js';
import type { GatewayService } from './gateway.service.js';
import type { Environment } from '../domain/environment.js';
import { FAILED_STATES, GATEWAY_TRANSACTION_TYPES, type Transaction } from '../domain/transaction.js';
import { breakerOpenings, leadInOf, parseRoutedLabel, paymentRollups, percentileOf, type BreakerLeadIn } from './overview-figures.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'rollups' | 'transactions';

const TYPES = [...GATEWAY_TRANSACTION_TYPES];
const HOUR = 3_600_000;
/** A little more than the longest range (30 UTC days up to the running one); rollups older than it are pruned. */
const KEPT_HOURS = 31 * 24;
/**
 * How ended hours not rolled up yet are counted (docs/portal.md, "Overview"): a backlog of up to
 * `inlineRows` transactions (the hour that just ended) by the page that finds it, in one statement
 * of ~40 ms on SQLite; a longer one (a fresh start on a large store, an import) in the background,
 * in passes of about `passRows` (~10 ms each), so that a page loaded meanwhile waits on at most one
 * pass per statement of its own (docs/benchmarks.md, "Portal pages").
 */
export interface BacklogPolicy {
  inlineRows: number;
  passRows: number;
}

const BACKLOG: BacklogPolicy = { inlineRows: 5_000, passRows: 1_000 };

/** The ranges the overview shows, each in buckets of whole UTC hours aligned to UTC midnight. */
export const OVERVIEW_RANGES = {
  '24h': { label: 'Last 24 hours', buckets: 24, bucketHours: 1 },
  '7d': { label: 'Last 7 days', buckets: 28, bucketHours: 6 },
  '30d': { label: 'Last 30 days', buckets: 30, bucketHours: 24 },
} as const;
export type OverviewRange = keyof typeof OVERVIEW_RANGES;

export function isOverviewRange(value: unknown): value is OverviewRange {
  return typeof value === 'string' && Object.hasOwn(OVERVIEW_RANGES, value);
}

/** One time bucket of a gateway's payments. */
export interface VolumePoint {
  /** The bucket's first hour, ISO text. */
  start: string;
  payments: number;
  approved: number;
}

export interface GatewayFigures {
  token: string;
  gatewayType: string;
  /** The name the merchant gave it (`description`), else its type's name. */
  name: string;
  payments: number;
  approved: number;
  /** approved / payments, 0..1; null without payments. */
  approvalRate: number | null;
  series: VolumePoint[];
  /** Upper bounds of the latency buckets holding p50 and p95 (ms); null without samples; Infinity above the last bucket. */
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  latencySamples: number;
  breakerOpenings: number;
  /** True when its last calls were five faults and the newest is within the open window. */
  breakerOpenNow: boolean;
  retryRescues: number;
  failoverRescues: number;
}

export interface RoutingFigure {
  workflowKey: string;
  /** The rule's name; null for the workflow's default target. */
  rule: string | null;
  decisions: number;
  /** Decisions by the gateway chosen first, most first. */
  gateways: Array<{ token: string; count: number }>;
}

export interface OverviewFigures {
  range: OverviewRange;
  /** First hour of the range and the moment the figures were read (ISO text). */
  from: string;
  until: string;
  bucketHours: number;
  gateways: GatewayFigures[];
  totals: { payments: number; approved: number; approvalRate: number | null; retryRescues: number; failoverRescues: number; breakerOpenings: number };
  /** Unsuccessful payments by normalised error code, most first. */
  declineReasons: Array<{ code: string; count: number }>;
  routing: RoutingFigure[];
  /**
   * Null when every hour of the range is in the figures; otherwise the hour from which ended hours
   * are still being counted in the background (ISO text): the figures leave them out until then.
   */
  countingFrom: string | null;
}

export interface Overview {
  figures: OverviewFigures;
  /** The last unsuccessful gateway transactions within the range, newest first. */
  failures: Transaction[];
}

/**
 * The overview of an environment (docs/portal.md, "Overview"): per gateway, payments and approval
 * rate over time, latency p50/p95, breaker openings, rescues; decline reasons; routing decisions
 * by workflow rule; for 24 hours, 7 or 30 days. Ended hours are counted once into
 * `overview_rollups` (in the background by every node's `OverviewRoller`, a short backlog by the
 * page that finds it; never on a payment's path); the running hour is read from the transactions on each load. A transaction settling after its
 * hour was rolled up is not recounted: the charts are for trends, the transactions page is exact.
 * Redacted gateways are left out.
 */
export class OverviewService {
  private readonly repos: Pick<Repositories, Uses>;
  /** Background counts under way in this process, by environment: one at a time each. */
  private readonly filling = new Map<string, Promise<void>>();

  constructor(
    store: StoreAccess<Uses>,
    private readonly gateways: Pick<GatewayService, 'list'>,
    private readonly clock: Clock,
    private readonly backlog: BacklogPolicy = BACKLOG,
  ) {
    this.repos = store.repos;
  }

  async of(environment: Environment, range: OverviewRange = '24h'): Promise<Overview> {
    const now = this.clock.now().getTime();
    const { buckets, bucketHours } = OVERVIEW_RANGES[range];
    const currentHour = Math.floor(now / HOUR) * HOUR;
    const bucketMs = bucketHours * HOUR;
    const rangeStart = Math.floor(now / bucketMs) * bucketMs - (buckets - 1) * bucketMs;
    const { rows, countingFrom } = await this.hourlyFigures(environment.key, currentHour);
    const fromHour = new Date(rangeStart).toISOString().slice(0, 13);
    const inRange = rows.filter((row) => row.hour >= fromHour);
    const gateways = (await this.gateways.list(environment, { sinceToken: null, order: 'asc', count: 100 })).filter((gateway) => gateway.state !== 'redacted');
    const shown = new Set(gateways.map((gateway) => gateway.token));
    const mine = inRange.filter((row) => shown.has(row.gatewayToken));
    const perGateway: GatewayFigures[] = [];
    for (const gateway of gateways) {
      const own = mine.filter((row) => row.gatewayToken === gateway.token);
      perGateway.push({
        token: gateway.token,
        gatewayType: gateway.gatewayType,
        name: gateway.description ?? gateway.definition.name,
        ...volumeOf(own),
        series: seriesOf(own, rangeStart, buckets, bucketMs),
        ...latencyOf(own),
        breakerOpenings: sum(own, 'breaker_opening'),
        breakerOpenNow: await this.breakerOpenNow(gateway.token, now),
        retryRescues: sum(own, 'retry_rescue'),
        failoverRescues: sum(own, 'failover_rescue'),
      });
    }
    const rangeStartIso = new Date(rangeStart).toISOString();
    const failures = (await this.repos.transactions.newestInStates(environment.key, FAILED_STATES, TYPES, 10))
      .filter((transaction) => transaction.createdAt >= rangeStartIso && (transaction.gatewayToken === null || shown.has(transaction.gatewayToken)))
      .slice(0, 10);
    const figures: OverviewFigures = {
      range,
      from: rangeStartIso,
      until: new Date(now).toISOString(),
      bucketHours,
      gateways: perGateway,
      totals: {
        ...volumeOf(mine),
        retryRescues: sum(mine, 'retry_rescue'),
        failoverRescues: sum(mine, 'failover_rescue'),
        breakerOpenings: sum(mine, 'breaker_opening'),
      },
      declineReasons: ranked(mine.filter((row) => row.figure === 'decline')).map(([code, count]) => ({ code, count })),
      routing: routingOf(mine),
      countingFrom,
    };
    return { figures, failures };
  }

  /**
   * Counts every ended hour of the kept range not rolled up yet, in passes of about `passRows`
   * transactions with a turn of the event loop between them (better-sqlite3 answers synchronously:
   * one month in one statement would hold every other request of the process). Run at start-up
   * and on a schedule by `OverviewRoller`, and by a page that finds a long backlog; a second call
   * while one runs joins it.
   */
  fillEndedHours(environmentKey: string): Promise<void> {
    const running = this.filling.get(environmentKey);
    if (running !== undefined) return running;
    const job = this.fillPasses(environmentKey).finally(() => this.filling.delete(environmentKey));
    this.filling.set(environmentKey, job);
    return job;
  }

  private async fillPasses(environmentKey: string): Promise<void> {
    for (;;) {
      const { since, currentIso } = this.keptRange();
      const from = await this.fillFrom(environmentKey, since);
      if (from >= currentIso) {
        await this.repos.rollups.prune(environmentKey, since.slice(0, 13));
        return;
      }
      const until = await this.passEnd(environmentKey, from, currentIso, this.backlog.passRows);
      await this.repos.rollups.store(environmentKey, await this.countBetween(environmentKey, from, until), until);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** The first hour kept and the running hour (by default the clock's), ISO text. */
  private keptRange(currentHour = Math.floor(this.clock.now().getTime() / HOUR) * HOUR): { since: string; currentIso: string } {
    return { since: new Date(currentHour - (KEPT_HOURS - 1) * HOUR).toISOString(), currentIso: new Date(currentHour).toISOString() };
  }

  /** Where the ended hours not rolled up yet begin. */
  private async fillFrom(environmentKey: string, since: string): Promise<string> {
    const mark = await this.repos.rollups.completeUntil(environmentKey);
    return mark === null || mark < since ? since : mark;
  }

  /**
   * The end of one pass from `from`: the running hour when no more than `rows` transactions lie
   * between, else the end of the hour holding the next one (a pass never splits an hour).
   */
  private async passEnd(environmentKey: string, from: string, currentIso: string, rows: number): Promise<string> {
    const next = await this.repos.rollups.createdAtPosition(environmentKey, from, currentIso, rows);
    if (next === null) return currentIso;
    const end = new Date(Math.floor(Date.parse(next) / HOUR) * HOUR + HOUR).toISOString();
    return end < currentIso ? end : currentIso;
  }

  /** The breaker's rule (API.md §8) over the calls every node wrote: the last five were faults, the newest within the open window. */
  private async breakerOpenNow(gatewayToken: string, now: number): Promise<boolean> {
    const last = await this.repos.rollups.callsBefore(gatewayToken, new Date(now + 1).toISOString(), BREAKER_POLICY.failureThreshold);
    return last.length === BREAKER_POLICY.failureThreshold && last.every((call) => call.fault === true) && now - Date.parse(last[0]?.createdAt ?? '') < BREAKER_POLICY.openMs;
  }

  /**
   * The hourly figures of the kept range: ended hours from the rollups, the running hour from the
   * transactions. A short backlog of ended hours (the hour that just ended) is counted and stored
   * here, once, for every node; a long one is handed to the background (`fillEndedHours`) and the
   * hours it covers are left out of this answer (`countingFrom`).
   */
  private async hourlyFigures(environmentKey: string, currentHour: number): Promise<{ rows: FigureRollup[]; countingFrom: string | null }> {
    const { since, currentIso } = this.keptRange(currentHour);
    let countingFrom: string | null = null;
    const from = await this.fillFrom(environmentKey, since);
    if (from < currentIso) {
      const until = this.filling.has(environmentKey) ? null : await this.passEnd(environmentKey, from, currentIso, this.backlog.inlineRows);
      if (until === currentIso) {
        await this.repos.rollups.store(environmentKey, await this.countBetween(environmentKey, from, currentIso), currentIso);
        await this.repos.rollups.prune(environmentKey, since.slice(0, 13));
      } else {
        countingFrom = from;
      }
    }
    const [ended, running] = await Promise.all([this.repos.rollups.list(environmentKey, since.slice(0, 13)), this.countBetween(environmentKey, currentIso, null)]);
    // Handed off after the read, so this answer holds no half-counted stretch of its own making.
    // A failure there is seen and logged by the roller's next round, which tries again.
    if (countingFrom !== null) this.fillEndedHours(environmentKey).catch(() => undefined);
    return { rows: [...ended, ...running], countingFrom };
  }

  /** Counts every figure of the transactions created in [from, until). */
  private async countBetween(environmentKey: string, from: string, until: string | null): Promise<FigureRollup[]> {
    const [cells, calls] = await Promise.all([this.repos.rollups.paymentCells(environmentKey, from, until), this.repos.rollups.gatewayCalls(environmentKey, from, until)]);
    const leadIns = new Map<string, BreakerLeadIn>();
    for (const token of new Set(calls.filter((call) => call.fault === true).map((call) => call.gatewayToken))) {
      leadIns.set(token, leadInOf(await this.repos.rollups.callsBefore(token, from, 2 * BREAKER_POLICY.failureThreshold)));
    }
    return [...paymentRollups(cells), ...breakerOpenings(calls, leadIns)];
  }
}

function sum(rows: readonly FigureRollup[], figure: FigureRollup['figure']): number {
  return rows.reduce((total, row) => (row.figure === figure ? total + row.count : total), 0);
}

function volumeOf(rows: readonly FigureRollup[]): { payments: number; approved: number; approvalRate: number | null } {
  const payments = sum(rows, 'payments');
  const approved = sum(rows, 'approved');
  return { payments, approved, approvalRate: payments === 0 ? null : approved / payments };
}

function seriesOf(rows: readonly FigureRollup[], start: number, buckets: number, bucketMs: number): VolumePoint[] {
  const points = Array.from({ length: buckets }, (_, i) => ({ start: new Date(start + i * bucketMs).toISOString(), payments: 0, approved: 0 }));
  for (const row of rows) {
    if (row.figure !== 'payments' && row.figure !== 'approved') continue;
    const point = points[Math.floor((Date.parse(`${row.hour}:00:00.000Z`) - start) / bucketMs)];
    if (point === undefined) continue;
    if (row.figure === 'payments') point.payments += row.count;
    else point.approved += row.count;
  }
  return points;
}

function latencyOf(rows: readonly FigureRollup[]): { latencyP50Ms: number | null; latencyP95Ms: number | null; latencySamples: number } {
  const histogram = new Map<string, number>();
  for (const row of rows) if (row.figure === 'latency') histogram.set(row.label, (histogram.get(row.label) ?? 0) + row.count);
  return { latencyP50Ms: percentileOf(histogram, 0.5), latencyP95Ms: percentileOf(histogram, 0.95), latencySamples: sum(rows, 'latency') };
}

/** Sums by label, most first (ties by label). */
function ranked(rows: readonly FigureRollup[]): Array<[string, number]> {
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(row.label, (totals.get(row.label) ?? 0) + row.count);
  return [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** Decisions per workflow rule, most first; ties by workflow, then rule (the default target last). */
function routingOf(rows: readonly FigureRollup[]): RoutingFigure[] {
  const byRule = new Map<string, Map<string, number>>();
  for (const row of rows) {
    if (row.figure !== 'routed') continue;
    const gateways = byRule.get(row.label) ?? new Map<string, number>();
    gateways.set(row.gatewayToken, (gateways.get(row.gatewayToken) ?? 0) + row.count);
    byRule.set(row.label, gateways);
  }
  return [...byRule.entries()]
    .map(([label, gateways]) => ({
      ...parseRoutedLabel(label),
      decisions: [...gateways.values()].reduce((total, n) => total + n, 0),
      gateways: [...gateways.entries()].map(([token, count]) => ({ token, count })).sort((a, b) => b.count - a.count || a.token.localeCompare(b.token)),
    }))
    .sort((a, b) => b.decisions - a.decisions || a.workflowKey.localeCompare(b.workflowKey) || (a.rule ?? '\uffff').localeCompare(b.rule ?? '\uffff'));
}
