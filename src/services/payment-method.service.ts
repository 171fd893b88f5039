import { NO_REQUEST, type RequestMeta } from '../domain/request.js';
import { AppError, MESSAGES, fieldError, type ErrorEntry } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import { isWalletType, STORAGE_STATES, USABLE_STATES, type PaymentMethodCreateInput, type JsonValue, type PaymentMethodDetails, type PaymentMethodPatch, type PaymentMethodUpdateInput } from '../domain/payment-method.js';
import { orderedToken, TOKEN_LENGTH } from '../domain/tokens.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import type { PaymentMethodFilter } from '../store/repositories/payment-methods.repo.js';
import type { Keyring } from '../vault/keyring.js';
import { nextBulkTurn } from '../limits/bulk-turns.js';
import { pageAfter, type ListQuery } from './list-query.js';
import { redactedDetails, resolveNames, withoutPersonalData, type Details } from './payment-method-records.js';
import { addPaymentMethod, changePaymentMethodIfState, changePaymentMethodIfUnchanged } from './payment-method-changes.js';
import { checkMetadata, emailErrors, expiryErrors, nameErrors } from './payment-method-validation.js';
import { PaymentMethodSealer, type SealedFields } from './payment-method-sealer.js';
import { walletReplayed, type DecryptedWallet, type WalletTokenService } from './wallet-tokens.service.js';
import { newTransaction, recordTransaction } from './transaction-records.js';
import type { Environment } from '../domain/environment.js';
import type { PaymentMethod } from '../domain/payment-method.js';
import type { PaymentMethodSearch, PaymentMethodSearchPage } from '../domain/payment-method-search.js';
import { isTransactionState, TransactionState, type Transaction } from '../domain/transaction.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'gateways' | 'journal' | 'paymentMethods' | 'transactions' | 'walletTokenUses';

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
  private readonly repos: Pick<Repositories, Uses>;
  private readonly sealer: PaymentMethodSealer;

  constructor(
    private readonly store: StoreAccess<Uses>,
    keyring: Keyring,
    private readonly clock: Clock,
    private readonly cacheTtlSeconds: number,
    /** Opens Apple Pay and Google Pay tokens (docs/wallets.md). */
    private readonly wallets: WalletTokenService,
  ) {
    this.repos = store.repos;
    this.sealer = new PaymentMethodSealer(keyring);
  }

  async create(environment: Environment, input: PaymentMethodCreateInput, request: RequestMeta = NO_REQUEST): Promise<VaultOutcome> {
    const now = this.clock.now();
    const token = orderedToken(TOKEN_LENGTH.item);
    const metadata = checkMetadata(input.metadata);
    const wallet = isWalletType(input.type) ? await this.decryptWallet(environment, input) : null;
    const prepared = wallet === null ? await this.sealer.prepare(environment, token, input, now) : { errors: [], sealed: await this.sealer.prepareWallet(environment, token, wallet) };
    const errors: ErrorEntry[] = [...prepared.errors, ...emailErrors(input.email), ...metadata.errors];
    if (errors.length > 0) throw new AppError(errors);
    const sealed = prepared.sealed as SealedFields;
    const at = now.toISOString();
    return this.store.unitOfWork(async (repos) => {
      // A wallet token opens once: its digest is claimed with the method it becomes (docs/wallets.md, "Replays").
      if (wallet?.replayDigest != null && !(await repos.walletTokenUses.claim(environment.key, wallet.replayDigest, at))) throw walletReplayed(wallet.type);
      await addPaymentMethod(repos, {
        token,
        environmentKey: environment.key,
        ...sealed.kind,
        storageState: input.retained ? 'retained' : 'cached',
        test: sealed.test,
        // Wallet methods are single-use unless the client says otherwise, as Spreedly's are.
        singleUse: input.singleUse ?? wallet !== null,
        email: input.email ?? null,
        data: input.data === undefined ? null : (input.data as JsonValue),
        metadata: metadata.metadata,
        callbackUrl: input.callbackUrl ?? null,
        sealed: { number: sealed.number, cvv: sealed.cvv, routingNumber: sealed.routingNumber, accountNumber: sealed.accountNumber },
        fingerprint: sealed.fingerprint,
        cvvLength: sealed.cvvLength,
        cvvExpiresAt: sealed.cvv === null ? null : this.cacheEnd(now),
        cacheExpiresAt: input.retained ? null : this.cacheEnd(now),
        createdAt: at,
        updatedAt: at,
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
      // Spreedly records a card retained at creation as added, then retained: its transactions list
      // holds an AddPaymentMethod and a RetainPaymentMethod (docs/wire-compatibility.md). The answer
      // stays the AddPaymentMethod transaction.
      if (input.retained) {
        await recordTransaction(repos, newTransaction({ environmentKey: environment.key, transactionType: 'RetainPaymentMethod', outcome: TransactionState.succeeded, paymentMethodToken: token, now: at }));
      }
      return this.outcome(repos, environment, record.token, token);
    }, { environment, request });
  }

  private decryptWallet(environment: Environment, input: PaymentMethodCreateInput): Promise<DecryptedWallet> {
    const type = input.type as DecryptedWallet['type'];
    return this.wallets.decrypt(environment, type, input.wallet ?? {});
  }

  /** The method, with its caching window and CVV window applied first (lazily, in case the sweep lags). */
  async show(environment: Environment, token: string): Promise<PaymentMethod> {
    const method = await this.repos.paymentMethods.find(environment.key, token);
    if (method === undefined) throw NOT_FOUND();
    return this.settle(method);
  }

  async list(environment: Environment, filter: PaymentMethodListFilter, query: ListQuery): Promise<PaymentMethod[]> {
    const unknown = filter.states.filter((state) => !(STORAGE_STATES as readonly string[]).includes(state));
    if (unknown.length > 0) throw new AppError(fieldError.inclusion('state'));
    const page = await pageAfter(query, (since) => this.repos.paymentMethods.position(environment.key, since));
    await this.settleEndedWindows(environment);
    const methods = await this.repos.paymentMethods.list(environment.key, filter, page);
    return Promise.all(methods.map((method) => this.settle(method)));
  }

  /**
   * The portal's card search (docs/portal.md, "Find a card"): masks, names, the email and the
   * fingerprint only, nothing opened. Each method found is settled first (an ended caching window
   * reads `redacted`, as the API would show it); the state filter itself runs on the stored state.
   */
  async search(environment: Environment, search: PaymentMethodSearch): Promise<PaymentMethodSearchPage> {
    const page = await this.repos.paymentMethods.search(environment.key, search);
    const hits = await Promise.all(page.hits.map(async (hit) => ({ position: hit.position, paymentMethod: await this.settle(hit.paymentMethod) })));
    return { hits, scannedTo: page.scannedTo };
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
      for (const method of expired) await this.settle(method);
      settled += expired.length;
      if (expired.length < EXPIRED_BATCH) return;
      await nextBulkTurn();
    }
  }

  /** Non-sensitive fields only; the number, CVV and bank numbers cannot be changed. */
  async update(environment: Environment, token: string, input: PaymentMethodUpdateInput, request: RequestMeta = NO_REQUEST): Promise<PaymentMethod> {
    const current = await this.show(environment, token);
    const details: Details = { ...current.details };
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
    if (namesChanged && current.paymentMethodType !== 'third_party_token') {
      const touched = new Set([
        ...(input.fields.first_name !== undefined || input.fields.full_name !== undefined ? ['first_name'] : []),
        ...(input.fields.last_name !== undefined || input.fields.full_name !== undefined ? ['last_name'] : []),
      ]);
      errors.push(...nameErrors(next.first_name as string | null, next.last_name as string | null, input).filter((error) => touched.has(error.attribute ?? '')));
    }
    if (current.paymentMethodType === 'credit_card') {
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
    const patch: PaymentMethodPatch = { details: next as PaymentMethodDetails, updatedAt: this.clock.now().toISOString() };
    if (input.email !== undefined) patch.email = input.email;
    if (input.data !== undefined) patch.data = input.data as JsonValue;
    if (metadata.metadata !== null) patch.metadata = metadata.metadata;
    if (input.callbackUrl !== undefined) patch.callbackUrl = input.callbackUrl;
    await this.store.unitOfWork((repos) => changePaymentMethodIfState(repos, environment.key, token, STORAGE_STATES, patch), { environment, request });
    return this.show(environment, token);
  }

  /**
   * The transactions of one payment method, in list order; `state` (comma-separated states) filters
   * them as it does GET /v1/transactions (wire-reference §2.5), with the same 422 for an unknown state.
   */
  async transactions(environment: Environment, token: string, query: ListQuery, filter: { state?: string } = {}): Promise<{ paymentMethod: PaymentMethod; transactions: Transaction[] }> {
    const states = filter.state === undefined || filter.state === '' ? [] : filter.state.split(',').map((state) => state.trim());
    if (!states.every(isTransactionState)) throw new AppError(fieldError.inclusion('state'));
    const paymentMethod = await this.show(environment, token);
    const page = await pageAfter(query, async (since) => {
      const row = await this.repos.transactions.find(environment.key, since);
      return row?.paymentMethodToken === token ? { seq: row.position } : undefined;
    });
    const transactions = await this.repos.transactions.listForPaymentMethod(environment.key, token, page, states);
    return { paymentMethod, transactions };
  }

  /** cached → retained (RetainPaymentMethod). A redacted method cannot be retained: a failed transaction, 422. */
  async retain(environment: Environment, token: string, request: RequestMeta = NO_REQUEST): Promise<VaultOutcome & { succeeded: boolean }> {
    await this.show(environment, token);
    const at = this.clock.now().toISOString();
    return this.store.unitOfWork(async (repos) => {
      const moved = await changePaymentMethodIfState(repos, environment.key, token, ['cached', 'retained', 'used', 'closed'], {
        storageState: 'retained',
        cacheExpiresAt: null,
        updatedAt: at,
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
    }, { environment, request });
  }

  /** Destroys the number, CVV, fingerprint and bank numbers for good (RedactPaymentMethod). */
  async redact(environment: Environment, token: string, options: { removePersonalData: boolean; removeFromGateway?: string | undefined }, request: RequestMeta = NO_REQUEST): Promise<VaultOutcome> {
    const current = await this.show(environment, token);
    // Removing the gateway's own copy needs the gateway: an unknown one is 404, before anything is redacted.
    if (options.removeFromGateway !== undefined && (await this.repos.gateways.find(environment.key, options.removeFromGateway)) === undefined) {
      throw new AppError({ key: 'errors.gateway_not_found', message: MESSAGES.gatewayNotFound });
    }
    const at = this.clock.now().toISOString();
    return this.store.unitOfWork(async (repos) => {
      // The redacted details are computed from the method as read here; if an update slipped in
      // between, read again, so that update is not silently undone.
      let method = current;
      while (!(await changePaymentMethodIfUnchanged(repos, method, STORAGE_STATES, redactionPatch(method, at, options.removePersonalData)))) {
        method = (await repos.paymentMethods.find(environment.key, token)) as PaymentMethod;
      }
      const record = newTransaction({ environmentKey: environment.key, transactionType: 'RedactPaymentMethod', outcome: TransactionState.succeeded, paymentMethodToken: token, now: at });
      await recordTransaction(repos, record);
      return this.outcome(repos, environment, record.token, token);
    }, { environment, request });
  }

  /** A new CVV for a usable card (RecacheSensitiveData); held for one caching window. */
  async recache(environment: Environment, token: string, verificationValue: string | undefined, request: RequestMeta = NO_REQUEST): Promise<VaultOutcome & { succeeded: boolean }> {
    const current = await this.show(environment, token);
    if (current.paymentMethodType !== 'credit_card') {
      throw new AppError({ key: 'errors.invalid', attribute: 'payment_method_type', message: 'Only credit cards hold a verification value' });
    }
    const usable = USABLE_STATES.includes(current.storageState);
    const now = this.clock.now();
    const sealedCvv = usable ? await this.sealer.sealCvv(environment.key, token, verificationValue) : null;
    const at = now.toISOString();
    return this.store.unitOfWork(async (repos) => {
      const moved =
        sealedCvv !== null &&
        (await changePaymentMethodIfState(repos, environment.key, token, USABLE_STATES, {
          sealed: { cvv: sealedCvv.blob },
          cvvLength: sealedCvv.length,
          cvvExpiresAt: this.cacheEnd(now),
          updatedAt: at,
        }));
      const record = newTransaction({
        environmentKey: environment.key,
        transactionType: 'RecacheSensitiveData',
        outcome: moved ? TransactionState.succeeded : { state: TransactionState.failed, messageKey: `messages.payment_method_${current.storageState}`, message: `The payment method is ${current.storageState}.` },
        paymentMethodToken: token,
        now: at,
      });
      await recordTransaction(repos, record);
      return { ...(await this.outcome(repos, environment, record.token, token)), succeeded: moved };
    }, { environment, request });
  }

  /**
   * Applies the windows a stored method may have outlived: a cached method past its caching window
   * is redacted, a CVV past its window is dropped. Conditional updates, so several nodes (and
   * the sweep) may do this at once.
   */
  async settle(method: PaymentMethod): Promise<PaymentMethod> {
    const now = this.clock.now().toISOString();
    let changed = false;
    if (method.storageState === 'cached' && method.cacheExpiresAt !== null && method.cacheExpiresAt <= now) {
      changed = await this.store.unitOfWork((repos) => changePaymentMethodIfUnchanged(repos, method, ['cached'], redactionPatch(method, now, false)));
    } else if (method.cvvExpiresAt !== null && method.cvvExpiresAt <= now) {
      // Housekeeping: dropping a CVV whose window ended records nothing (docs/events.md).
      changed = await this.repos.paymentMethods.dropCvvIfExpired(method.environmentKey, method.token, now);
    }
    return changed ? ((await this.repos.paymentMethods.find(method.environmentKey, method.token)) ?? method) : method;
  }

  private cacheEnd(now: Date): string {
    return new Date(now.getTime() + this.cacheTtlSeconds * 1000).toISOString();
  }

  private async outcome(repos: Pick<Repositories, Uses>, environment: Environment, transactionToken: string, token: string): Promise<VaultOutcome> {
    const transaction = (await repos.transactions.find(environment.key, transactionToken)) as Transaction;
    const paymentMethod = (await repos.paymentMethods.find(environment.key, token)) as PaymentMethod;
    return { transaction, paymentMethod };
  }
}

/** Everything redaction changes: the sealed values and fingerprint go, for good. */
export function redactionPatch(method: PaymentMethod, at: string, removePersonalData: boolean): PaymentMethodPatch {
  const kept = redactedDetails(method.details);
  const details = removePersonalData ? withoutPersonalData(kept) : kept;
  return {
    storageState: 'redacted',
    details: details as PaymentMethodDetails,
    sealed: { number: null, cvv: null, routingNumber: null, accountNumber: null },
    fingerprint: null,
    cvvLength: null,
    cvvExpiresAt: null,
    cacheExpiresAt: null,
    ...(removePersonalData ? { email: null } : {}),
    updatedAt: at,
  };
}
