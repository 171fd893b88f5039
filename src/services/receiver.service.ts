import { NO_REQUEST, type RequestMeta } from '../domain/request.js';
import { AppError, fieldError, MESSAGES, type ErrorEntry } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import { Secret } from '../domain/secret.js';
import { randomToken, TOKEN_LENGTH } from '../domain/tokens.js';
import { parseHostnames, type Hostname } from '../receivers/hostnames.js';
import { isReadablePrivateKey, parseHostKeyPin } from '../receivers/sftp-upload.js';
import type { ReceiverTypeDefinition, ReceiverTypes } from '../receivers/receiver-types.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import type { Keyring } from '../vault/keyring.js';
import { pageAfter, type ListQuery } from './list-query.js';
import { newTransaction, recordTransaction } from './transaction-records.js';
import type { Environment } from '../domain/environment.js';
import type { EventType } from '../domain/event-types.js';
import type { Receiver, ReceiverCredential, ReceiverPatch, SealedReceiverSecrets } from '../domain/receiver.js';
import { TransactionState, type Transaction } from '../domain/transaction.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'journal' | 'receivers' | 'transactions';

/** One credential as the client sends it: unsafe ones are sealed and never echoed. */
export interface ReceiverCredentialInput {
  name: string;
  value: string;
  safe: boolean;
}

/** SFTP login; the password and private key are sealed. */
export interface ReceiverProtocolInput {
  user?: string | undefined;
  password?: string | undefined;
  privateKey?: string | undefined;
  /** Host key to pin: an OpenSSH public key line or a SHA256: fingerprint. */
  hostKey?: string | undefined;
}

/** Fields a client may set on a receiver, already coerced. */
export interface ReceiverInput {
  hostnames?: string | undefined;
  credentials?: ReceiverCredentialInput[] | undefined;
  protocol?: ReceiverProtocolInput | undefined;
  subMerchantKey?: string | undefined;
  certificateToken?: string | undefined;
}

/** A receiver with its type's definition. */
export interface ReceiverRecord {
  row: Receiver;
  definition: ReceiverTypeDefinition;
}

/** The outcome of a redact: the RedactReceiver transaction and the receiver it wraps. */
export interface RedactedReceiver {
  transaction: Transaction;
  receiver: ReceiverRecord;
}

/** A receiver's secrets in clear, for the delivery or export that uses them. Never rendered. */
export interface ReceiverSecrets {
  /** Every credential by name (safe and unsafe), for templates. */
  credentials: Record<string, string>;
  /** The unsafe values, to scrub from transcripts and responses. */
  sensitive: string[];
  password: Secret | null;
  privateKey: Secret | null;
}

/** Does a certificate of this environment exist? (The certificates service answers.) */
export type CertificateLookup = (environment: Environment, token: string) => Promise<boolean>;

const MESSAGE_INVALID_TYPE = 'The receiver_type parameter is invalid.';
export const RECEIVER_NOT_FOUND = 'Unable to find the specified receiver.';
const RECEIVER_REDACTED = "Unable to use a receiver because it's been redacted.";

export function receiverNotFound(): AppError {
  return new AppError({ key: 'errors.receiver_not_found', message: RECEIVER_NOT_FOUND });
}

export function receiverRedacted(): AppError {
  return new AppError({ key: 'errors.receiver_redacted', message: RECEIVER_REDACTED });
}

/** Schemes a type's hostnames may use. */
export function hostnameSchemes(definition: ReceiverTypeDefinition): readonly string[] {
  return definition.protocol === 'sftp' ? ['sftp'] : ['https', 'http'];
}

