import { AppError, type ErrorEntry } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import type { Environment } from '../../domain/environment.js';
import type {
  BankAccountInput,
  CardInput,
  JsonValue,
  Metadata,
  NewPaymentMethod,
  PaymentMethod,
  PaymentMethodCreateInput,
  ThirdPartyTokenInput,
} from '../../domain/payment-method.js';
import { TransactionState, type NewTransaction, type Transaction } from '../../domain/transaction.js';
import type { ChangeEvent } from '../../domain/event.js';
import type { RequestMeta } from '../../domain/request.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { PaymentMethodSealer, SealedFields } from '../payment-method-sealer.js';
import { checkMetadata, emailErrors } from '../payment-method-validation.js';
import { creationEvents, newTransaction, recordTransaction } from '../transaction-records.js';

/** What adoption writes through: the methods, their transactions and the journal. */
export type AdoptStore = StoreAccess<'paymentMethods' | 'transactions' | 'journal'>;

/** What adoption needs besides the store. */
export interface AdoptDeps {
  store: AdoptStore;
  /** The same sealer tokenization uses: data keys, fingerprints, associated data per token and field. */
  sealer: PaymentMethodSealer;
  clock: Clock;
  /** A cached method's caching window, as for tokenized ones (config `cacheTtlSeconds`). */
  cacheTtlSeconds: number;
}

/**
 * A payment method held elsewhere, to be held here under `token`. The sensitive values (number,
 * bank numbers) are plaintext here and only here: they go to the sealer and nowhere else. A CVV is
 * never part of it (PCI DSS 3.3.1): a `verification_value` in `card` is refused, never sealed.
 */
export interface AdoptedPaymentMethod {
  /** The token it will hold; the caller has already checked it fits (docs/portability.md, "Token rules"). */
  token: string;
  type: 'credit_card' | 'bank_account' | 'third_party_token';
  card?: CardInput;
  bankAccount?: BankAccountInput;
  thirdParty?: ThirdPartyTokenInput;
  /** `retained` or `cached` (a cached one gets a caching window from now). */
  storageState: 'retained' | 'cached';
  /** ISO-8601; now when absent. */
  createdAt?: string | null;
  email?: string | null;
  /** Checked against the metadata limits like a create's. */
  metadata?: Metadata | null;
  data?: JsonValue | null;
  /** The network transaction id merchant-initiated charges will carry (stored credentials). */
  networkTransactionId?: string | null;
}

export interface AdoptOptions {
  /** Keep a card whose expiry has passed (off: refused as `errors.expired` on `year`). */
  allowExpired?: boolean;
  /** Accept blank names (on by default: other vaults and processors often hold none). */
  allowBlankName?: boolean;
  /**
   * More details recorded on each `ImportPaymentMethod` transaction (such as where the card came
   * from: a file import's id, an upstream); `retained` is always recorded.
   */
  transactionDetails?: Record<string, JsonValue>;
  /**
   * The API request that caused the adoption (a file import's POST, the request that named a
   * missing token or started a backfill): its id is stamped on the events recorded with each method.
   */
  request?: RequestMeta;
}

/**
 * What became of one method:
 * - `imported`: sealed and stored under the token, with its `ImportPaymentMethod` transaction and event;
 * - `skipped`: the token already holds the same method in this environment (same card fingerprint;
 *   same bank numbers; same third-party reference and gateway type): nothing written;
 * - `conflict`: the token is held by a different method (or by any method of another environment);
 * - `rejected`: the input is invalid (`errors` name fields and never carry their values), or a real
 *   card in an environment not activated for production (`errors.account_inactive`).
 */
export type AdoptResult =
  | { outcome: 'imported'; paymentMethod: PaymentMethod; transaction: Transaction }
  | { outcome: 'skipped'; paymentMethod: PaymentMethod }
  | { outcome: 'conflict' }
  | { outcome: 'rejected'; errors: ErrorEntry[] };

