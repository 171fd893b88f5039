import { NO_REQUEST, type RequestMeta } from '../domain/request.js';
import { AppError, MESSAGES, fieldError, type ErrorEntry } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import { randomToken, TOKEN_LENGTH } from '../domain/tokens.js';
import { redactablePatchEvent } from '../domain/event-types.js';
import { credentialFields, findGatewayDefinition } from '../gateways/registry.js';
import type { GatewayDefinition } from '../gateways/kit/index.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import { gatewayKey, type DefinitionCache } from '../cache/definition-cache.js';
import type { Keyring } from '../vault/keyring.js';
import { pageAfter, type ListQuery } from './list-query.js';
import { newTransaction, recordTransaction } from './transaction-records.js';
import type { Environment } from '../domain/environment.js';
import type { Gateway, GatewayPatch, GatewaySettings, SealedGatewayCredentials } from '../domain/gateway.js';
import { TransactionState, type Transaction } from '../domain/transaction.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'gateways' | 'journal' | 'transactions';

/** Fields a client may set on a gateway, already coerced; credentials by name. */
export interface GatewayInput {
  description?: string | undefined;
  merchantProfileKey?: string | undefined;
  subMerchantKey?: string | undefined;
  sandbox?: boolean | undefined;
  credentials: Record<string, string>;
  /** Coffer-side settings (`gateway_settings`); absent fields are left as they are. */
  settings?: GatewaySettings | undefined;
  /**
   * The token the gateway had in the vault a merchant moves from (docs/portability.md, "Live
   * migration"), so merchant code keeps its URLs; the route admits it from admins only.
   */
  token?: string | undefined;
}

/** A gateway with the definition of its type, which its views and calls need too. */
export interface GatewayRecord extends Gateway {
  definition: GatewayDefinition;
}

/** The outcome of a redact: the RedactGateway transaction and the gateway it wraps. */
export interface RedactedGateway {
  transaction: Transaction;
  gateway: GatewayRecord;
}

