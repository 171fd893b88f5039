import { BackgroundRounds } from './background-rounds.js';
import type { StoreAccess } from '../store/store-access.js';
import type { OverviewService } from './overview.service.js';

/** The repositories this module reads (docs/architecture.md, "Dependencies"). */
type Uses = 'organizations' | 'environments';

const EVERY_ENVIRONMENT = { sinceSeq: null, order: 'asc', count: 1_000_000 } as const;

/**
 * Keeps the overview's hourly figures counted ahead of the pages (docs/portal.md, "Overview"):
 * a round at start-up fills whatever ended hours a store has not rolled up (a fresh node on a
 * large store, a restore, an import), then one per interval keeps the backlog to the hour that
 * just ended, so the first overview after a start reads stored figures instead of counting a
 * month. Every node runs it; two nodes counting the same hours store the same counts once.
 */
export class OverviewRoller {
  private readonly rounds = new BackgroundRounds(() => this.round());

  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly overview: Pick<OverviewService, 'fillEndedHours'>,
  ) {}

  /** One round: every environment's ended hours, one environment after the other. Returns how many environments it went through. */
  async round(): Promise<number> {
    let environments = 0;
    for (const organization of await this.store.repos.organizations.list()) {
      for (const environment of await this.store.repos.environments.listByOrganization(organization.token, EVERY_ENVIRONMENT)) {
        await this.overview.fillEndedHours(environment.key);
        environments += 1;
      }
    }
    return environments;
  }

  /** A round now, then one per `intervalMs`; a round still under way is not doubled. */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    this.rounds.start(intervalMs, onError, undefined, { immediately: true });
  }

  /** Stops the schedule and waits for a round under way. */
  stop(): Promise<void> {
    return this.rounds.stop();
  }
}
