import type { ReceiverRow } from '../store/repositories/receivers.repo.js';

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type Receiver = ReceiverRow;
