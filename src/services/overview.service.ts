import type { Clock } from '../domain/clock.js';
import { BREAKER_POLICY } from '../limits/circuit-breaker.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import type { GatewayHourRollup, GatewayVolumeCell } from '../domain/rollup.js';
import type { GatewayService } from './gateway.service.js';
import type { Environment } from '../domain/environment.js';
import { FAILED_STATES, FAULT_STATES, GATEWAY_TRANSACTION_TYPES, type Transaction } from '../domain/transaction.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'rollups' | 'transactions';

const TYPES = [...GATEWAY_TRANSACTION_TYPES];
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** One bar: a time bucket's succeeded and unsuccessful gateway transactions. */
export interface Bucket {
  label: string;
  succeeded: number;
  failed: number;
}

export interface GatewayOverview {
  token: string;
  name: string;
  description: string | null;
  hours: Bucket[];
  days: Bucket[];
  /** True when its last calls were faults and the breaker's open window has not passed. */
  breakerOpen: boolean;
}

export interface Overview {
  gateways: GatewayOverview[];
  failures: Transaction[];
  computedAt: string;
}

/**
 * The overview of an environment: volume and outcomes per gateway over 24 hours (hourly) and 30
 * days (daily), the last failures, and the breakers that are open. Ended hours are read from
 * `transaction_rollups` (a transaction settling after its hour was rolled up is not recounted:
 * the charts are for trends, the transactions page is exact). Breaker state is read from
 * the transactions every node writes (the last five calls were faults, the newest within the
 * open window), so it is the same whichever node renders the page.
 */
export class OverviewService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    store: StoreAccess<Uses>,
    private readonly gateways: GatewayService,
    private readonly clock: Clock,
  ) {
    this.repos = store.repos;
  }

  async of(environment: Environment): Promise<Overview> {
    const now = this.clock.now().getTime();
    const currentHour = Math.floor(now / HOUR) * HOUR;
    const hourStart = currentHour - 23 * HOUR;
    const dayStart = Math.floor(now / DAY) * DAY - 29 * DAY;
    const hourly = await this.hourlyCounts(environment.key, dayStart, currentHour);
    const gateways = await this.gateways.list(environment, { sinceToken: null, order: 'asc', count: 100 });
    const failures = (await this.repos.transactions.newestInStates(environment.key, FAILED_STATES, TYPES, 10))
      .filter((transaction) => transaction.createdAt >= new Date(dayStart).toISOString())
      .slice(0, 10);
    const result: GatewayOverview[] = [];
    for (const gateway of gateways) {
      const last = await this.repos.transactions.lastOutcomes(gateway.token, TYPES, BREAKER_POLICY.failureThreshold);
      const breakerOpen =
        last.length === BREAKER_POLICY.failureThreshold &&
        last.every((t) => FAULT_STATES.includes(t.state)) &&
        now - Date.parse(last[0]?.updatedAt ?? '') < BREAKER_POLICY.openMs;
      const mine = hourly.filter((row) => row.gatewayToken === gateway.token);
      result.push({
        token: gateway.token,
        name: gateway.definition.name,
        description: gateway.description,
        hours: buckets(mine, 24, (i) => new Date(hourStart + i * HOUR).toISOString().slice(0, 13), 13),
        days: buckets(mine, 30, (i) => new Date(dayStart + i * DAY).toISOString().slice(0, 10), 10),
        breakerOpen,
      });
    }
    return { gateways: result, failures, computedAt: new Date(now).toISOString() };
  }

  /**
   * Hourly counts from `since` to now: ended hours from the rollups (computing and storing those
   * not rolled up yet, once, for every node), the running hour from the transactions.
   */
  private async hourlyCounts(environmentKey: string, since: number, currentHour: number): Promise<GatewayHourRollup[]> {
    const sinceIso = new Date(since).toISOString();
    const currentIso = new Date(currentHour).toISOString();
    const mark = await this.repos.rollups.completeUntil(environmentKey);
    const from = mark === null || mark < sinceIso ? sinceIso : mark;
    if (from < currentIso) {
      const fresh = await this.repos.transactions.volume(environmentKey, from, currentIso, 13, TYPES);
      await this.repos.rollups.store(environmentKey, toRollups(fresh), currentIso);
      await this.repos.rollups.prune(environmentKey, sinceIso.slice(0, 13));
    }
    const [ended, running] = await Promise.all([
      this.repos.rollups.list(environmentKey, sinceIso.slice(0, 13)),
      this.repos.transactions.volume(environmentKey, currentIso, null, 13, TYPES),
    ]);
    return [...ended, ...toRollups(running)];
  }
}

/** Volume rows (one per outcome) as rollups (both outcomes in one row). */
function toRollups(rows: GatewayVolumeCell[]): GatewayHourRollup[] {
  const byKey = new Map<string, GatewayHourRollup>();
  for (const row of rows) {
    const key = `${row.gatewayToken} ${row.bucket}`;
    const rollup = byKey.get(key) ?? { gatewayToken: row.gatewayToken, hour: row.bucket, succeeded: 0, failed: 0 };
    if (row.succeeded) rollup.succeeded += row.count;
    else rollup.failed += row.count;
    byKey.set(key, rollup);
  }
  return [...byKey.values()];
}

/** `n` buckets keyed by `keyOf`, summing the rollups whose hour starts with the key. */
function buckets(rows: GatewayHourRollup[], n: number, keyOf: (i: number) => string, keyChars: 10 | 13): Bucket[] {
  const byKey = new Map<string, Bucket>();
  const out: Bucket[] = [];
  for (let i = 0; i < n; i += 1) {
    const bucket = { label: keyOf(i), succeeded: 0, failed: 0 };
    byKey.set(bucket.label, bucket);
    out.push(bucket);
  }
  for (const row of rows) {
    const bucket = byKey.get(row.hour.slice(0, keyChars));
    if (bucket === undefined) continue;
    bucket.succeeded += row.succeeded;
    bucket.failed += row.failed;
  }
  return out;
}
