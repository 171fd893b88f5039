import { NO_REQUEST, type RequestMeta } from '../domain/request.js';
import { AppError, MESSAGES, fieldError } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import type { Role } from '../domain/tenancy.js';
import type { PortalRole } from '../domain/portal-roles.js';
import { grantRefusal, scopeOf, type SecretScope } from '../domain/secret-grants.js';
import { randomToken, TOKEN_LENGTH } from '../domain/tokens.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import type { Keyring } from '../vault/keyring.js';
import { pageAfter, type ListQuery } from './list-query.js';
import { changeEnvironment } from './environment-changes.js';
import type { AccessSecret } from '../domain/access-secret.js';
import type { Environment, EnvironmentPatch } from '../domain/environment.js';
import type { ChangeEvent } from '../domain/event.js';
import type { Organization } from '../domain/organization.js';
import { hasCallbackSubscription } from '../domain/environment.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'accessSecrets' | 'environments' | 'journal' | 'locks' | 'organizations';

/** What `coffer init` (and the first `serve`) prints, once. */
export interface InitResult {
  organization_token: string;
  environment_key: string;
  access_secret_key: string;
  access_secret: string;
}

/** A newly created access secret: its record plus the secret, which is never retrievable again. */
export interface CreatedSecret {
  accessSecret: AccessSecret;
  secret: string;
}

// Administrative lists are short; they are read whole.
const EVERYTHING = { sinceSeq: null, order: 'asc', count: 1_000_000 } as const;

export class NotEmptyError extends Error {
  constructor() {
    super('the database already holds organizations; init only runs on an empty database');
    this.name = 'NotEmptyError';
  }
}

