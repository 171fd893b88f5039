import type { DeliveryRow } from '../store/repositories/callbacks.repo.js';
import type { AttemptRow } from '../store/repositories/callbacks.repo.js';
import type { DestinationRow } from '../store/repositories/callbacks.repo.js';

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type CallbackDelivery = DeliveryRow;

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type CallbackAttempt = AttemptRow;

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type CallbackDestination = DestinationRow;
