import { AppError, MESSAGES, fieldError, type ErrorEntry } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import { STORAGE_STATES, USABLE_STATES, type PaymentMethodCreateInput, type PaymentMethodUpdateInput } from '../domain/payment-method.js';
import { orderedToken, TOKEN_LENGTH } from '../domain/tokens.js';
import type { StoreHandle } from '../store/database.js';
import { inTransaction, repositories, type Repositories } from '../store/repositories.js';
import type { PaymentMethodFilter, PaymentMethodPatch } from '../store/repositories/payment-methods.repo.js';
import type { Keyring } from '../vault/keyring.js';
import { nextBulkTurn } from '../limits/bulk-turns.js';
import { pageAfter, type ListQuery } from './list-query.js';
import { parseDetails, redactedDetails, resolveNames, withoutPersonalData, type Details } from './payment-method-records.js';
import { checkMetadata, emailErrors, expiryErrors, nameErrors } from './payment-method-validation.js';
import { PaymentMethodSealer, type SealedFields } from './payment-method-sealer.js';
import { newTransaction, recordTransaction } from './transaction-records.js';
import type { Environment } from '../domain/environment.js';
import type { PaymentMethod } from '../domain/payment-method.js';
import { TransactionState, type Transaction } from '../domain/transaction.js';

/** A vault transaction (AddPaymentMethod, Retain, Redact, Recache) and the method it concerns. */
export interface VaultOutcome {
  transaction: Transaction;
  paymentMethod: PaymentMethod;
}

/** A list's filters: the repository's own shape (states, metadata key → value). */
export type PaymentMethodListFilter = PaymentMethodFilter;

/** Ended caching windows a list applies before it reads (the sweep applies the rest), and how many a statement. */
const EXPIRED_PER_LIST = 1000;
const EXPIRED_BATCH = 20;

const NOT_FOUND = (): AppError => new AppError({ key: 'errors.payment_method_not_found', message: MESSAGES.paymentMethodNotFound });

/**
 * The vault's use cases. Card data is sealed before anything is written, and each change of
 * a payment method is written together with its transaction (one database transaction), so a
 * refused request leaves nothing behind.
 */
export class PaymentMethodService {
  private readonly repos: Repositories;
  private readonly sealer: PaymentMethodSealer;

  constructor(
    private readonly store: StoreHandle,
    keyring: Keyring,
    private readonly clock: Clock,
    private readonly cacheTtlSeconds: number,
  ) {
    this.repos = repositories(store.db, store.dialect);
    this.sealer = new PaymentMethodSealer(keyring);
  }

  async create(environment: Environment, input: PaymentMethodCreateInput): Promise<VaultOutcome> {
    const now = this.clock.now();
    const token = orderedToken(TOKEN_LENGTH.item);
    const metadata = checkMetadata(input.metadata);
    const prepared = await this.sealer.prepare(environment, token, input, now);
    const errors: ErrorEntry[] = [...prepared.errors, ...emailErrors(input.email), ...metadata.errors];
    if (errors.length > 0) throw new AppError(errors);
    const sealed = prepared.sealed as SealedFields;
    const at = now.toISOString();
    return inTransaction(this.store, async (repos) => {
      await repos.paymentMethods.insert({
        token,
        environment_key: environment.key,
        payment_method_type: sealed.type,
        storage_state: input.retained ? 'retained' : 'cached',
        test: sealed.test ? 1 : 0,
        single_use: input.singleUse ? 1 : 0,
        email: input.email ?? null,
        data: input.data === undefined ? null : JSON.stringify(input.data),
        metadata: metadata.metadata === null ? null : JSON.stringify(metadata.metadata),
        callback_url: input.callbackUrl ?? null,
        details: JSON.stringify(sealed.details),
        sealed_number: sealed.number,
        fingerprint: sealed.fingerprint,
        sealed_cvv: sealed.cvv,
        cvv_length: sealed.cvvLength,
        cvv_expires_at: sealed.cvv === null ? null : this.cacheEnd(now),
        sealed_routing_number: sealed.routingNumber,
        sealed_account_number: sealed.accountNumber,
        cache_expires_at: input.retained ? null : this.cacheEnd(now),
        created_at: at,
        updated_at: at,
      });
      const record = newTransaction({
        environmentKey: environment.key,
        transactionType: 'AddPaymentMethod',
        outcome: TransactionState.succeeded,
        paymentMethodToken: token,
        details: { retained: input.retained },
        now: at,
      });
      await recordTransaction(repos, record);
      return this.outcome(repos, environment, record.token, token);
    });
  }

