import type { Receiver, ReceiverPatch } from '../../domain/receiver.js';
import type { PageRequest } from '../repositories/page.js';

/**
 * Single-query primitives over `receivers`; every read is scoped to one environment, so another
 * environment's token is simply not found. The writes record no event: the service that makes a
 * change records it in the same unit of work (docs/events.md).
 */
export interface ReceiversRepository {
  insert(receiver: Receiver): Promise<void>;
  find(environmentKey: string, token: string): Promise<Receiver | undefined>;
  /** Where a receiver sits in the environment's list (a page cursor); undefined when it is not there. */
  positionOf(environmentKey: string, token: string): Promise<{
    seq: number;
  } | undefined>;
  /** A page; read a part at a time (page.ts). */
  list(environmentKey: string, page: PageRequest): Promise<Receiver[]>;
  /** Updates a receiver that is not redacted; false when there is none (a redact won a race). */
  updateUnlessRedacted(environmentKey: string, token: string, patch: ReceiverPatch): Promise<boolean>;
}