/**
 * What became of one method, without the records (a bulk import counts outcomes and needs
 * nothing else: building and holding a batch's stored views and transactions was most of what
 * it promoted to V8's old generation, and so of its resident memory; docs/benchmarks.md, "Import").
 */
export type AdoptOutcome = { outcome: 'imported' } | { outcome: 'skipped' } | { outcome: 'conflict' } | { outcome: 'rejected'; errors: ErrorEntry[] };

/**
 * A method validated and sealed, ready for its unit of work. It keeps only what the write needs:
 * not the input (its plaintext number included), so a bulk import that seals each row as it reads
 * it holds a batch of these and nothing of the rows themselves (docs/benchmarks.md, "Import").
 */
export interface PreparedMethod {
  prepared: true;
  retained: boolean;
  method: NewPaymentMethod;
  sealed: SealedFields;
  /** Bank numbers kept for comparison with a holder in the same batch or store; never written. */
  bank: { routing: string; account: string } | null;
}

/**
 * Seals one payment method exactly as tokenization does and stores it under the GIVEN token, with
 * its non-sensitive fields as given, recording an `ImportPaymentMethod` transaction and event in the
 * same unit of work (all or nothing). Used by the file import and by live migration's pull-through.
 *
 * Signature (stable): `adoptPaymentMethod(deps, environment, input, options?) → AdoptResult`.
 * Idempotent: adopting the same method under the same token again is `skipped`.
 */
export async function adoptPaymentMethod(deps: AdoptDeps, environment: Environment, input: AdoptedPaymentMethod, options: AdoptOptions = {}): Promise<AdoptResult> {
  const [result] = await adoptPaymentMethods(deps, environment, [input], options);
  return result as AdoptResult;
}

/**
 * As `adoptPaymentMethod` for a batch, in one unit of work (one database transaction for all of
 * them: the import's speed). Results are in input order. If the batch's unit of work fails (a
 * token taken meanwhile by a concurrent writer), each method is tried again in a unit of its own,
 * so one collision costs one method, never the batch.
 */
export async function adoptPaymentMethods(deps: AdoptDeps, environment: Environment, inputs: AdoptedPaymentMethod[], options: AdoptOptions = {}): Promise<AdoptResult[]> {
  return (await adoptBatch(deps, environment, inputs, options)) as AdoptResult[];
}

/** The batch prepared, then stored in one unit of work; full results (AdoptResult), in input order. */
async function adoptBatch(deps: AdoptDeps, environment: Environment, inputs: AdoptedPaymentMethod[], options: AdoptOptions): Promise<AdoptOutcome[]> {
  const now = deps.clock.now();
  const results: (AdoptOutcome | undefined)[] = new Array<AdoptOutcome | undefined>(inputs.length);
  const ready: { index: number; prepared: PreparedMethod }[] = [];
  // Index loops, not entries(): an iterator result and a pair per method add up over a million (docs/benchmarks.md, "Import").
  for (let index = 0; index < inputs.length; index += 1) {
    const prepared = await prepare(deps, environment, inputs[index] as AdoptedPaymentMethod, options, now);
    if ('errors' in prepared) results[index] = { outcome: 'rejected', errors: prepared.errors };
    else ready.push({ index, prepared });
  }
  if (ready.length > 0) {
    const written = await storePrepared(deps, environment, ready.map((item) => item.prepared), options, now, false);
    for (let position = 0; position < ready.length; position += 1) results[(ready[position] as { index: number }).index] = written[position];
  }
  return results as AdoptOutcome[];
}

/**
 * Prepared methods in one unit of work (outcomes in their order). If it fails (a token taken
 * meanwhile by a concurrent writer), each is tried again in a unit of its own, so one collision
 * costs one method, never the batch.
 */
