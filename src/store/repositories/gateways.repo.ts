import type { GatewaysRepository } from '../interfaces/gateways.js';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { applyPage, readPage, type PageRequest } from './page.js';
import { gatewayOf, gatewayRow, gatewayRowPatch } from '../mappers/gateway.js';
import type { Gateway, GatewayPatch } from '../../domain/gateway.js';

/**
 * Single-query primitives over `gateways`; every read is scoped to one environment, so another
 * environment's token is simply not found. They hand out and take domain objects
 * (mappers/gateway.ts) and record no events: the gateway service records them (docs/events.md).
 */
export class GatewaysRepo implements GatewaysRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(gateway: Gateway): Promise<void> {
    await this.db.insertInto('gateways').values(gatewayRow(gateway)).execute();
  }

  /** Whether any environment holds a gateway with this token (tokens are unique across environments). */
  async tokenTaken(token: string): Promise<boolean> {
    const row = await this.db.selectFrom('gateways').select('token').where('token', '=', token).executeTakeFirst();
    return row !== undefined;
  }

  async find(environmentKey: string, token: string): Promise<Gateway | undefined> {
    const row = await this.scoped(environmentKey).where('token', '=', token).executeTakeFirst();
    return row === undefined ? undefined : gatewayOf(row);
  }

  /** Where a gateway sits in its environment's list, for a page that starts after it (`since_token`). */
  position(environmentKey: string, token: string): Promise<{ seq: number } | undefined> {
    return this.db.selectFrom('gateways').select('seq').where('environment_key', '=', environmentKey).where('token', '=', token).executeTakeFirst();
  }

  /** A page; read a part at a time (page.ts). */
  async list(environmentKey: string, page: PageRequest): Promise<Gateway[]> {
    return (await readPage(page, (part) => applyPage(this.scoped(environmentKey), 'seq', part).execute())).map(gatewayOf);
  }

  /** Updates a gateway that is not redacted; false when there is none (a redact won a race). Records nothing. */
  async updateUnlessRedacted(environmentKey: string, token: string, patch: GatewayPatch): Promise<boolean> {
    const result = await this.db
      .updateTable('gateways')
      .set(gatewayRowPatch(patch))
      .where('environment_key', '=', environmentKey)
      .where('token', '=', token)
      .where('state', '!=', 'redacted')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  private scoped(environmentKey: string) {
    return this.db.selectFrom('gateways').selectAll().where('environment_key', '=', environmentKey);
  }
}