  /** The method, with its caching window and CVV window applied first (lazily, in case the sweep lags). */
  async show(environment: Environment, token: string): Promise<PaymentMethod> {
    const row = await this.repos.paymentMethods.find(environment.key, token);
    if (row === undefined) throw NOT_FOUND();
    return this.settle(row);
  }

  async list(environment: Environment, filter: PaymentMethodListFilter, query: ListQuery): Promise<PaymentMethod[]> {
    const unknown = filter.states.filter((state) => !(STORAGE_STATES as readonly string[]).includes(state));
    if (unknown.length > 0) throw new AppError(fieldError.inclusion('state'));
    const page = await pageAfter(query, (since) => this.repos.paymentMethods.find(environment.key, since));
    await this.settleEndedWindows(environment);
    const rows = await this.repos.paymentMethods.list(environment.key, filter, page);
    return Promise.all(rows.map((row) => this.settle(row)));
  }

  /**
   * Windows that ended since the last sweep are applied before a list, so the state filter sees the
   * truth: up to EXPIRED_PER_LIST methods, EXPIRED_BATCH at a time with a bulk turn of the event
   * loop between (their rows may hold large free-form data; docs/wire-compatibility.md, "Large pages").
   */
  private async settleEndedWindows(environment: Environment): Promise<void> {
    const now = this.clock.now().toISOString();
    for (let settled = 0; settled < EXPIRED_PER_LIST; ) {
      const expired = await this.repos.paymentMethods.expiredCached(now, EXPIRED_BATCH, environment.key);
      for (const row of expired) await this.settle(row);
      settled += expired.length;
      if (expired.length < EXPIRED_BATCH) return;
      await nextBulkTurn();
    }
  }

  /** Non-sensitive fields only; the number, CVV and bank numbers cannot be changed. */
  async update(environment: Environment, token: string, input: PaymentMethodUpdateInput): Promise<PaymentMethod> {
    const current = await this.show(environment, token);
    const details = parseDetails(current);
    const next: Details = { ...details };
    const names = input.fields.full_name === '' && input.fields.first_name === undefined && input.fields.last_name === undefined ? { first: '', last: '' } : resolveNames(input.fields);
    const namesChanged = input.fields.first_name !== undefined || input.fields.last_name !== undefined || input.fields.full_name !== undefined;
    if (input.fields.first_name !== undefined || input.fields.full_name !== undefined) next.first_name = names.first === '' ? null : names.first;
    if (input.fields.last_name !== undefined || input.fields.full_name !== undefined) next.last_name = names.last === '' ? null : names.last;
    for (const [field, value] of Object.entries(input.fields)) {
      if (field === 'first_name' || field === 'last_name' || field === 'full_name') continue;
      const target = field === 'bank_account_type' ? 'account_type' : field === 'bank_account_holder_type' ? 'account_holder_type' : field;
      if (target in details) next[target] = value;
    }
    const errors: ErrorEntry[] = [...emailErrors(input.email)];
    // Names changed to blank are refused as on create (first_name, then last_name); a name
    // left alone is not judged again (it may have been stored blank under allow_blank_name).
    if (namesChanged && current.payment_method_type !== 'third_party_token') {
      const touched = new Set([
        ...(input.fields.first_name !== undefined || input.fields.full_name !== undefined ? ['first_name'] : []),
        ...(input.fields.last_name !== undefined || input.fields.full_name !== undefined ? ['last_name'] : []),
      ]);
      errors.push(...nameErrors(next.first_name as string | null, next.last_name as string | null, input).filter((error) => touched.has(error.attribute ?? '')));
    }
    if (current.payment_method_type === 'credit_card') {
      if (input.month !== undefined) next.month = input.month;
      if (input.year !== undefined) next.year = input.year;
      if (input.eligibleForCardUpdater !== undefined) next.eligible_for_card_updater = input.eligibleForCardUpdater;
      if (input.month !== undefined || input.year !== undefined) {
        errors.push(...expiryErrors(next.month as number | null, next.year as number | null, input, this.clock.now()));
      }
    }
    const metadata = checkMetadata(input.metadata);
    errors.push(...metadata.errors);
    if (errors.length > 0) throw new AppError(errors);
    const patch: PaymentMethodPatch = { details: JSON.stringify(next), updated_at: this.clock.now().toISOString() };
    if (input.email !== undefined) patch.email = input.email;
    if (input.data !== undefined) patch.data = JSON.stringify(input.data);
    if (metadata.metadata !== null) patch.metadata = JSON.stringify(metadata.metadata);
    if (input.callbackUrl !== undefined) patch.callback_url = input.callbackUrl;
    await this.repos.paymentMethods.updateIfState(environment.key, token, STORAGE_STATES, patch);
    return this.show(environment, token);
  }