async function storePrepared(deps: AdoptDeps, environment: Environment, prepared: PreparedMethod[], options: AdoptOptions, now: Date, lean: boolean): Promise<AdoptOutcome[]> {
  const scope = options.request === undefined ? { environment } : { environment, request: options.request };
  try {
    return await deps.store.unitOfWork((repos) => store(deps, repos, environment, prepared, options, now, lean), scope);
  } catch (error) {
    if (prepared.length === 1) throw error;
    const written: AdoptOutcome[] = [];
    for (const item of prepared) written.push(...(await deps.store.unitOfWork((repos) => store(deps, repos, environment, [item], options, now, lean), scope)));
    return written;
  }
}

/** Validates and seals one method; the field errors otherwise (values never in them). */
export async function prepare(deps: AdoptDeps, environment: Environment, input: AdoptedPaymentMethod, options: AdoptOptions, now: Date): Promise<PreparedMethod | { errors: ErrorEntry[] }> {
  if (input.card?.verification_value !== undefined) {
    return { errors: [{ key: 'errors.invalid', attribute: 'verification_value', message: 'A verification value (CVV) cannot be imported: it is never stored (PCI DSS 3.3.1)' }] };
  }
  const createInput: PaymentMethodCreateInput = {
    type: input.type,
    retained: input.storageState === 'retained',
    singleUse: false,
    allowBlankName: options.allowBlankName ?? true,
    allowExpiredDate: options.allowExpired ?? false,
    allowBlankDate: false,
    ...(input.card === undefined ? {} : { card: input.card }),
    ...(input.bankAccount === undefined ? {} : { bankAccount: input.bankAccount }),
    ...(input.thirdParty === undefined ? {} : { thirdParty: input.thirdParty }),
  };
  let prepared: Awaited<ReturnType<PaymentMethodSealer['prepare']>>;
  try {
    prepared = await deps.sealer.prepare(environment, input.token, createInput, now);
  } catch (error) {
    // A real card in an environment not activated: the sealer's 402, reported as a refusal.
    if (error instanceof AppError) return { errors: error.entries };
    throw error;
  }
  const metadata = checkMetadata(input.metadata ?? undefined);
  const errors = [...prepared.errors, ...emailErrors(input.email ?? undefined), ...metadata.errors];
  const createdAt = input.createdAt === undefined || input.createdAt === null ? now.toISOString() : isoTime(input.createdAt);
  if (createdAt === null) errors.push({ key: 'errors.invalid', attribute: 'created_at', message: 'Created at is invalid' });
  if (errors.length > 0 || prepared.sealed === null || createdAt === null) return { errors };
  const sealed = prepared.sealed;
  const details = input.networkTransactionId === undefined || input.networkTransactionId === null ? sealed.kind.details : { ...sealed.kind.details, network_transaction_id: input.networkTransactionId };
  const at = now.toISOString();
  const cacheEnd = new Date(now.getTime() + deps.cacheTtlSeconds * 1000).toISOString();
  const method = {
    token: input.token,
    environmentKey: environment.key,
    paymentMethodType: sealed.kind.paymentMethodType,
    details,
    storageState: input.storageState,
    test: sealed.test,
    singleUse: false,
    email: input.email ?? null,
    data: input.data ?? null,
    metadata: metadata.metadata,
    callbackUrl: null,
    sealed: { number: sealed.number, cvv: null, routingNumber: sealed.routingNumber, accountNumber: sealed.accountNumber },
    fingerprint: sealed.fingerprint,
    cacheExpiresAt: input.storageState === 'cached' ? cacheEnd : null,
    createdAt,
    updatedAt: at,
  } as NewPaymentMethod;
  const bank = input.type === 'bank_account' ? { routing: input.bankAccount?.bank_routing_number ?? '', account: input.bankAccount?.bank_account_number ?? '' } : null;
  return { prepared: true, retained: input.storageState === 'retained', method, sealed, bank };
}