/** Gateways: create, list, show, update, retain, redact. Credentials are sealed per environment. */
export class GatewayService {
  private readonly repos: Pick<Repositories, Uses>;
  /**
   * Sealed credentials opened per sealed group object (one per read of a gateway; the cached
   * gateway and its records share it); weak, so they go when the read is no longer held.
   */
  private readonly opened = new WeakMap<SealedGatewayCredentials, Promise<Record<string, string>>>();

  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
    private readonly cache: DefinitionCache,
  ) {
    this.repos = store.repos;
  }

  /** The type's definition, or 422 `errors.invalid_gateway_type`. */
  definitionOf(gatewayType: string | undefined): GatewayDefinition {
    const definition = gatewayType === undefined ? undefined : findGatewayDefinition(gatewayType);
    if (definition === undefined) throw new AppError({ key: 'errors.invalid_gateway_type', message: MESSAGES.invalidGatewayType });
    return definition;
  }

  async create(environment: Environment, gatewayType: string | undefined, input: GatewayInput, request: RequestMeta = NO_REQUEST): Promise<GatewayRecord> {
    const definition = this.definitionOf(gatewayType);
    if (!definition.test && !environment.production) {
      throw new AppError({ key: 'errors.account_inactive', message: MESSAGES.notActivated(environment.key) });
    }
    const missing = [...unknownCredentials(definition, input.credentials), ...missingCredentials(definition, input.credentials, input.sandbox === true)];
    if (missing.length > 0) throw new AppError(missing);
    const token = input.token ?? randomToken(TOKEN_LENGTH.item);
    const now = this.clock.now().toISOString();
    const credentials = await this.splitCredentials(environment.key, token, definition, input.credentials);
    await this.store.unitOfWork(async (repos) => {
      if (input.token !== undefined && (await repos.gateways.tokenTaken(token))) {
        throw new AppError({ key: 'errors.taken', attribute: 'token', message: 'Token has already been taken' });
      }
      await repos.gateways.insert({
        token,
        environmentKey: environment.key,
        gatewayType: definition.gatewayType,
        description: input.description ?? null,
        merchantProfileKey: input.merchantProfileKey ?? null,
        subMerchantKey: input.subMerchantKey ?? null,
        sandbox: input.sandbox === true,
        settings: input.settings ?? {},
        state: 'retained',
        ...credentials,
        createdAt: now,
        updatedAt: now,
      });
      await repos.journal.record({ environmentKey: environment.key, eventType: 'AddGateway', objectType: 'gateway', objectKey: token, at: now });
    }, { environment, request });
    return this.fresh(environment, token);
  }

  async list(environment: Environment, query: ListQuery): Promise<GatewayRecord[]> {
    const page = await pageAfter(query, (token) => this.repos.gateways.position(environment.key, token));
    return (await this.repos.gateways.list(environment.key, page)).map(withDefinition);
  }

  /**
   * The gateway in this environment, or 404 (another environment's token included). From the
   * node's cache when no gateway, environment or key changed since the request began (the
   * environment of an authenticated request carries the generation it was read under).
   */
  async show(environment: Environment, token: string): Promise<GatewayRecord> {
    const generation = await this.cache.generations.generationFor(environment);
    const gateway = await this.cache.gateways.read(generation, gatewayKey(environment.key, token), () => this.repos.gateways.find(environment.key, token));
    if (gateway === undefined) throw new AppError({ key: 'errors.gateway_not_found', message: MESSAGES.gatewayNotFound });
    return withDefinition(gateway);
  }

  /** The gateway as stored now, bypassing the cache: what a write reads and answers. */
  private async fresh(environment: Environment, token: string): Promise<GatewayRecord> {
    return withDefinition(await this.findGateway(this.repos, environment, token));
  }

  async update(environment: Environment, token: string, gatewayType: string | undefined, input: GatewayInput, request: RequestMeta = NO_REQUEST): Promise<GatewayRecord> {
    const current = await this.fresh(environment, token);
    if (gatewayType !== undefined && gatewayType !== current.gatewayType) {
      throw new AppError({ key: 'errors.gateway_gateway_type_cannot_be_changed', message: MESSAGES.gatewayTypeCannotBeChanged });
    }
    if (current.state === 'redacted') throw new AppError({ key: 'errors.gateway_redacted', message: MESSAGES.gatewayRedacted });
    const patch: GatewayPatch = { updatedAt: this.clock.now().toISOString() };
    if (input.description !== undefined) patch.description = input.description;
    if (input.merchantProfileKey !== undefined) patch.merchantProfileKey = input.merchantProfileKey;
    if (input.subMerchantKey !== undefined) patch.subMerchantKey = input.subMerchantKey;
    if (input.sandbox !== undefined) patch.sandbox = input.sandbox;
    if (input.settings !== undefined) patch.settings = { ...current.settings, ...input.settings };
    if (Object.keys(input.credentials).length > 0) {
      const unknown = unknownCredentials(current.definition, input.credentials);
      if (unknown.length > 0) throw new AppError(unknown);
      const merged = { ...(await this.openCredentials(current)), ...input.credentials };
      Object.assign(patch, await this.splitCredentials(environment.key, token, current.definition, merged));
    }
    // The state check above may be stale: the write itself refuses a gateway redacted meanwhile.
    const updated = await this.store.unitOfWork(async (repos) => {
      const changed = await repos.gateways.updateUnlessRedacted(environment.key, token, patch);
      if (changed) await repos.journal.record({ environmentKey: environment.key, eventType: redactablePatchEvent('Gateway', patch), objectType: 'gateway', objectKey: token, at: patch.updatedAt });
      return changed;
    }, { environment, request });
    if (!updated) throw new AppError({ key: 'errors.gateway_redacted', message: MESSAGES.gatewayRedacted });
    return this.fresh(environment, token);
  }

  /** Gateways created through the API are already retained; retaining again is a no-op. */
  async retain(environment: Environment, token: string, request: RequestMeta = NO_REQUEST): Promise<GatewayRecord> {
    const current = await this.show(environment, token);
    if (current.state === 'redacted') throw new AppError({ key: 'errors.gateway_redacted', message: MESSAGES.gatewayRedacted });
    await this.store.unitOfWork((repos) => repos.journal.record({ environmentKey: environment.key, eventType: 'RetainGateway', objectType: 'gateway', objectKey: token }), { environment, request });
    return current;
  }

  /** Destroys the credentials and records a RedactGateway transaction, atomically. */
  async redact(environment: Environment, token: string, request: RequestMeta = NO_REQUEST): Promise<RedactedGateway> {
    return this.store.unitOfWork(async (repos) => {
      await this.findGateway(repos, environment, token);
      const now = this.clock.now().toISOString();
      // Redacting twice is allowed (and recorded again); the update is then a no-op.
      const patch: GatewayPatch = { state: 'redacted', safeCredentials: {}, sealed: { credentials: null }, updatedAt: now };
      if (await repos.gateways.updateUnlessRedacted(environment.key, token, patch)) {
        await repos.journal.record({ environmentKey: environment.key, eventType: redactablePatchEvent('Gateway', patch), objectType: 'gateway', objectKey: token, at: now });
      }
      const record = newTransaction({ environmentKey: environment.key, transactionType: 'RedactGateway', outcome: TransactionState.succeeded, gatewayToken: token, now });
      const transaction = await recordTransaction(repos, record);
      return { transaction, gateway: withDefinition(await this.findGateway(repos, environment, token)) };
    }, { environment, request });
  }

  /**
   * Every credential of a gateway in clear, for the adapter that calls it. Never rendered. The
   * sealed ones are opened once per read of the gateway (its `sealed` group): a cached gateway
   * keeps them as long as it stays cached (a changed gateway is a new read, so they can never
   * outlive the gateway they were opened from).
   */
  async openCredentials(gateway: Gateway): Promise<Record<string, string>> {
    const { sealed } = gateway;
    if (sealed.credentials === null) return { ...gateway.safeCredentials };
    let opened = this.opened.get(sealed);
    if (opened === undefined) {
      opened = this.decrypt(gateway, sealed.credentials);
      this.opened.set(sealed, opened);
      // A failed open is not remembered: the next call tries again.
      opened.catch(() => this.opened.delete(sealed));
    }
    return { ...gateway.safeCredentials, ...(await opened) };
  }

  private async decrypt(gateway: Gateway, blob: string): Promise<Record<string, string>> {
    return this.keyring.openJsonFor<Record<string, string>>(gateway.environmentKey, blob, credentialsAad(gateway.token));
  }

  private async findGateway(repos: Pick<Repositories, Uses>, environment: Environment, token: string): Promise<Gateway> {
    const gateway = await repos.gateways.find(environment.key, token);
    if (gateway === undefined) throw new AppError({ key: 'errors.gateway_not_found', message: MESSAGES.gatewayNotFound });
    return gateway;
  }

  /** Safe credentials stay readable (they are echoed); the rest are sealed with the data key. */
  private async splitCredentials(
    environmentKey: string,
    token: string,
    definition: GatewayDefinition,
    credentials: Record<string, string>,
  ): Promise<Pick<Gateway, 'safeCredentials' | 'sealed'>> {
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
      safeCredentials: safe,
      sealed: {
        credentials:
          Object.keys(secret).length === 0
            ? null
            : await this.keyring.sealFor(environmentKey, Buffer.from(JSON.stringify(secret), 'utf8'), credentialsAad(token)),
      },
    };
  }
}

function withDefinition(gateway: Gateway): GatewayRecord {
  const definition = findGatewayDefinition(gateway.gatewayType);
  if (definition === undefined) throw new Error(`gateway ${gateway.token} has unknown type ${gateway.gatewayType}`);
  return { ...gateway, definition };
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