/** Receivers: create, list, show, update, redact. Unsafe credentials and SFTP secrets are sealed. */
export class ReceiverService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
    readonly types: ReceiverTypes,
    private readonly certificateExists: CertificateLookup,
  ) {
    this.repos = store.repos;
  }

  async create(environment: Environment, receiverType: string | undefined, input: ReceiverInput, request: RequestMeta = NO_REQUEST): Promise<ReceiverRecord> {
    const definition = receiverType === undefined ? undefined : this.types.find(receiverType);
    if (definition === undefined) throw new AppError({ key: 'errors.invalid_receiver_type', attribute: 'receiver_type', message: MESSAGE_INVALID_TYPE });
    if (!definition.test && !environment.production) {
      throw new AppError({ key: 'errors.account_inactive', message: MESSAGES.notActivated(environment.key) });
    }
    const hostnames = definition.hostnames ?? input.hostnames;
    const errors = [...hostnameErrors(definition, hostnames), ...credentialErrors(input.credentials ?? []), ...protocolErrors(definition, input.protocol, true)];
    if (errors.length > 0) throw new AppError(errors);
    await this.checkCertificate(environment, input.certificateToken);
    const token = randomToken(TOKEN_LENGTH.item);
    const now = this.clock.now().toISOString();
    const credentials = await this.sealCredentials(environment.key, token, input.credentials ?? []);
    const protocol = await this.sealProtocol(environment.key, token, definition, input.protocol);
    await this.store.unitOfWork(async (repos) => {
      await repos.receivers.insert({
        token,
        environmentKey: environment.key,
        receiverType: definition.receiverType,
        hostnames: normalizeList(hostnames as string),
        state: 'retained',
        companyName: definition.companyName,
        subMerchantKey: input.subMerchantKey ?? null,
        credentials: credentials.credentials,
        protocolUser: protocol.protocolUser,
        hostKey: protocol.hostKey,
        certificateToken: input.certificateToken ?? null,
        createdAt: now,
        updatedAt: now,
        sealed: { credentials: credentials.sealed, protocol: protocol.sealed },
      });
      await recordChange(repos, environment, 'AddReceiver', token, now);
    }, { environment, request });
    return this.show(environment, token);
  }

  async list(environment: Environment, query: ListQuery): Promise<ReceiverRecord[]> {
    const page = await pageAfter(query, (token) => this.repos.receivers.positionOf(environment.key, token));
    const rows = await this.repos.receivers.list(environment.key, page);
    return rows.map((row) => this.withDefinition(row));
  }

  /** The receiver in this environment, or 404 (another environment's token included). */
  async show(environment: Environment, token: string): Promise<ReceiverRecord> {
    return this.withDefinition(await this.findRow(this.repos, environment, token));
  }

  /** Replaces what the body names: the credentials list as a whole, hostnames, protocol, certificate. */
  async update(environment: Environment, token: string, input: ReceiverInput, request: RequestMeta = NO_REQUEST): Promise<ReceiverRecord> {
    const current = await this.show(environment, token);
    if (current.row.state === 'redacted') throw receiverRedacted();
    const { definition } = current;
    const errors: ErrorEntry[] = [];
    if (input.hostnames !== undefined && definition.hostnames === null) errors.push(...hostnameErrors(definition, input.hostnames));
    if (input.credentials !== undefined) errors.push(...credentialErrors(input.credentials));
    if (input.protocol !== undefined) errors.push(...protocolErrors(definition, input.protocol, false));
    if (errors.length > 0) throw new AppError(errors);
    await this.checkCertificate(environment, input.certificateToken);
    const patch: ReceiverPatch = { updatedAt: this.clock.now().toISOString() };
    const sealed: Partial<SealedReceiverSecrets> = {};
    if (input.hostnames !== undefined && definition.hostnames === null) patch.hostnames = normalizeList(input.hostnames);
    if (input.subMerchantKey !== undefined) patch.subMerchantKey = input.subMerchantKey;
    if (input.certificateToken !== undefined) patch.certificateToken = input.certificateToken;
    if (input.credentials !== undefined) {
      const credentials = await this.sealCredentials(environment.key, token, input.credentials);
      patch.credentials = credentials.credentials;
      sealed.credentials = credentials.sealed;
    }
    if (input.protocol !== undefined && definition.protocol === 'sftp') {
      const previous = await this.openSecrets(current.row);
      const merged: ReceiverProtocolInput = {
        user: input.protocol.user ?? current.row.protocolUser ?? undefined,
        password: input.protocol.password ?? (input.protocol.privateKey === undefined ? previous.password?.reveal() : undefined),
        privateKey: input.protocol.privateKey ?? (input.protocol.password === undefined ? previous.privateKey?.reveal() : undefined),
        hostKey: input.protocol.hostKey ?? current.row.hostKey ?? undefined,
      };
      const protocol = await this.sealProtocol(environment.key, token, definition, merged);
      patch.protocolUser = protocol.protocolUser;
      patch.hostKey = protocol.hostKey;
      sealed.protocol = protocol.sealed;
    }
    if (sealed.credentials !== undefined || sealed.protocol !== undefined) patch.sealed = sealed;
    // The state check above may be stale: the write itself refuses a receiver redacted meanwhile.
    if (!(await this.store.unitOfWork((repos) => this.updateUnlessRedacted(repos, environment, token, patch), { environment, request }))) throw receiverRedacted();
    return this.show(environment, token);
  }

  /** Destroys the credentials and SFTP secrets and records a RedactReceiver transaction, atomically. */
  async redact(environment: Environment, token: string, request: RequestMeta = NO_REQUEST): Promise<RedactedReceiver> {
    return this.store.unitOfWork(async (repos) => {
      await this.findRow(repos, environment, token);
      const now = this.clock.now().toISOString();
      await this.updateUnlessRedacted(repos, environment, token, {
        state: 'redacted',
        credentials: [],
        sealed: { credentials: null, protocol: null },
        updatedAt: now,
      });
      const record = newTransaction({ environmentKey: environment.key, transactionType: 'RedactReceiver', outcome: TransactionState.succeeded, now });
      const transaction = await recordTransaction(repos, { ...record, receiverToken: token });
      return { transaction, receiver: this.withDefinition(await this.findRow(repos, environment, token)) };
    }, { environment, request });
  }

  /** Every credential and SFTP secret of a receiver in clear, for the call that uses them. */
  async openSecrets(row: Receiver): Promise<ReceiverSecrets> {
    const credentials: Record<string, string> = {};
    for (const stored of row.credentials) if (stored.value !== undefined) credentials[stored.name] = stored.value;
    const sensitive: string[] = [];
    if (row.sealed.credentials !== null) {
      const opened = await this.keyring.openJsonFor<Record<string, string>>(row.environmentKey, row.sealed.credentials, receiverAad(row.token, 'credentials'));
      for (const [name, value] of Object.entries(opened)) {
        credentials[name] = value;
        if (value !== '') sensitive.push(value);
      }
    }
    let password: Secret | null = null;
    let privateKey: Secret | null = null;
    if (row.sealed.protocol !== null) {
      const opened = await this.keyring.openJsonFor<{ password?: string; private_key?: string }>(row.environmentKey, row.sealed.protocol, receiverAad(row.token, 'protocol'));
      if (opened.password !== undefined) password = new Secret(opened.password);
      if (opened.private_key !== undefined) privateKey = new Secret(opened.private_key);
    }
    return { credentials, sensitive, password, privateKey };
  }

  /** The parsed hostnames a receiver's URLs must match. */
  allowedHostnames(record: ReceiverRecord): Hostname[] {
    return parseHostnames(record.row.hostnames.join(','), hostnameSchemes(record.definition)) ?? [];
  }

  private withDefinition(row: Receiver): ReceiverRecord {
    const definition = this.types.find(row.receiverType);
    // A type removed from the catalog after receivers were made: keep serving it as a plain one.
    return { row, definition: definition ?? { receiverType: row.receiverType, name: row.receiverType, companyName: row.companyName, hostnames: null, protocol: row.protocolUser === null ? 'http' : 'sftp', test: false } };
  }

  /** Updates a receiver not redacted meanwhile and records the change (Update, or Redact for a redact); false when it matched none. */
  private async updateUnlessRedacted(repos: Pick<Repositories, Uses>, environment: Environment, token: string, patch: ReceiverPatch): Promise<boolean> {
    const changed = await repos.receivers.updateUnlessRedacted(environment.key, token, patch);
    if (changed) await recordChange(repos, environment, patch.state === 'redacted' ? 'RedactReceiver' : 'UpdateReceiver', token, patch.updatedAt);
    return changed;
  }

  private async findRow(repos: Pick<Repositories, Uses>, environment: Environment, token: string): Promise<Receiver> {
    const row = await repos.receivers.find(environment.key, token);
    if (row === undefined) throw receiverNotFound();
    return row;
  }

  private async checkCertificate(environment: Environment, token: string | undefined): Promise<void> {
    if (token === undefined) return;
    if (!(await this.certificateExists(environment, token))) {
      throw new AppError({ key: 'errors.invalid', attribute: 'certificate_token', message: 'Certificate token does not name a certificate of this environment' });
    }
  }

  private async sealCredentials(environmentKey: string, token: string, credentials: ReceiverCredentialInput[]): Promise<{ credentials: ReceiverCredential[]; sealed: string | null }> {
    const unsafe: Record<string, string> = {};
    const stored: ReceiverCredential[] = credentials.map((credential) => {
      if (credential.safe) return { name: credential.name, safe: true, value: credential.value };
      unsafe[credential.name] = credential.value;
      return { name: credential.name, safe: false };
    });
    return {
      credentials: stored,
      sealed:
        Object.keys(unsafe).length === 0 ? null : await this.keyring.sealFor(environmentKey, Buffer.from(JSON.stringify(unsafe), 'utf8'), receiverAad(token, 'credentials')),
    };
  }

  private async sealProtocol(
    environmentKey: string,
    token: string,
    definition: ReceiverTypeDefinition,
    protocol: ReceiverProtocolInput | undefined,
  ): Promise<{ protocolUser: string | null; sealed: string | null; hostKey: string | null }> {
    if (definition.protocol !== 'sftp' || protocol === undefined) return { protocolUser: null, sealed: null, hostKey: null };
    const secrets = { ...(protocol.password === undefined ? {} : { password: protocol.password }), ...(protocol.privateKey === undefined ? {} : { private_key: protocol.privateKey }) };
    return {
      protocolUser: protocol.user ?? null,
      sealed: await this.keyring.sealFor(environmentKey, Buffer.from(JSON.stringify(secrets), 'utf8'), receiverAad(token, 'protocol')),
      hostKey: protocol.hostKey ?? null,
    };
  }
}

