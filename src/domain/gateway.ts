import type { GatewayRow } from '../store/repositories/gateways.repo.js';

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type Gateway = GatewayRow;