/** Writes the methods whose tokens are free, in one unit of work; compares the others with their holders. */
async function store(
  deps: AdoptDeps,
  repos: Pick<AdoptStore['repos'], 'paymentMethods' | 'transactions' | 'journal'>,
  environment: Environment,
  batch: PreparedMethod[],
  options: AdoptOptions,
  now: Date,
  lean: boolean,
): Promise<AdoptOutcome[]> {
  const holders = new Map<string, PaymentMethod | PreparedMethod>();
  for (const holder of await repos.paymentMethods.holdersOf([...new Set(batch.map((item) => item.method.token))])) holders.set(holder.token, holder);
  const at = now.toISOString();
  const results: (AdoptOutcome | PreparedMethod)[] = [];
  const fresh: PreparedMethod[] = [];
  for (const item of batch) {
    const holder = holders.get(item.method.token);
    if (holder !== undefined) {
      const same = 'prepared' in holder ? samePreparedMethod(holder, item) : await sameStored(deps, environment, holder, item);
      if (!same) results.push({ outcome: 'conflict' });
      else if (lean) results.push({ outcome: 'skipped' });
      else results.push({ outcome: 'skipped', paymentMethod: 'prepared' in holder ? storedView(holder.method) : holder } as AdoptResult);
      continue;
    }
    holders.set(item.method.token, item);
    fresh.push(item);
    results.push(item);
  }
  const transactions = await writeAll(repos, environment, fresh, options, at, lean);
  if (lean) return results.map((result) => ('prepared' in result ? { outcome: 'imported' } : result));
  return results.map((result): AdoptOutcome => ('prepared' in result ? ({ outcome: 'imported', paymentMethod: storedView(result.method), transaction: transactions.get(result.method.token) as Transaction } as AdoptResult) : result));
}

/**
 * Writes the new methods, their transactions and events: a statement per kind of row for the whole
 * batch where the journal can take them together (a bulk import of a million cards is a few thousand
 * statements, not five million), one at a time otherwise. The transactions by method token
 * (none when `lean`: they are written, not read back).
 */
async function writeAll(
  repos: Pick<AdoptStore['repos'], 'paymentMethods' | 'transactions' | 'journal'>,
  environment: Environment,
  fresh: PreparedMethod[],
  options: AdoptOptions,
  at: string,
  lean: boolean,
): Promise<Map<string, Transaction>> {
  // An import's transaction has no callback URL of its own: said outright, so its events queue no
  // look-up for one (a statement per method otherwise, the most of a bulk import's per-row cost).
  const records = fresh.map((item) => ({
    ...newTransaction({
      environmentKey: environment.key,
      transactionType: 'ImportPaymentMethod',
      outcome: TransactionState.succeeded,
      paymentMethodToken: item.method.token,
      details: { retained: item.retained, ...(options.transactionDetails ?? {}) },
      now: at,
    }),
    callbackUrl: null,
  }));
  const written = new Map<string, Transaction>();
  if (fresh.length > 1 && repos.journal.recordAll !== undefined) {
    await repos.paymentMethods.insertMany(fresh.map((item) => item.method));
    const transactions = lean ? (await repos.transactions.writeMany(records), []) : await repos.transactions.insertMany(records);
    const changes: ChangeEvent[] = [];
    for (let index = 0; index < fresh.length; index += 1) {
      const item = fresh[index] as PreparedMethod;
      changes.push({ environmentKey: environment.key, eventType: 'ImportPaymentMethod', objectType: 'payment_method', objectKey: item.method.token, at });
      changes.push(...creationEvents(records[index] as NewTransaction));
    }
    await repos.journal.recordAll(changes);
    for (const transaction of transactions) if (transaction.paymentMethodToken !== null) written.set(transaction.paymentMethodToken, transaction);
    return written;
  }
  for (const [index, item] of fresh.entries()) {
    await repos.paymentMethods.insert(item.method);
    await repos.journal.record({ environmentKey: environment.key, eventType: 'ImportPaymentMethod', objectType: 'payment_method', objectKey: item.method.token, at });
    written.set(item.method.token, await recordTransaction(repos, records[index] as NewTransaction));
  }
  return written;
}

