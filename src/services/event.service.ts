import { AppError, MESSAGES, fieldError } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import type { StoreAccess } from '../store/store-access.js';
import { EVENT_TYPES, type EventType } from '../domain/event-types.js';
import type { EventFilter } from '../store/repositories/events.repo.js';
import type { Repositories } from '../store/repositories.js';
import { pageAfter, type ListQuery } from './list-query.js';
import type { Environment } from '../domain/environment.js';
import type { ApiEvent } from '../domain/event.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'events' | 'paymentMethods';

const DAY_MS = 86_400_000;
const DELETE_BATCH = 1000;

/** Reads `event_type` from a query string: one of the recorded types (422 otherwise). */
export function parseEventType(query: Record<string, unknown>): EventType | undefined {
  const raw = query.event_type;
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !(EVENT_TYPES as readonly string[]).includes(raw)) throw new AppError(fieldError.inclusion('event_type'));
  return raw as EventType;
}

/** The events feed (docs/events.md): reads of what the repositories journaled, and its retention. */
export class EventService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    store: StoreAccess<Uses>,
    private readonly clock: Clock,
    private readonly retentionDays: number,
  ) {
    this.repos = store.repos;
  }

  /** One page of the environment's events; `since_token` must name one of them. */
  async list(environment: Environment, query: ListQuery, filter: EventFilter): Promise<ApiEvent[]> {
    const page = await pageAfter(query, (since) => this.repos.events.positionOf(environment.key, since));
    return this.repos.events.list(environment.key, filter, page);
  }

  async show(environment: Environment, token: string): Promise<ApiEvent> {
    const row = await this.repos.events.find(environment.key, token);
    if (row === undefined) throw new AppError({ key: 'errors.event_not_found', message: MESSAGES.eventNotFound });
    return row;
  }

  /** The events of one payment method (404 when the environment has no such method). */
  async forPaymentMethod(environment: Environment, token: string, query: ListQuery, filter: EventFilter): Promise<ApiEvent[]> {
    if ((await this.repos.paymentMethods.find(environment.key, token)) === undefined) {
      throw new AppError({ key: 'errors.payment_method_not_found', message: MESSAGES.paymentMethodNotFound });
    }
    return this.list(environment, query, { ...filter, objectType: 'payment_method', objectKey: token });
  }

  /** Deletes events older than the retention period (a sweep task); how many. */
  async removeExpired(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - this.retentionDays * DAY_MS).toISOString();
    let removed = 0;
    for (;;) {
      const batch = await this.repos.events.deleteBefore(cutoff, DELETE_BATCH);
      removed += batch;
      if (batch < DELETE_BATCH) return removed;
    }
  }
}
