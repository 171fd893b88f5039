import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, GatewaysTable } from '../schema.js';
import { EnvironmentScopedRepo, updateUnlessRedacted } from './environment-scoped.repo.js';

export type GatewayRow = Selectable<GatewaysTable>;
export type GatewayPatch = Omit<Updateable<GatewaysTable>, 'seq' | 'token' | 'environment_key' | 'gateway_type' | 'created_at'>;

/** Single-query primitives over `gateways`; every read is scoped to one environment. */
export class GatewaysRepo extends EnvironmentScopedRepo<'gateways'> {
  constructor(db: Kysely<Database>) {
    super(db, 'gateways');
  }

  /** Updates a gateway that is not redacted; false when there is none (a redact won a race). */
  updateUnlessRedacted(environmentKey: string, token: string, patch: GatewayPatch): Promise<boolean> {
    return updateUnlessRedacted(this.db, 'gateways', { environmentKey, token }, patch);
  }

  /** Gateways of an environment whose credentials were not sealed by `keyId`, for re-encryption. */
  sealedWithOtherKey(environmentKey: string, keyId: string, limit: number): Promise<Array<{ token: string; sealed_credentials: string | null }>> {
    return this.db
      .selectFrom('gateways')
      .select(['token', 'sealed_credentials'])
      .where('environment_key', '=', environmentKey)
      .where('sealed_credentials', 'is not', null)
      .where('sealed_credentials', 'not like', `c1.${keyId}.%`)
      .limit(limit)
      .execute();
  }

  /** Replaces the sealed credentials only if they are still the blob that was read. */
  async replaceSealed(environmentKey: string, token: string, from: string, to: string): Promise<boolean> {
    const result = await this.db
      .updateTable('gateways')
      .set({ sealed_credentials: to })
      .where('environment_key', '=', environmentKey)
      .where('token', '=', token)
      .where('sealed_credentials', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