/** Organizations, environments and access secrets: used by the CLI and the admin endpoints. */
export class TenancyService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
  ) {
    this.repos = store.repos;
  }

  /** True when no organization exists yet. */
  isEmpty(): Promise<boolean> {
    return this.repos.organizations.isEmpty();
  }

  /** Creates organization `default`, test environment `sandbox` and an admin secret. */
  async init(request: RequestMeta = NO_REQUEST): Promise<InitResult> {
    // The secret hash key is created outside the transaction: SQLite allows one writer.
    await this.keyring.hashSecret('warm-up');
    return this.store.unitOfWork(async (repos) => {
      // Two nodes first-starting on one empty PostgreSQL database must not both initialise it.
      await repos.locks.serialize('coffer:init');
      if (!(await repos.organizations.isEmpty())) throw new NotEmptyError();
      const organization = await this.insertOrganization(repos, 'default');
      const environment = await this.insertEnvironment(repos, organization.token, 'sandbox', false);
      const created = await this.insertSecret(repos, organization.token, { name: 'admin', role: 'admin', environmentKeys: null });
      return {
        organization_token: organization.token,
        environment_key: environment.key,
        access_secret_key: created.accessSecret.key,
        access_secret: created.secret,
      };
    }, { request });
  }

  createOrganization(name: string): Promise<Organization> {
    return this.insertOrganization(this.repos, requireName(name));
  }

  /** The organization, or an error naming the token (CLI input). */
  async requireOrganization(token: string): Promise<Organization> {
    const organization = await this.repos.organizations.find(token);
    if (organization === undefined) throw new Error(`no organization ${token}`);
    return organization;
  }

  listOrganizations(): Promise<Organization[]> {
    return this.repos.organizations.list();
  }

  async setOrganizationActive(token: string, active: boolean): Promise<Organization> {
    const changed = await this.repos.organizations.setActive(token, active, this.now());
    if (!changed) throw new Error(`no organization ${token}`);
    return (await this.repos.organizations.find(token)) as Organization;
  }

  /** The environment, or an error naming the key (CLI input). */
  async requireEnvironment(key: string): Promise<Environment> {
    const environment = await this.repos.environments.find(key);
    if (environment === undefined) throw new Error(`no environment ${key}`);
    return environment;
  }

  async createEnvironment(organizationToken: string, name: string, production: boolean, request: RequestMeta = NO_REQUEST): Promise<Environment> {
    await this.requireOrganization(organizationToken);
    return this.store.unitOfWork((repos) => this.insertEnvironment(repos, organizationToken, requireName(name), production), { request });
  }

  async listEnvironments(organizationToken: string, query: ListQuery): Promise<Environment[]> {
    const page = await pageAfter(query, async (since) => {
      const seq = await this.repos.environments.positionIn(organizationToken, since);
      return seq === undefined ? undefined : { seq };
    });
    return this.repos.environments.listByOrganization(organizationToken, page);
  }

  /** The organization's environment, or 404. */
  async findEnvironment(organizationToken: string, key: string): Promise<Environment> {
    const environment = await this.repos.environments.find(key);
    if (environment === undefined || environment.organizationToken !== organizationToken) {
      throw new AppError({ key: 'errors.environment_not_found', message: MESSAGES.environmentNotFound });
    }
    return environment;
  }

  async renameEnvironment(organizationToken: string, key: string, name: string | undefined, request: RequestMeta = NO_REQUEST): Promise<Environment> {
    await this.findEnvironment(organizationToken, key);
    if (name !== undefined) await changeEnvironment(this.store, key, { name, updatedAt: this.now() }, request);
    return this.findEnvironment(organizationToken, key);
  }

  /**
   * The card form's settings (docs/card-capture.md): the origins that may embed it and tokenize from a
   * browser (already normalised; [] = any), and whether tokenization needs a signature.
   */
  async updateCardCapture(
    organizationToken: string,
    key: string,
    settings: { allowedOrigins?: string[] | undefined; enhancedIframeSecurity?: boolean | undefined },
    request: RequestMeta = NO_REQUEST,
  ): Promise<Environment> {
    await this.findEnvironment(organizationToken, key);
    const patch: EnvironmentPatch = { updatedAt: this.now() };
    if (settings.allowedOrigins !== undefined) patch.allowedOrigins = settings.allowedOrigins.length === 0 ? null : settings.allowedOrigins;
    if (settings.enhancedIframeSecurity !== undefined) patch.enhancedIframeSecurity = settings.enhancedIframeSecurity;
    if (Object.keys(patch).length > 1) await changeEnvironment(this.store, key, patch, request);
    return this.findEnvironment(organizationToken, key);
  }

  /** Google Pay's merchant id for the environment (docs/wallets.md); null clears it. */
  async setGooglePayMerchantId(organizationToken: string, key: string, merchantId: string | null, request: RequestMeta = NO_REQUEST): Promise<Environment> {
    await this.findEnvironment(organizationToken, key);
    await changeEnvironment(this.store, key, { googlePayMerchantId: merchantId, updatedAt: this.now() }, request);
    return this.findEnvironment(organizationToken, key);
  }

  async createAccessSecret(
    organizationToken: string,
    options: { name: string; role: Role; environmentKeys: string[] | null },
    request: RequestMeta = NO_REQUEST,
  ): Promise<CreatedSecret> {
    await this.requireOrganization(organizationToken);
    for (const key of options.environmentKeys ?? []) {
      const environment = await this.repos.environments.find(key);
      if (environment === undefined || environment.organizationToken !== organizationToken) {
        throw new AppError({ ...fieldError.invalid('environment_key'), message: 'One of the environments named for this secret is not in this organization' });
      }
    }
    await this.keyring.hashSecret('warm-up');
    return this.store.unitOfWork((repos) => this.insertSecret(repos, organizationToken, options), { request });
  }

  /** Every access secret (of one organization, or all), oldest first; for the operator's CLI. */
  listAccessSecrets(organizationToken: string | null): Promise<AccessSecret[]> {
    return this.repos.accessSecrets.listByOrganization(organizationToken, EVERYTHING);
  }

  /** Secrets of the organization that can reach one environment (scoped to it, or organization-wide). */
  async listSecretsForEnvironment(organizationToken: string, environmentKey: string): Promise<AccessSecret[]> {
    const all = await this.repos.accessSecrets.listByOrganization(organizationToken, EVERYTHING);
    return all.filter((secret) => secret.revokedAt === null && secretCoversEnvironment(secret, environmentKey));
  }

  findAccessSecret(key: string): Promise<AccessSecret | undefined> {
    return this.repos.accessSecrets.find(key);
  }

  /** Revokes a secret and records RevokeAccessSecret; false when it did not exist or was already revoked. */
  revokeAccessSecret(key: string, request: RequestMeta = NO_REQUEST): Promise<boolean> {
    const now = this.now();
    return this.store.unitOfWork(async (repos) => {
      const revoked = await repos.accessSecrets.revoke(key, now);
      if (revoked !== undefined) await repos.journal.record(secretChange(key, revoked.environmentKeys, 'RevokeAccessSecret', now));
      return revoked !== undefined;
    }, { request });
  }

  /**
   * Refuses (403) a secret of this role limited to these environments (null: organization-wide)
   * that a portal user of this role may not create (src/domain/secret-grants.ts). Called before
   * anything is written, so a refused attempt leaves no trace but the answer.
   */
  async refuseUngrantable(portalRole: PortalRole, organizationToken: string, role: Role, environmentKeys: string[] | null): Promise<void> {
    const scopes = await this.secretScopes(organizationToken);
    refuseWith(grantRefusal(portalRole, role, scopes(environmentKeys), 'create'));
  }

  /**
   * Revokes, for a portal user, a live secret of the organization that reaches the environment:
   * 404 when there is none, 403 (nothing revoked) when the user could not have created it.
   */
  async revokeAccessSecretFor(portalRole: PortalRole, organizationToken: string, environmentKey: string, secretKey: string, request: RequestMeta = NO_REQUEST): Promise<AccessSecret> {
    const secret = await this.repos.accessSecrets.find(secretKey);
    if (secret === undefined || secret.organizationToken !== organizationToken || secret.revokedAt !== null || !secretCoversEnvironment(secret, environmentKey)) {
      throw new AppError({ key: 'errors.access_secret_not_found', message: MESSAGES.accessSecretNotFound });
    }
    const scopes = await this.secretScopes(organizationToken);
    refuseWith(grantRefusal(portalRole, secret.role, scopes(secret.environmentKeys), 'revoke'));
    await this.revokeAccessSecret(secret.key, request);
    return secret;
  }

  /** Where secrets of the organization reach, from one read of its environments' modes. */
  async secretScopes(organizationToken: string): Promise<(environmentKeys: string[] | null) => SecretScope> {
    const environments = await this.repos.environments.listByOrganization(organizationToken, EVERYTHING);
    const modes = new Map(environments.map((environment) => [environment.key, environment.production ? ('production' as const) : ('test' as const)]));
    return (environmentKeys) => scopeOf(environmentKeys, (key) => modes.get(key));
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private async insertOrganization(repos: Pick<Repositories, Uses>, name: string): Promise<Organization> {
    const now = this.now();
    const organization: Organization = { token: randomToken(TOKEN_LENGTH.organization), name, active: true, createdAt: now, updatedAt: now };
    await repos.organizations.insert(organization);
    return organization;
  }

  private async insertEnvironment(repos: Pick<Repositories, Uses>, organizationToken: string, name: string, production: boolean): Promise<Environment> {
    const now = this.now();
    const key = randomToken(TOKEN_LENGTH.environmentKey);
    await repos.environments.insert({ key, organizationToken, name, production, createdAt: now, updatedAt: now });
    const environment = (await repos.environments.find(key)) as Environment;
    // A new environment has no subscription yet: its event needs no look for one.
    await repos.journal.record({ environmentKey: key, eventType: 'AddEnvironment', objectType: 'environment', objectKey: key, at: now, environmentSubscribed: hasCallbackSubscription(environment) });
    return environment;
  }

  private async insertSecret(
    repos: Pick<Repositories, Uses>,
    organizationToken: string,
    options: { name: string; role: Role; environmentKeys: string[] | null },
  ): Promise<CreatedSecret> {
    const now = this.now();
    const secret = randomToken(TOKEN_LENGTH.accessSecret);
    const key = randomToken(TOKEN_LENGTH.accessSecretKey);
    await repos.accessSecrets.insert({
      key,
      organizationToken,
      name: options.name,
      role: options.role,
      environmentKeys: options.environmentKeys,
      secretHash: await this.keyring.hashSecret(secret),
      createdAt: now,
      updatedAt: now,
    });
    await repos.journal.record(secretChange(key, options.environmentKeys, 'CreateAccessSecret', now));
    return { accessSecret: (await repos.accessSecrets.find(key)) as AccessSecret, secret };
  }
}

function refuseWith(refusal: string | null): void {
  if (refusal !== null) throw new AppError({ key: 'errors.forbidden', message: refusal });
}

/** Names are labels people read: blank ones are refused. */
function requireName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new AppError(fieldError.blank('name'));
  return trimmed;
}

export function secretCoversEnvironment(secret: AccessSecret, environmentKey: string): boolean {
  return secret.environmentKeys === null || secret.environmentKeys.includes(environmentKey);
}

/** An access secret's events: in the feed of its first environment, or organization-wide (null) (docs/events.md). */
function secretChange(key: string, environmentKeys: string[] | null, eventType: 'CreateAccessSecret' | 'RevokeAccessSecret', at: string): ChangeEvent {
  return { environmentKey: environmentKeys?.[0] ?? null, eventType, objectType: 'access_secret', objectKey: key, at };
}
