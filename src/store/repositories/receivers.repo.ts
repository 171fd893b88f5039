import type { ReceiversRepository } from '../interfaces/receivers.js';
import type { Kysely } from 'kysely';
import type { Receiver, ReceiverPatch } from '../../domain/receiver.js';
import type { Database } from '../schema.js';
import { receiverOf, receiverPatchRow, receiverRow } from '../mappers/receiver.js';
import { applyPage, readPage, type PageRequest } from './page.js';

/**
 * Single-query primitives over `receivers`; every read is scoped to one environment, so another
 * environment's token is simply not found. The writes record no event: the service that makes a
 * change records it in the same unit of work (docs/events.md).
 */
export class ReceiversRepo implements ReceiversRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(receiver: Receiver): Promise<void> {
    await this.db.insertInto('receivers').values(receiverRow(receiver)).execute();
  }

  async find(environmentKey: string, token: string): Promise<Receiver | undefined> {
    const row = await this.scoped(environmentKey).selectAll().where('token', '=', token).executeTakeFirst();
    return row === undefined ? undefined : receiverOf(row);
  }

  /** Where a receiver sits in the environment's list (a page cursor); undefined when it is not there. */
  positionOf(environmentKey: string, token: string): Promise<{ seq: number } | undefined> {
    return this.scoped(environmentKey).select('seq').where('token', '=', token).executeTakeFirst();
  }

  /** A page; read a part at a time (page.ts). */
  async list(environmentKey: string, page: PageRequest): Promise<Receiver[]> {
    const rows = await readPage(page, (part) => applyPage(this.scoped(environmentKey).selectAll(), 'seq', part).execute());
    return rows.map(receiverOf);
  }

  /** Updates a receiver that is not redacted; false when there is none (a redact won a race). */
  async updateUnlessRedacted(environmentKey: string, token: string, patch: ReceiverPatch): Promise<boolean> {
    const result = await this.db
      .updateTable('receivers')
      .set(receiverPatchRow(patch))
      .where('environment_key', '=', environmentKey)
      .where('token', '=', token)
      .where('state', '!=', 'redacted')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  private scoped(environmentKey: string) {
    return this.db.selectFrom('receivers').where('environment_key', '=', environmentKey);
  }
}
