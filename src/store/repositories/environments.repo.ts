import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, EnvironmentsTable } from '../schema.js';
import { applyPage, type PageRequest } from './page.js';
import { journaled } from '../change-journal.js';
import { noteCallbackSubscription } from '../../domain/request-context.js';

export type EnvironmentRow = Selectable<EnvironmentsTable>;
export interface EnvironmentPatch {
  name?: string;
  production?: number;
  allowed_origins?: string | null;
  enhanced_iframe_security?: number;
  callback_url?: string | null;
  callback_format?: string;
  callback_event_types?: string | null;
  updated_at: string;
}

/** Single-query primitives over `environments`. */
export class EnvironmentsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<EnvironmentsTable>): Promise<void> {
    await journaled(this.db, async (db) => {
      await db.insertInto('environments').values(row).execute();
      return { result: undefined, changes: [{ environmentKey: row.key, eventType: 'AddEnvironment', objectType: 'environment', objectKey: row.key, at: row.created_at }] };
    });
  }

  find(key: string): Promise<EnvironmentRow | undefined> {
    return this.db.selectFrom('environments').selectAll().where('key', '=', key).executeTakeFirst();
  }

  listByOrganization(organizationToken: string, page: PageRequest): Promise<EnvironmentRow[]> {
    const query = this.db.selectFrom('environments').selectAll().where('organization_token', '=', organizationToken);
    return applyPage(query, 'seq', page).execute();
  }

  async update(key: string, patch: EnvironmentPatch): Promise<void> {
    // The request's own events from here on look for the subscription it may have just set.
    noteCallbackSubscription(key, true);
    await journaled(this.db, async (db) => {
      const result = await db.updateTable('environments').set(patch).where('key', '=', key).executeTakeFirst();
      const changed = Number(result.numUpdatedRows) > 0;
      return { result: undefined, changes: changed ? [{ environmentKey: key, eventType: 'UpdateEnvironment', objectType: 'environment', objectKey: key, at: patch.updated_at }] : [] };
    });
  }

  /** Stores a first signing secret unless one exists (two nodes racing keep one); false when one did. */
  async setSigningSecretIfAbsent(key: string, sealed: string): Promise<boolean> {
    const result = await this.db.updateTable('environments').set({ sealed_signing_secret: sealed }).where('key', '=', key).where('sealed_signing_secret', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Sets (or clears) the environment-level callback subscription. */
  async setCallback(key: string, callback: { url: string | null; format: string; eventTypes: string[] | null }, updatedAt: string): Promise<void> {
    await this.update(key, { callback_url: callback.url, callback_format: callback.format, callback_event_types: callback.eventTypes === null ? null : JSON.stringify(callback.eventTypes), updated_at: updatedAt });
  }

  /** Replaces the sealed signing secret of callbacks (docs/events.md); never recorded in the event. */
  async setSigningSecret(key: string, sealed: string, updatedAt: string): Promise<boolean> {
    return journaled(this.db, async (db) => {
      const result = await db.updateTable('environments').set({ sealed_signing_secret: sealed, updated_at: updatedAt }).where('key', '=', key).executeTakeFirst();
      const changed = Number(result.numUpdatedRows) > 0;
      return { result: changed, changes: changed ? [{ environmentKey: key, eventType: 'RegenerateSigningSecret', objectType: 'environment', objectKey: key, at: updatedAt }] : [] };
    });
  }
}
