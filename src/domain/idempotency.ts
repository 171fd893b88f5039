import type { IdempotencyRow } from '../store/repositories/idempotency.repo.js';

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type IdempotencyRecord = IdempotencyRow;