/** Records a change of a receiver in its unit of work (docs/events.md). */
function recordChange(repos: Pick<Repositories, 'journal'>, environment: Environment, eventType: EventType, token: string, at: string): Promise<void> {
  return repos.journal.record({ environmentKey: environment.key, eventType, objectType: 'receiver', objectKey: token, at });
}

/** Associated data binding a receiver's sealed blobs to that receiver and field. */
export function receiverAad(receiverToken: string, field: 'credentials' | 'protocol'): string {
  return `receiver:${receiverToken}:${field}`;
}

function normalizeList(list: string): string[] {
  return list
    .split(',')
    .map((entry) => entry.trim().replace(/\/$/, ''))
    .filter((entry) => entry !== '');
}

function hostnameErrors(definition: ReceiverTypeDefinition, hostnames: string | undefined): ErrorEntry[] {
  if (hostnames === undefined || hostnames.trim() === '') return [fieldError.blank('hostnames')];
  if (parseHostnames(hostnames, hostnameSchemes(definition)) === null) {
    const schemes = hostnameSchemes(definition).join(' or ');
    return [{ key: 'errors.invalid', attribute: 'hostnames', message: `Hostnames must be a comma-separated list of ${schemes}://host[:port] without a path` }];
  }
  return [];
}

const CREDENTIAL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/;

