import type { EnvironmentRow } from '../store/repositories/environments.repo.js';

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type Environment = EnvironmentRow;
