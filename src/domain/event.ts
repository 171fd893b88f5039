import type { EventRow } from '../store/repositories/events.repo.js';

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type ApiEvent = EventRow;
