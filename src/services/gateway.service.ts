import { AppError, MESSAGES, fieldError, type ErrorEntry } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import { randomToken, TOKEN_LENGTH } from '../domain/tokens.js';
import { credentialFields, findGatewayDefinition } from '../gateways/registry.js';
import type { GatewayDefinition } from '../gateways/kit/index.js';
import type { StoreHandle } from '../store/database.js';
import { inTransaction, repositories, type Repositories } from '../store/repositories.js';
import { recordChange } from '../store/change-journal.js';
import { gatewayKey, type DefinitionCache } from '../cache/definition-cache.js';
import type { GatewayPatch } from '../store/repositories/gateways.repo.js';
import type { Keyring } from '../vault/keyring.js';
import { pageAfter, type ListQuery } from './list-query.js';
import { newTransaction, recordTransaction } from './transaction-records.js';
import type { Environment } from '../domain/environment.js';
import type { Gateway } from '../domain/gateway.js';
import { TransactionState, type Transaction } from '../domain/transaction.js';

/** Fields a client may set on a gateway, already coerced; credentials by name. */
export interface GatewayInput {
  description?: string | undefined;
  merchantProfileKey?: string | undefined;
  subMerchantKey?: string | undefined;
  sandbox?: boolean | undefined;
  credentials: Record<string, string>;
  /** Coffer-side settings (`gateway_settings`); absent fields are left as they are. */
  settings?: GatewaySettings | undefined;
}

/** Per-gateway settings that are Coffer's, not the gateway's (shown as `gateway_settings`). */
export interface GatewaySettings {
  /** Overrides the deployment's timeout for calls to this gateway (1–600 s). */
  timeout_seconds?: number;
}

/** The settings stored for a gateway. */
export function gatewaySettings(row: Gateway): GatewaySettings {
  return row.settings === null ? {} : (JSON.parse(row.settings) as GatewaySettings);
}

/** A gateway with what its views need besides the row. */
export interface GatewayRecord {
  row: Gateway;
  definition: GatewayDefinition;
}

/** The outcome of a redact: the RedactGateway transaction and the gateway it wraps. */
export interface RedactedGateway {
  transaction: Transaction;
  gateway: GatewayRecord;
}

/** Gateways: create, list, show, update, retain, redact. Credentials are sealed per environment. */
export class GatewayService {
  private readonly repos: Repositories;
  /** Credentials opened per row object; weak, so they go when the row is no longer held. */
  private readonly opened = new WeakMap<Gateway, Promise<Record<string, string>>>();

  constructor(
    private readonly store: StoreHandle,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
    private readonly cache: DefinitionCache,
  ) {
    this.repos = repositories(store.db, store.dialect);
  }

  /** The type's definition, or 422 `errors.invalid_gateway_type`. */
  definitionOf(gatewayType: string | undefined): GatewayDefinition {
    const definition = gatewayType === undefined ? undefined : findGatewayDefinition(gatewayType);
    if (definition === undefined) throw new AppError({ key: 'errors.invalid_gateway_type', message: MESSAGES.invalidGatewayType });
    return definition;
  }

  async create(environment: Environment, gatewayType: string | undefined, input: GatewayInput): Promise<GatewayRecord> {
    const definition = this.definitionOf(gatewayType);
    if (!definition.test && !environment.production) {
      throw new AppError({ key: 'errors.account_inactive', message: MESSAGES.notActivated(environment.key) });
    }
    const missing = [...unknownCredentials(definition, input.credentials), ...missingCredentials(definition, input.credentials, input.sandbox === true)];
    if (missing.length > 0) throw new AppError(missing);
    const token = randomToken(TOKEN_LENGTH.item);
    const now = this.clock.now().toISOString();
    const credentials = await this.splitCredentials(environment.key, token, definition, input.credentials);
    await this.repos.gateways.insert({
      token,
      environment_key: environment.key,
      gateway_type: definition.gatewayType,
      description: input.description ?? null,
      merchant_profile_key: input.merchantProfileKey ?? null,
      sub_merchant_key: input.subMerchantKey ?? null,
      sandbox: input.sandbox === true ? 1 : 0,
      settings: input.settings === undefined || Object.keys(input.settings).length === 0 ? null : JSON.stringify(input.settings),
      state: 'retained',
      ...credentials,
      created_at: now,
      updated_at: now,
    });
    return this.fresh(environment, token);
  }