  /** The transactions of one payment method, in list order. */
  async transactions(environment: Environment, token: string, query: ListQuery): Promise<{ paymentMethod: PaymentMethod; transactions: Transaction[] }> {
    const paymentMethod = await this.show(environment, token);
    const page = await pageAfter(query, async (since) => {
      const row = await this.repos.transactions.find(environment.key, since);
      return row?.paymentMethodToken === token ? { seq: row.position } : undefined;
    });
    const transactions = await this.repos.transactions.listForPaymentMethod(environment.key, token, page);
    return { paymentMethod, transactions };
  }

  /** cached → retained (RetainPaymentMethod). A redacted method cannot be retained: a failed transaction, 422. */
  async retain(environment: Environment, token: string): Promise<VaultOutcome & { succeeded: boolean }> {
    await this.show(environment, token);
    const at = this.clock.now().toISOString();
    return inTransaction(this.store, async (repos) => {
      const moved = await repos.paymentMethods.updateIfState(environment.key, token, ['cached', 'retained', 'used', 'closed'], {
        storage_state: 'retained',
        cache_expires_at: null,
        updated_at: at,
      });
      const record = newTransaction({
        environmentKey: environment.key,
        transactionType: 'RetainPaymentMethod',
        outcome: moved
          ? TransactionState.succeeded
          : {
              state: TransactionState.failed,
              messageKey: 'messages.unable_to_retain_a_redacted_payment_method',
              message: 'The payment method has been redacted. Therefore, it cannot be retained.',
            },
        paymentMethodToken: token,
        now: at,
      });
      await recordTransaction(repos, record);
      return { ...(await this.outcome(repos, environment, record.token, token)), succeeded: moved };
    });
  }

  /** Destroys the number, CVV, fingerprint and bank numbers for good (RedactPaymentMethod). */
  async redact(environment: Environment, token: string, options: { removePersonalData: boolean; removeFromGateway?: string | undefined }): Promise<VaultOutcome> {
    const current = await this.show(environment, token);
    // Removing the gateway's own copy needs the gateway: an unknown one is 404, before anything is redacted.
    if (options.removeFromGateway !== undefined && (await this.repos.gateways.find(environment.key, options.removeFromGateway)) === undefined) {
      throw new AppError({ key: 'errors.gateway_not_found', message: MESSAGES.gatewayNotFound });
    }
    const at = this.clock.now().toISOString();
    return inTransaction(this.store, async (repos) => {
      // The redacted details are computed from the row as read here; if an update slipped in
      // between, read again, so that update is not silently undone.
      let row = current;
      while (!(await repos.paymentMethods.updateIfUnchanged(row, STORAGE_STATES, redactionPatch(row, at, options.removePersonalData)))) {
        row = (await repos.paymentMethods.find(environment.key, token)) as PaymentMethod;
      }
      const record = newTransaction({ environmentKey: environment.key, transactionType: 'RedactPaymentMethod', outcome: TransactionState.succeeded, paymentMethodToken: token, now: at });
      await recordTransaction(repos, record);
      return this.outcome(repos, environment, record.token, token);
    });
  }

