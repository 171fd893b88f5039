import { AppError, MESSAGES, fieldError } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import type { Role } from '../domain/tenancy.js';
import type { PortalRole } from '../domain/portal-roles.js';
import { grantRefusal, scopeOf, type SecretScope } from '../domain/secret-grants.js';
import { randomToken, TOKEN_LENGTH } from '../domain/tokens.js';
import type { StoreHandle } from '../store/database.js';
import { inTransaction, repositories, type Repositories } from '../store/repositories.js';
import type { Keyring } from '../vault/keyring.js';
import { pageAfter, type ListQuery } from './list-query.js';
import type { AccessSecret } from '../domain/access-secret.js';
import type { Environment } from '../domain/environment.js';
import type { Organization } from '../domain/organization.js';

/** What `coffer init` (and the first `serve`) prints, once. */
export interface InitResult {
  organization_token: string;
  environment_key: string;
  access_secret_key: string;
  access_secret: string;
}

/** A newly created access secret: the row plus the secret, which is never retrievable again. */
export interface CreatedSecret {
  row: AccessSecret;
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
  private readonly repos: Repositories;

  constructor(
    private readonly store: StoreHandle,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
  ) {
    this.repos = repositories(store.db, store.dialect);
  }

  /** True when no organization exists yet. */
  isEmpty(): Promise<boolean> {
    return this.repos.organizations.isEmpty();
  }

