import type { Access } from '../domain/tenancy.js';
import { isRole, roleAllows } from '../domain/tenancy.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import type { Clock } from '../domain/clock.js';
import { Keyring } from '../vault/keyring.js';
import { secretCoversEnvironment } from './tenancy.service.js';
import { authKey, type AuthRecords, type DefinitionCache } from '../cache/definition-cache.js';
import type { AccessSecret } from '../domain/access-secret.js';
import type { Environment } from '../domain/environment.js';
import type { Organization } from '../domain/organization.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'accessSecrets' | 'environments' | 'organizations';

/**
 * Who is calling: resolved from HTTP Basic credentials on every authenticated request. They
 * may come from the node's cache: frozen, shared, and `secret.lastUsedAt` may lag.
 */
export interface AuthContext {
  environment: Environment;
  organization: Organization;
  secret: AccessSecret;
}

/**
 * What `AuthService.decide` concluded: the caller, or why not. `role` and `scope` are only given
 * to a caller whose environment key and secret belong together.
 */
export type AuthDecision =
  | { context: AuthContext }
  | { refused: 'credentials' }
  | { refused: 'role'; role: string }
  | { refused: 'scope' };

/**
 * Checks an environment key and access secret. Secrets are looked up by their keyed hash
 * (HMAC, microseconds) rather than verified with a slow password hash: they are 48 random
 * base-62 characters, so there is nothing to brute-force, and the hash key lives outside
 * the database (wrapped by the master key).
 */
export class AuthService {
  private readonly repos: Pick<Repositories, Uses>;
  /** When this node last wrote each secret's `last_used_at` (ms): at most once a minute. */
  private readonly lastTouched = new Map<string, number>();

  constructor(
    store: StoreAccess<Uses>,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
    private readonly cache: DefinitionCache,
  ) {
    this.repos = store.repos;
  }

  /**
   * The caller's context, or null for any failure (the caller answers 401 without saying which).
   * One query (the cache generation) when this node has seen the pair since the last change of a
   * secret, environment, organization or key anywhere (docs/caching.md); the records otherwise.
   */
  async authenticate(environmentKey: string, secret: string, access: Access, organizationWide: boolean): Promise<AuthContext | null> {
    const decision = await this.decide(environmentKey, secret, access, organizationWide);
    return 'context' in decision ? decision.context : null;
  }

  /**
   * As `authenticate`, saying why a caller is refused. Only a caller who proved the secret (the
   * environment key and the secret belong together) learns that its role or scope is the reason;
   * anything else is `credentials`, so a wrong secret learns nothing.
   */
  async decide(environmentKey: string, secret: string, access: Access, organizationWide: boolean): Promise<AuthDecision> {
    // Hash first, whatever the environment key, so a bad key and a bad secret cost the same.
    const [hash, generation] = await Promise.all([this.keyring.hashSecret(secret), this.cache.generations.begin()]);
    const records = await this.cache.auth.read(generation, authKey(environmentKey, hash), () => this.load(environmentKey, hash));
    if (records === undefined) return { refused: 'credentials' };
    const { environment, organization, secret: accessSecret } = records;
    if (!Keyring.sameHash(accessSecret.secretHash, hash)) return { refused: 'credentials' };
    if (!secretCoversEnvironment(accessSecret, environment.key)) return { refused: 'credentials' };
    if (!isRole(accessSecret.role) || !roleAllows(accessSecret.role, access)) return { refused: 'role', role: accessSecret.role };
    if (organizationWide && accessSecret.environmentKeys !== null) return { refused: 'scope' };
    this.noteUse(accessSecret);
    return { context: { environment, organization, secret: accessSecret } };
  }

  /** A live secret and the environment it names, when they belong together. */
  private async load(environmentKey: string, hash: string): Promise<AuthRecords | undefined> {
    const [environment, secret] = await Promise.all([this.repos.environments.find(environmentKey), this.repos.accessSecrets.findLiveByHash(hash)]);
    if (environment === undefined || secret === undefined) return undefined;
    if (secret.organizationToken !== environment.organizationToken) return undefined;
    const organization = await this.repos.organizations.find(environment.organizationToken);
    return organization === undefined ? undefined : { environment, organization, secret };
  }

  /**
   * Records that a secret was used, for the portal's "last used" column: one write a minute per
   * secret and node, off the request's path (a failed write only leaves the column older).
   */
  private noteUse(secret: AccessSecret): void {
    const now = this.clock.now().getTime();
    if (now - (this.lastTouched.get(secret.key) ?? 0) < TOUCH_EVERY_MS) return;
    if (this.lastTouched.size >= MAX_TRACKED) this.lastTouched.clear();
    this.lastTouched.set(secret.key, now);
    void this.repos.accessSecrets.touch(secret.key, new Date(now).toISOString()).catch(() => undefined);
  }
}

const TOUCH_EVERY_MS = 60_000;
/** Bounds the map; clearing it only costs an extra write per secret. */
const MAX_TRACKED = 10_000;
