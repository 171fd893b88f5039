import type { StoreHandle } from '../store/database.js';
import { CacheGenerationRepo } from '../store/repositories/cache-generation.repo.js';
import { GenerationCache, type CacheRegion, type CacheStats } from './generation-cache.js';
import type { AccessSecret } from '../domain/access-secret.js';
import type { Environment } from '../domain/environment.js';
import type { Gateway } from '../domain/gateway.js';
import type { Organization } from '../domain/organization.js';

/** What authenticating one (environment key, secret hash) pair reads from the store. */
export interface AuthRecords {
  environment: Environment;
  organization: Organization;
  secret: AccessSecret;
}

/** How many entries each region holds at most (docs/caching.md: memory bounds). */
export interface CacheCapacity {
  auth: number;
  environments: number;
  organizations: number;
  gateways: number;
}

export const DEFAULT_CACHE_CAPACITY: CacheCapacity = { auth: 5_000, environments: 1_000, organizations: 1_000, gateways: 5_000 };

/**
 * One node's cache of the definitions every request reads (docs/caching.md): authentication, environments,
 * organizations and gateways. One per core; nothing global. Keys never hold a secret: the auth
 * region is keyed by environment key and the secret's keyed hash.
 */
export class DefinitionCache {
  readonly generations: GenerationCache;
  readonly auth: CacheRegion<AuthRecords>;
  readonly environments: CacheRegion<Environment>;
  readonly organizations: CacheRegion<Organization>;
  readonly gateways: CacheRegion<Gateway>;

  constructor(store: StoreHandle, capacity: CacheCapacity = DEFAULT_CACHE_CAPACITY) {
    const repo = new CacheGenerationRepo(store.db);
    // On PostgreSQL a read is a round trip: concurrent requests share one (see GenerationCache).
    this.generations = new GenerationCache(() => repo.read(), { batchReads: store.dialect === 'postgres' });
    this.auth = this.generations.region('auth', capacity.auth);
    this.environments = this.generations.region('environments', capacity.environments);
    this.organizations = this.generations.region('organizations', capacity.organizations);
    this.gateways = this.generations.region('gateways', capacity.gateways);
  }

  stats(): CacheStats {
    return this.generations.stats();
  }
}

/** The auth region's key: the environment key as sent, and the secret's keyed hash (fixed-length hex). */
export function authKey(environmentKey: string, secretHash: string): string {
  return `${secretHash}:${environmentKey}`;
}

/** The gateways region's key: a token is only looked up within its environment. */
export function gatewayKey(environmentKey: string, token: string): string {
  return `${environmentKey}:${token}`;
}
