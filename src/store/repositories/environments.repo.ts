import type { EnvironmentsRepository } from '../interfaces/environments.js';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { applyPage, type PageRequest } from './page.js';
import { environmentChanges, environmentOf, newEnvironmentRow } from '../mappers/environment.js';
import type { Environment, EnvironmentPatch, NewEnvironment } from '../../domain/environment.js';

/**
 * Single-query primitives over `environments`. The events of their changes are recorded by the
 * services that decide them (docs/events.md).
 */
export class EnvironmentsRepo implements EnvironmentsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(environment: NewEnvironment): Promise<void> {
    await this.db.insertInto('environments').values(newEnvironmentRow(environment)).execute();
  }

  async find(key: string): Promise<Environment | undefined> {
    const row = await this.db.selectFrom('environments').selectAll().where('key', '=', key).executeTakeFirst();
    return row === undefined ? undefined : environmentOf(row);
  }

  /** Where the environment stands in its organization's list (a page's `since_token`); undefined when it is not there. */
  async positionIn(organizationToken: string, key: string): Promise<number | undefined> {
    const row = await this.db.selectFrom('environments').select('seq').where('key', '=', key).where('organization_token', '=', organizationToken).executeTakeFirst();
    return row === undefined ? undefined : Number(row.seq);
  }

  async listByOrganization(organizationToken: string, page: PageRequest): Promise<Environment[]> {
    const query = this.db.selectFrom('environments').selectAll().where('organization_token', '=', organizationToken);
    return (await applyPage(query, 'seq', page).execute()).map(environmentOf);
  }

  /** Applies `patch`; false when there is no such environment. */
  async update(key: string, patch: EnvironmentPatch): Promise<boolean> {
    const result = await this.db.updateTable('environments').set(environmentChanges(patch)).where('key', '=', key).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Stores a first signing secret unless one exists (two nodes racing keep one); false when one did. */
  async setSigningSecretIfAbsent(key: string, sealed: string): Promise<boolean> {
    const result = await this.db.updateTable('environments').set({ sealed_signing_secret: sealed }).where('key', '=', key).where('sealed_signing_secret', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Replaces the sealed signing secret of callbacks (docs/events.md); false when there is no such environment. The secret is never in an event. */
  async setSigningSecret(key: string, sealed: string, updatedAt: string): Promise<boolean> {
    const result = await this.db.updateTable('environments').set({ sealed_signing_secret: sealed, updated_at: updatedAt }).where('key', '=', key).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