  /** Creates organization `default`, test environment `sandbox` and an admin secret. */
  async init(): Promise<InitResult> {
    // The secret hash key is created outside the transaction: SQLite allows one writer.
    await this.keyring.hashSecret('warm-up');
    return inTransaction(this.store, async (repos) => {
      // Two nodes first-starting on one empty PostgreSQL database must not both initialise it.
      await repos.locks.serialize('coffer:init');
      if (!(await repos.organizations.isEmpty())) throw new NotEmptyError();
      const organization = await this.insertOrganization(repos, 'default');
      const environment = await this.insertEnvironment(repos, organization.token, 'sandbox', false);
      const created = await this.insertSecret(repos, organization.token, { name: 'admin', role: 'admin', environmentKeys: null });
      return {
        organization_token: organization.token,
        environment_key: environment.key,
        access_secret_key: created.row.key,
        access_secret: created.secret,
      };
    });
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

  async createEnvironment(organizationToken: string, name: string, production: boolean): Promise<Environment> {
    await this.requireOrganization(organizationToken);
    return this.insertEnvironment(this.repos, organizationToken, requireName(name), production);
  }

  async listEnvironments(organizationToken: string, query: ListQuery): Promise<Environment[]> {
    const page = await pageAfter(query, async (since) => {
      const row = await this.repos.environments.find(since);
      return row?.organization_token === organizationToken ? row : undefined;
    });
    return this.repos.environments.listByOrganization(organizationToken, page);
  }

  /** The organization's environment, or 404. */
  async findEnvironment(organizationToken: string, key: string): Promise<Environment> {
    const environment = await this.repos.environments.find(key);
    if (environment === undefined || environment.organization_token !== organizationToken) {
      throw new AppError({ key: 'errors.environment_not_found', message: MESSAGES.environmentNotFound });
    }
    return environment;
  }

  async renameEnvironment(organizationToken: string, key: string, name: string | undefined): Promise<Environment> {
    await this.findEnvironment(organizationToken, key);
    if (name !== undefined) await this.repos.environments.update(key, { name, updated_at: this.now() });
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
  ): Promise<Environment> {
    await this.findEnvironment(organizationToken, key);
    const patch: Parameters<Repositories['environments']['update']>[1] = { updated_at: this.now() };
    if (settings.allowedOrigins !== undefined) patch.allowed_origins = settings.allowedOrigins.length === 0 ? null : JSON.stringify(settings.allowedOrigins);
    if (settings.enhancedIframeSecurity !== undefined) patch.enhanced_iframe_security = settings.enhancedIframeSecurity ? 1 : 0;
    if (Object.keys(patch).length > 1) await this.repos.environments.update(key, patch);
    return this.findEnvironment(organizationToken, key);
  }

  async createAccessSecret(
    organizationToken: string,
    options: { name: string; role: Role; environmentKeys: string[] | null },
  ): Promise<CreatedSecret> {
    await this.requireOrganization(organizationToken);
    for (const key of options.environmentKeys ?? []) {
      const environment = await this.repos.environments.find(key);
      if (environment === undefined || environment.organization_token !== organizationToken) {
        throw new AppError({ ...fieldError.invalid('environment_key'), message: 'One of the environments named for this secret is not in this organization' });
      }
    }
    await this.keyring.hashSecret('warm-up');
    return this.insertSecret(this.repos, organizationToken, options);
  }

  /** Every access secret (of one organization, or all), oldest first; for the operator's CLI. */
  listAccessSecrets(organizationToken: string | null): Promise<AccessSecret[]> {
    return this.repos.accessSecrets.listByOrganization(organizationToken, EVERYTHING);
  }

  /** Secrets of the organization that can reach one environment (scoped to it, or organization-wide). */
  async listSecretsForEnvironment(organizationToken: string, environmentKey: string): Promise<AccessSecret[]> {
    const all = await this.repos.accessSecrets.listByOrganization(organizationToken, EVERYTHING);
    return all.filter((row) => row.revoked_at === null && secretCoversEnvironment(row, environmentKey));
  }

  findAccessSecret(key: string): Promise<AccessSecret | undefined> {
    return this.repos.accessSecrets.find(key);
  }

  /** Revokes a secret; false when it did not exist or was already revoked. */
  revokeAccessSecret(key: string): Promise<boolean> {
    return this.repos.accessSecrets.revoke(key, this.now());
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
  async revokeAccessSecretFor(portalRole: PortalRole, organizationToken: string, environmentKey: string, secretKey: string): Promise<AccessSecret> {
    const secret = await this.repos.accessSecrets.find(secretKey);
    if (secret === undefined || secret.organization_token !== organizationToken || secret.revoked_at !== null || !secretCoversEnvironment(secret, environmentKey)) {
      throw new AppError({ key: 'errors.access_secret_not_found', message: MESSAGES.accessSecretNotFound });
    }
    const scopes = await this.secretScopes(organizationToken);
    refuseWith(grantRefusal(portalRole, secret.role, scopes(secretEnvironments(secret)), 'revoke'));
    await this.revokeAccessSecret(secret.key);
    return secret;
  }

  /** Where secrets of the organization reach, from one read of its environments' modes. */
  async secretScopes(organizationToken: string): Promise<(environmentKeys: string[] | null) => SecretScope> {
    const environments = await this.repos.environments.listByOrganization(organizationToken, EVERYTHING);
    const modes = new Map(environments.map((row) => [row.key, row.production === 1 ? ('production' as const) : ('test' as const)]));
    return (environmentKeys) => scopeOf(environmentKeys, (key) => modes.get(key));
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private async insertOrganization(repos: Repositories, name: string): Promise<Organization> {
    const now = this.now();
    const row: Organization = { token: randomToken(TOKEN_LENGTH.organization), name, active: 1, created_at: now, updated_at: now };
    await repos.organizations.insert(row);
    return row;
  }

  private async insertEnvironment(repos: Repositories, organizationToken: string, name: string, production: boolean): Promise<Environment> {
    const now = this.now();
    const key = randomToken(TOKEN_LENGTH.environmentKey);
    await repos.environments.insert({ key, organization_token: organizationToken, name, production: production ? 1 : 0, created_at: now, updated_at: now });
    return (await repos.environments.find(key)) as Environment;
  }

  private async insertSecret(
    repos: Repositories,
    organizationToken: string,
    options: { name: string; role: Role; environmentKeys: string[] | null },
  ): Promise<CreatedSecret> {
    const now = this.now();
    const secret = randomToken(TOKEN_LENGTH.accessSecret);
    const key = randomToken(TOKEN_LENGTH.accessSecretKey);
    await repos.accessSecrets.insert({
      key,
      organization_token: organizationToken,
      name: options.name,
      role: options.role,
      environment_keys: options.environmentKeys === null ? null : JSON.stringify(options.environmentKeys),
      secret_hash: await this.keyring.hashSecret(secret),
      revoked_at: null,
      created_at: now,
      updated_at: now,
    });
    return { row: (await repos.accessSecrets.find(key)) as AccessSecret, secret };
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

/** Environment keys a secret is limited to, or null for every environment of its organization. */
export function secretEnvironments(row: AccessSecret): string[] | null {
  return row.environment_keys === null ? null : (JSON.parse(row.environment_keys) as string[]);
}

export function secretCoversEnvironment(row: AccessSecret, environmentKey: string): boolean {
  const scope = secretEnvironments(row);
  return scope === null || scope.includes(environmentKey);
}