/** Two methods of one batch under one token: the same when their sensitive values are. */
function samePreparedMethod(first: PreparedMethod, second: PreparedMethod): boolean {
  if (first.method.paymentMethodType !== second.method.paymentMethodType) return false;
  if (first.sealed.fingerprint !== null) return first.sealed.fingerprint === second.sealed.fingerprint;
  if (first.bank !== null && second.bank !== null) return first.bank.routing === second.bank.routing && first.bank.account === second.bank.account;
  return sameReference(first.method.details, second.method.details);
}

/** A stored holder and a new method: the same method in the same environment, compared without revealing either. */
async function sameStored(deps: AdoptDeps, environment: Environment, holder: PaymentMethod, item: PreparedMethod): Promise<boolean> {
  if (holder.environmentKey !== environment.key || holder.paymentMethodType !== item.method.paymentMethodType) return false;
  if (holder.paymentMethodType === 'credit_card') return holder.fingerprint !== null && holder.fingerprint === item.sealed.fingerprint;
  if (holder.paymentMethodType === 'bank_account') {
    const opened = await deps.sealer.open(holder);
    if (opened === null || opened.type !== 'bank_account' || item.bank === null) return false;
    return opened.routingNumber.reveal() === item.bank.routing && opened.accountNumber.reveal() === item.bank.account;
  }
  return sameReference(holder.details, item.method.details);
}

function sameReference(first: object, second: object): boolean {
  const a = first as { third_party_token?: unknown; gateway_type?: unknown };
  const b = second as { third_party_token?: unknown; gateway_type?: unknown };
  return a.third_party_token === b.third_party_token && a.gateway_type === b.gateway_type;
}

/** The method as stored (what a read right after would return). */
function storedView(method: NewPaymentMethod): PaymentMethod {
  return {
    ...method,
    sealed: { number: method.sealed?.number ?? null, cvv: null, routingNumber: method.sealed?.routingNumber ?? null, accountNumber: method.sealed?.accountNumber ?? null },
    fingerprint: method.fingerprint ?? null,
    cvvLength: null,
    cvvExpiresAt: null,
    cacheExpiresAt: method.cacheExpiresAt ?? null,
  } as PaymentMethod;
}

/** An ISO-8601 time as the store keeps it (UTC, milliseconds); null when it is not one. */
function isoTime(text: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return null;
  const time = new Date(text);
  return Number.isNaN(time.getTime()) ? null : time.toISOString();
}

/** `adoptPaymentMethod` bound to its dependencies, as `buildCore` wires it (`core.adopter`). */
export class PaymentMethodAdopter {
  constructor(readonly deps: AdoptDeps) {}

  adopt(environment: Environment, input: AdoptedPaymentMethod, options?: AdoptOptions): Promise<AdoptResult> {
    return adoptPaymentMethod(this.deps, environment, input, options);
  }

  adoptMany(environment: Environment, inputs: AdoptedPaymentMethod[], options?: AdoptOptions): Promise<AdoptResult[]> {
    return adoptPaymentMethods(this.deps, environment, inputs, options);
  }

  /**
   * The first half of an adoption, for one method: validated and sealed now, or its field errors.
   * The file import seals each row as it reads it, so a batch holds sealed rows only.
   */
  prepare(environment: Environment, input: AdoptedPaymentMethod, options: AdoptOptions = {}, now: Date = this.deps.clock.now()): Promise<PreparedMethod | { errors: ErrorEntry[] }> {
    return prepare(this.deps, environment, input, options, now);
  }

  /**
   * The second half: prepared methods stored in one unit of work, outcomes in their order, nothing
   * read back (a bulk import counts outcomes; building and holding a batch's stored views was most of
   * what it promoted to V8's old generation; docs/benchmarks.md, "Import").
   */
  storeOutcomes(environment: Environment, prepared: PreparedMethod[], options: AdoptOptions = {}): Promise<AdoptOutcome[]> {
    return storePrepared(this.deps, environment, prepared, options, this.deps.clock.now(), true);
  }
}
