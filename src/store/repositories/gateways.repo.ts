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
}
