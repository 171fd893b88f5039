import type { AccessSecretRow } from '../store/repositories/access-secrets.repo.js';

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type AccessSecret = AccessSecretRow;