function credentialErrors(credentials: ReceiverCredentialInput[]): ErrorEntry[] {
  const seen = new Set<string>();
  for (const credential of credentials) {
    if (!CREDENTIAL_NAME.test(credential.name) || seen.has(credential.name)) {
      return [{ key: 'errors.invalid', attribute: 'credentials', message: 'Credentials must have unique names of letters, digits, _ . and -, starting with a letter or _' }];
    }
    seen.add(credential.name);
  }
  return [];
}

function protocolErrors(definition: ReceiverTypeDefinition, protocol: ReceiverProtocolInput | undefined, creating: boolean): ErrorEntry[] {
  if (definition.protocol !== 'sftp') return [];
  const errors: ErrorEntry[] = [];
  if (creating && (protocol?.user === undefined || protocol.user === '')) errors.push(fieldError.blank('user'));
  if (creating && protocol?.password === undefined && protocol?.privateKey === undefined) errors.push(fieldError.blank('password'));
  // A key or pin that cannot be used would only show up later as a failed export: refuse it now.
  if (protocol?.privateKey !== undefined && !isReadablePrivateKey(protocol.privateKey)) {
    errors.push({ key: 'errors.invalid', attribute: 'private_key', message: 'Private key must be an unencrypted OpenSSH or PEM private key' });
  }
  if (protocol?.hostKey !== undefined && !isHostKeyPin(protocol.hostKey)) {
    errors.push({ key: 'errors.invalid', attribute: 'host_key', message: 'Host key must be an OpenSSH public key line or a SHA256: fingerprint' });
  }
  return errors;
}

function isHostKeyPin(pin: string): boolean {
  try {
    parseHostKeyPin(pin);
    return true;
  } catch {
    return false;
  }
}
