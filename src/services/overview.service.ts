import type { Clock } from '../domain/clock.js';
import { BREAKER_POLICY } from '../limits/circuit-breaker.js';
import type { StoreHandle } from '../store/database.js';
import { repositories, type Repositories } from '../store/repositories.js';
import type { EnvironmentRow } from '../store/repositories/environments.repo.js';
import type { TransactionRow } from '../store/repositories/transactions.repo.js';
import type { GatewayService } from './gateway.service.js';
import { GATEWAY_TRANSACTION_TYPES } from './transactions/transaction-details.js';

const TYPES = [...GATEWAY_TRANSACTION_TYPES];
/** Outcomes the breaker counts: faults and unknown results, never declines. */
const FAULTS = new Set(['gateway_processing_failed', 'gateway_processing_result_unknown']);
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
  failures: TransactionRow[];
  computedAt: string;
}

/**
 * The overview of an environment: volume and outcomes per gateway over 24 hours (hourly) and 30
 * days (daily), the last failures, and the breakers that are open. Breaker state is read from
 * the transactions every node writes (the last five calls were faults, the newest within the
 * open window), so it is the same whichever node renders the page.
 */
export class OverviewService {
  private readonly repos: Repositories;

  constructor(
    store: StoreHandle,
    private readonly gateways: GatewayService,
    private readonly clock: Clock,
  ) {
    this.repos = repositories(store.db, store.dialect);
  }

  async of(environment: EnvironmentRow): Promise<Overview> {
    const now = this.clock.now().getTime();
    const hourStart = Math.floor(now / HOUR) * HOUR - 23 * HOUR;
    const dayStart = Math.floor(now / DAY) * DAY - 29 * DAY;
    const [gateways, hourly, daily, failures] = await Promise.all([
      this.gateways.list(environment, { sinceToken: null, order: 'asc', count: 100 }),
      this.repos.transactions.volume(environment.key, new Date(hourStart).toISOString(), 13, TYPES),
      this.repos.transactions.volume(environment.key, new Date(dayStart).toISOString(), 10, TYPES),
      this.repos.transactions.recentFailures(environment.key, new Date(dayStart).toISOString(), TYPES, 10),
    ]);
    const result: GatewayOverview[] = [];
    for (const gateway of gateways) {
      const last = await this.repos.transactions.lastOutcomes(gateway.row.token, TYPES, BREAKER_POLICY.failureThreshold);
      const breakerOpen =
        last.length === BREAKER_POLICY.failureThreshold &&
        last.every((t) => FAULTS.has(t.state)) &&
        now - Date.parse(last[0]?.updated_at ?? '') < BREAKER_POLICY.openMs;
      result.push({
        token: gateway.row.token,
        name: gateway.definition.name,
        description: gateway.row.description,
        hours: buckets(hourly, gateway.row.token, 24, (i) => new Date(hourStart + i * HOUR).toISOString().slice(0, 13)),
        days: buckets(daily, gateway.row.token, 30, (i) => new Date(dayStart + i * DAY).toISOString().slice(0, 10)),
        breakerOpen,
      });
    }
    return { gateways: result, failures, computedAt: new Date(now).toISOString() };
  }
}

function buckets(rows: Array<{ gatewayToken: string; bucket: string; succeeded: boolean; count: number }>, gateway: string, n: number, keyOf: (i: number) => string): Bucket[] {
  const byKey = new Map<string, Bucket>();
  const out: Bucket[] = [];
  for (let i = 0; i < n; i += 1) {
    const bucket = { label: keyOf(i), succeeded: 0, failed: 0 };
    byKey.set(bucket.label, bucket);
    out.push(bucket);
  }
  for (const row of rows) {
    if (row.gatewayToken !== gateway) continue;
    const bucket = byKey.get(row.bucket);
    if (bucket === undefined) continue;
    if (row.succeeded) bucket.succeeded += row.count;
    else bucket.failed += row.count;
  }
  return out;
}
