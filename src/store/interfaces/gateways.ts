import type { Gateway, GatewayPatch } from '../../domain/gateway.js';
import type { PageRequest } from '../repositories/page.js';

/**
 * Single-query primitives over `gateways`; every read is scoped to one environment, so another
 * environment's token is simply not found. They hand out and take domain objects
 * (mappers/gateway.ts) and record no events: the gateway service records them (docs/events.md).
 */
export interface GatewaysRepository {
  insert(gateway: Gateway): Promise<void>;
  /** Whether any environment holds a gateway with this token (tokens are unique across environments). */
  tokenTaken(token: string): Promise<boolean>;
  find(environmentKey: string, token: string): Promise<Gateway | undefined>;
  /** Where a gateway sits in its environment's list, for a page that starts after it (`since_token`). */
  position(environmentKey: string, token: string): Promise<{
    seq: number;
  } | undefined>;
  /** A page; read a part at a time (page.ts). */
  list(environmentKey: string, page: PageRequest): Promise<Gateway[]>;
  /** Updates a gateway that is not redacted; false when there is none (a redact won a race). Records nothing. */
  updateUnlessRedacted(environmentKey: string, token: string, patch: GatewayPatch): Promise<boolean>;
}