  async list(environment: Environment, query: ListQuery): Promise<GatewayRecord[]> {
    const page = await pageAfter(query, (token) => this.repos.gateways.find(environment.key, token));
    const rows = await this.repos.gateways.list(environment.key, page);
    return rows.map(withDefinition);
  }

  /**
   * The gateway in this environment, or 404 (another environment's token included). From the
   * node's cache when no gateway, environment or key changed since the request began (the
   * environment of an authenticated request carries the generation it was read under).
   */
  async show(environment: Environment, token: string): Promise<GatewayRecord> {
    const generation = await this.cache.generations.generationFor(environment);
    const row = await this.cache.gateways.read(generation, gatewayKey(environment.key, token), () => this.repos.gateways.find(environment.key, token));
    if (row === undefined) throw new AppError({ key: 'errors.gateway_not_found', message: MESSAGES.gatewayNotFound });
    return withDefinition(row);
  }

  /** The gateway as stored now, bypassing the cache: what a write reads and answers. */
  private async fresh(environment: Environment, token: string): Promise<GatewayRecord> {
    return withDefinition(await this.findRow(this.repos, environment, token));
  }

  async update(environment: Environment, token: string, gatewayType: string | undefined, input: GatewayInput): Promise<GatewayRecord> {
    const current = await this.fresh(environment, token);
    if (gatewayType !== undefined && gatewayType !== current.row.gateway_type) {
      throw new AppError({ key: 'errors.gateway_gateway_type_cannot_be_changed', message: MESSAGES.gatewayTypeCannotBeChanged });
    }
    if (current.row.state === 'redacted') throw new AppError({ key: 'errors.gateway_redacted', message: MESSAGES.gatewayRedacted });
    const patch: GatewayPatch = { updated_at: this.clock.now().toISOString() };
    if (input.description !== undefined) patch.description = input.description;
    if (input.merchantProfileKey !== undefined) patch.merchant_profile_key = input.merchantProfileKey;
    if (input.subMerchantKey !== undefined) patch.sub_merchant_key = input.subMerchantKey;
    if (input.sandbox !== undefined) patch.sandbox = input.sandbox ? 1 : 0;
    if (input.settings !== undefined) patch.settings = JSON.stringify({ ...gatewaySettings(current.row), ...input.settings });
    if (Object.keys(input.credentials).length > 0) {
      const unknown = unknownCredentials(current.definition, input.credentials);
      if (unknown.length > 0) throw new AppError(unknown);
      const merged = { ...(await this.openCredentials(current.row)), ...input.credentials };
      Object.assign(patch, await this.splitCredentials(environment.key, token, current.definition, merged));
    }
    // The state check above may be stale: the write itself refuses a gateway redacted meanwhile.
    if (!(await this.repos.gateways.updateUnlessRedacted(environment.key, token, patch))) {
      throw new AppError({ key: 'errors.gateway_redacted', message: MESSAGES.gatewayRedacted });
    }
    return this.fresh(environment, token);
  }

  /** Gateways created through the API are already retained; retaining again is a no-op. */
  async retain(environment: Environment, token: string): Promise<GatewayRecord> {
    const current = await this.show(environment, token);
    if (current.row.state === 'redacted') throw new AppError({ key: 'errors.gateway_redacted', message: MESSAGES.gatewayRedacted });
    await recordChange(this.store.db, { environmentKey: environment.key, eventType: 'RetainGateway', objectType: 'gateway', objectKey: token });
    return current;
  }

  /** Destroys the credentials and records a RedactGateway transaction, atomically. */
  async redact(environment: Environment, token: string): Promise<RedactedGateway> {
    return inTransaction(this.store, async (repos) => {
      await this.findRow(repos, environment, token);
      const now = this.clock.now().toISOString();
      // Redacting twice is allowed (and recorded again); the update is then a no-op.
      await repos.gateways.updateUnlessRedacted(environment.key, token, { state: 'redacted', safe_credentials: null, sealed_credentials: null, updated_at: now });
      const record = newTransaction({ environmentKey: environment.key, transactionType: 'RedactGateway', outcome: TransactionState.succeeded, gatewayToken: token, now });
      const transaction = await recordTransaction(repos, record);
      return { transaction, gateway: withDefinition(await this.findRow(repos, environment, token)) };
    });
  }

