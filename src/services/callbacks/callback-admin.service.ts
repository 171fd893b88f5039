import { NO_REQUEST, type RequestMeta } from '../../domain/request.js';
import { AppError, fieldError } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import type { StoreAccess } from '../../store/store-access.js';
import { EVENT_TYPES, type EventType } from '../../domain/event-types.js';
import type { Repositories } from '../../store/repositories.js';
import type { EventService } from '../event.service.js';
import { changeEnvironment } from '../environment-changes.js';
import type { CallbackAttempt, CallbackDelivery } from '../../domain/callback.js';
import type { Environment } from '../../domain/environment.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'callbacks' | 'environments' | 'journal';

/** The environment-level subscription, as the API sets it. */
export interface CallbackSubscription {
  url: string | null;
  format: 'xml' | 'json';
  eventTypes: EventType[] | null;
}

/** A delivery and its attempts (the delivery log). */
export interface DeliveryLog {
  delivery: CallbackDelivery;
  attempts: CallbackAttempt[];
}

/** Parses `callback{url, format, event_types}`; 422 on a bad URL, format or event type. */
export function parseSubscription(fields: Record<string, unknown>): CallbackSubscription {
  const errors = [];
  const rawUrl = fields.url;
  let url: string | null = null;
  if (typeof rawUrl === 'string' && rawUrl !== '') {
    try {
      const parsed = new URL(rawUrl);
      if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.username !== '' || parsed.password !== '') errors.push(fieldError.invalid('url'));
      else url = rawUrl;
    } catch {
      errors.push(fieldError.invalid('url'));
    }
  } else if (rawUrl !== undefined && rawUrl !== null && rawUrl !== '') errors.push(fieldError.invalid('url'));
  const format = fields.format === undefined || fields.format === '' ? 'xml' : fields.format;
  if (format !== 'xml' && format !== 'json') errors.push(fieldError.inclusion('format'));
  let eventTypes: EventType[] | null = null;
  const rawTypes = fields.event_types;
  if (rawTypes !== undefined && rawTypes !== null && rawTypes !== '') {
    // JSON sends an array; XML and forms a space- or comma-separated list.
    const list = Array.isArray(rawTypes) ? rawTypes : typeof rawTypes === 'string' ? rawTypes.split(/[\s,]+/).filter((t) => t !== '') : [rawTypes];
    if (list.some((type) => typeof type !== 'string' || !(EVENT_TYPES as readonly string[]).includes(type))) errors.push(fieldError.inclusion('event_types'));
    else eventTypes = list as EventType[];
  }
  if (errors.length > 0) throw new AppError(errors);
  return { url, format: format as 'xml' | 'json', eventTypes };
}

/** The environment's callback subscription, manual redelivery and the delivery log (docs/events.md). */
export class CallbackAdminService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly events: EventService,
    private readonly clock: Clock,
  ) {
    this.repos = store.repos;
  }

  async subscribe(environmentKey: string, subscription: CallbackSubscription, request: RequestMeta = NO_REQUEST): Promise<void> {
    await changeEnvironment(this.store, environmentKey, { callbackUrl: subscription.url, callbackFormat: subscription.format, callbackEventTypes: subscription.eventTypes, updatedAt: this.clock.now().toISOString() }, request);
  }

  /** Queues every callback of the event again (or for the first time); 422 when it has no destination. */
  async redeliver(environment: Environment, eventId: string): Promise<DeliveryLog[]> {
    const event = await this.events.show(environment, eventId);
    const now = this.clock.now().toISOString();
    if ((await this.repos.callbacks.requeueEvent(environment.key, event.token, now)) === 0) {
      await this.repos.callbacks.enqueue({ ...event, createdAt: now });
    }
    const log = await this.log(environment, eventId);
    if (log.length === 0) throw new AppError({ key: 'errors.invalid', attribute: 'callback_url', message: 'No callback URL receives this event.' });
    return log;
  }

  async log(environment: Environment, eventId: string): Promise<DeliveryLog[]> {
    const event = await this.events.show(environment, eventId);
    const deliveries = await this.repos.callbacks.forEvent(environment.key, event.token);
    const attempts = await this.repos.callbacks.attempts(deliveries.map((delivery) => delivery.token));
    return deliveries.map((delivery) => ({ delivery, attempts: attempts.filter((attempt) => attempt.deliveryToken === delivery.token) }));
  }
}