  /** A new CVV for a usable card (RecacheSensitiveData); held for one caching window. */
  async recache(environment: Environment, token: string, verificationValue: string | undefined): Promise<VaultOutcome & { succeeded: boolean }> {
    const current = await this.show(environment, token);
    if (current.payment_method_type !== 'credit_card') {
      throw new AppError({ key: 'errors.invalid', attribute: 'payment_method_type', message: 'Only credit cards hold a verification value' });
    }
    const usable = (USABLE_STATES as readonly string[]).includes(current.storage_state);
    const now = this.clock.now();
    const sealedCvv = usable ? await this.sealer.sealCvv(environment.key, token, verificationValue) : null;
    const at = now.toISOString();
    return inTransaction(this.store, async (repos) => {
      const moved =
        sealedCvv !== null &&
        (await repos.paymentMethods.updateIfState(environment.key, token, USABLE_STATES, {
          sealed_cvv: sealedCvv.blob,
          cvv_length: sealedCvv.length,
          cvv_expires_at: this.cacheEnd(now),
          updated_at: at,
        }));
      const record = newTransaction({
        environmentKey: environment.key,
        transactionType: 'RecacheSensitiveData',
        outcome: moved ? TransactionState.succeeded : { state: TransactionState.failed, messageKey: `messages.payment_method_${current.storage_state}`, message: `The payment method is ${current.storage_state}.` },
        paymentMethodToken: token,
        now: at,
      });
      await recordTransaction(repos, record);
      return { ...(await this.outcome(repos, environment, record.token, token)), succeeded: moved };
    });
  }

  /**
   * Applies the windows a stored row may have outlived: a cached method past its caching window
   * is redacted, a CVV past its window is dropped. Conditional updates, so several nodes (and
   * the sweep) may do this at once.
   */
  async settle(row: PaymentMethod): Promise<PaymentMethod> {
    const now = this.clock.now().toISOString();
    let changed = false;
    if (row.storage_state === 'cached' && row.cache_expires_at !== null && row.cache_expires_at <= now) {
      changed = await this.repos.paymentMethods.updateIfUnchanged(row, ['cached'], redactionPatch(row, now, false));
    } else if (row.cvv_expires_at !== null && row.cvv_expires_at <= now) {
      changed = await this.repos.paymentMethods.dropCvvIfExpired(row.environment_key, row.token, now);
    }
    return changed ? ((await this.repos.paymentMethods.find(row.environment_key, row.token)) ?? row) : row;
  }

  private cacheEnd(now: Date): string {
    return new Date(now.getTime() + this.cacheTtlSeconds * 1000).toISOString();
  }

  private async outcome(repos: Repositories, environment: Environment, transactionToken: string, token: string): Promise<VaultOutcome> {
    const transaction = (await repos.transactions.find(environment.key, transactionToken)) as Transaction;
    const paymentMethod = (await repos.paymentMethods.find(environment.key, token)) as PaymentMethod;
    return { transaction, paymentMethod };
  }
}

/** Everything redaction changes: the sealed values and fingerprint go, for good. */
export function redactionPatch(row: PaymentMethod, at: string, removePersonalData: boolean): PaymentMethodPatch {
  const kept = redactedDetails(parseDetails(row));
  const details = removePersonalData ? withoutPersonalData(kept) : kept;
  return {
    storage_state: 'redacted',
    details: JSON.stringify(details),
    sealed_number: null,
    fingerprint: null,
    sealed_cvv: null,
    cvv_length: null,
    cvv_expires_at: null,
    sealed_routing_number: null,
    sealed_account_number: null,
    cache_expires_at: null,
    ...(removePersonalData ? { email: null } : {}),
    updated_at: at,
  };
}