  /**
   * Every credential of a gateway in clear, for the adapter that calls it. Never rendered. Opened
   * once per row object: a cached row keeps its credentials as long as it stays cached (a changed
   * gateway is a new row object, so they can never outlive the row they were opened from).
   */
  async openCredentials(row: Gateway): Promise<Record<string, string>> {
    let opened = this.opened.get(row);
    if (opened === undefined) {
      opened = this.decrypt(row);
      this.opened.set(row, opened);
      // A failed open is not remembered: the next call tries again.
      opened.catch(() => this.opened.delete(row));
    }
    return { ...(await opened) };
  }

  private async decrypt(row: Gateway): Promise<Record<string, string>> {
    const safe = row.safe_credentials === null ? {} : (JSON.parse(row.safe_credentials) as Record<string, string>);
    if (row.sealed_credentials === null) return safe;
    const opened = await this.keyring.openFor(row.environment_key, row.sealed_credentials, credentialsAad(row.token));
    return { ...safe, ...(JSON.parse(opened.toString('utf8')) as Record<string, string>) };
  }

  private async findRow(repos: Repositories, environment: Environment, token: string): Promise<Gateway> {
    const row = await repos.gateways.find(environment.key, token);
    if (row === undefined) throw new AppError({ key: 'errors.gateway_not_found', message: MESSAGES.gatewayNotFound });
    return row;
  }

  /** Safe credentials stay readable (they are echoed); the rest are sealed with the data key. */
  private async splitCredentials(
    environmentKey: string,
    token: string,
    definition: GatewayDefinition,
    credentials: Record<string, string>,
  ): Promise<{ safe_credentials: string | null; sealed_credentials: string | null }> {
    const fields = credentialFields(definition);
    const safe: Record<string, string> = {};
    const secret: Record<string, string> = {};
    for (const [name, value] of Object.entries(credentials)) {
      const field = fields.get(name);
      // Names the type does not declare are refused on input, except on the test gateway: ignored.
      if (field === undefined) continue;
      (field.safe ? safe : secret)[name] = value;
    }
    return {
      safe_credentials: Object.keys(safe).length === 0 ? null : JSON.stringify(safe),
      sealed_credentials:
        Object.keys(secret).length === 0
          ? null
          : await this.keyring.sealFor(environmentKey, Buffer.from(JSON.stringify(secret), 'utf8'), credentialsAad(token)),
    };
  }
}

function withDefinition(row: Gateway): GatewayRecord {
  const definition = findGatewayDefinition(row.gateway_type);
  if (definition === undefined) throw new Error(`gateway ${row.token} has unknown type ${row.gateway_type}`);
  return { row, definition };
}

/** Associated data binding a gateway's sealed credentials to that gateway. */
export function credentialsAad(gatewayToken: string): string {
  return `gateway:${gatewayToken}:credentials`;
}

/**
 * Credential fields a real gateway type does not declare: refused (422 naming each) so a typo never
 * creates a gateway that fails on its first call. The test gateway takes none and ignores any, as
 * Spreedly's does (clients send a `login` to it).
 */
function unknownCredentials(definition: GatewayDefinition, supplied: Record<string, string>): ErrorEntry[] {
  if (definition.test) return [];
  const fields = credentialFields(definition);
  return Object.keys(supplied)
    .filter((name) => !fields.has(name))
    .map((name) => ({ key: 'errors.invalid', attribute: name, message: `${name} is not a credential of the ${definition.name} gateway` }));
}

/**
 * The credentials of the auth mode the client came closest to completing that are still
 * missing (a type with no credentials never misses any).
 */
function missingCredentials(definition: GatewayDefinition, supplied: Record<string, string>, sandbox: boolean): ErrorEntry[] {
  let best: ErrorEntry[] | null = null;
  for (const mode of definition.authModes) {
    const missing = mode.credentials.filter((c) => c.optional !== true && !(c.liveOnly === true && sandbox) && supplied[c.name] === undefined).map((c) => fieldError.blank(c.name));
    if (best === null || missing.length < best.length) best = missing;
  }
  return best ?? [];
}
