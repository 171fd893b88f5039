import { AppError, MESSAGES } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import { Secret } from '../../domain/secret.js';
import { orderedToken, TOKEN_LENGTH } from '../../domain/tokens.js';
import type { AdapterPaymentMethod, GatewayOperation, GatewayRequest, StoredCredential, TranscriptEntry } from '../../gateways/kit/index.js';
import type { StoreHandle } from '../../store/database.js';
import { inTransaction, repositories, type Repositories } from '../../store/repositories.js';
import type { GatewayRecord, GatewayService } from '../gateway.service.js';
import type { PaymentMethodSealer } from '../payment-method-sealer.js';
import type { PaymentMethodService } from '../payment-method.service.js';
import type { CallOutcome, CallPermit, GatewayCaller } from './gateway-caller.js';
import { newTransactionRow } from '../transaction-records.js';
import { finishTransaction, refusedTransaction, type Refusal, type TransactionEffects } from './transaction-outcome.js';
import { parseDetails } from '../payment-method-records.js';
import { callDeadline } from './abandoned-calls.js';
import { EMPTY_SHIPPING_ADDRESS, detailsOf, type FailoverNote, type GatewayTransactionDetails } from './transaction-details.js';
import type { TransactionInput } from './transaction-input.js';
import { checkAmount, checkCurrency, checkReference, checkVoidable, referenceNotFound, remainingAmount, requireAbility, transactionNotFound, TRANSACTION_TYPE } from './transaction-rules.js';
import type { Environment } from '../../domain/environment.js';
import type { PaymentMethod } from '../../domain/payment-method.js';
import type { Transaction } from '../../domain/transaction.js';

/** A transaction as the API returns it, with the HTTP status it is returned with. */
export interface TransactionResult {
  transaction: Transaction;
  status: number;
  /**
   * The payment method as this transaction's own writes left it, when they are all it needs
   * (saving a statement per purchase): the answer nests it without reading it again. Absent: the answer reads it.
   */
  paymentMethod?: PaymentMethod;
}

export type DirectOperation = 'purchase' | 'authorize' | 'verify' | 'store' | 'general_credit';

/** A direct transaction checked, with its payment method resolved: what each attempt sends. */
export interface DirectPlan {
  environment: Environment;
  operation: DirectOperation;
  input: TransactionInput;
  /** The transaction type recorded (Purchase, OffsitePurchase, …). */
  type: string;
  paymentMethod: PaymentMethod;
  /** The payment method was vaulted from an inline card by this transaction. */
  added: boolean;
}

/** How an attempt relates to a retry chain (docs/routing-retry.md). */
export interface AttemptLink {
  /** Part of a retry chain: the record names the chain's first attempt. */
  chained: boolean;
  /** The chain's first recorded attempt; null when this attempt is the first. */
  firstAttemptToken: string | null;
  /** The card (CVV included) opened by an earlier attempt; null opens and consumes the stored one. */
  heldCard: AdapterPaymentMethod | null;
  /** Hand the opened card back, for a later attempt. */
  keepCard: boolean;
  /** Why the chain moved on to this attempt; null for the first. */
  failover: FailoverNote | null;
}

/** A plain transaction: one attempt, nothing kept. */
export const SINGLE_ATTEMPT: AttemptLink = { chained: false, firstAttemptToken: null, heldCard: null, keepCard: false, failover: null };

/** One attempt's record, what the gateway call came to (null: refused before any call), and the card when kept. */
export interface AttemptResult {
  result: TransactionResult;
  outcome: CallOutcome | null;
  card: AdapterPaymentMethod | null;
}
type ReferenceOperation = 'capture' | 'void' | 'credit';

const NEEDS_AMOUNT: Record<DirectOperation, boolean> = { purchase: true, authorize: true, general_credit: true, verify: false, store: false };

export const STATE_REFUSALS: Record<string, Refusal> = {
  redacted: { messageKey: 'messages.payment_method_redacted', message: 'The payment method has been redacted.' },
  used: { messageKey: 'messages.payment_method_used', message: 'The payment method was single-use and has been used.' },
  closed: { messageKey: 'messages.payment_method_closed', message: 'The account of this payment method has been closed.' },
};

const OFFSITE_TYPE = { purchase: 'OffsitePurchase', authorize: 'OffsiteAuthorization' } as const;

/**
 * The stored-credential data a gateway is sent: only on purchase, authorize and verify, only when
 * both fields came (Spreedly proceeds without them otherwise). A merchant-initiated charge carries
 * the network transaction id Coffer kept from the cardholder-initiated one, whatever gateway gave it.
 */
function storedCredentialFor(operation: DirectOperation, input: TransactionInput, paymentMethod: PaymentMethod): StoredCredential | null {
  if (operation !== 'purchase' && operation !== 'authorize' && operation !== 'verify') return null;
  const initiator = input.storedCredentialInitiator;
  const reasonType = input.storedCredentialReasonType;
  if (initiator === undefined || reasonType === undefined) return null;
  const kept = parseDetails(paymentMethod).network_transaction_id;
  return { initiator, reasonType, networkTransactionId: initiator === 'merchant' && typeof kept === 'string' ? kept : null };
}

const REDACTED_GATEWAY: Refusal = { messageKey: 'messages.cannot_use_redacted_gateway', message: MESSAGES.gatewayRedacted };

/** A transaction's own callback destination (columns of its row). */
type TransactionCallback = { callback_url: string | null; callback_format: string | null };

function callbackOf(input: TransactionInput): TransactionCallback {
  return { callback_url: input.callbackUrl ?? null, callback_format: input.callbackUrl === undefined ? null : (input.callbackFormat ?? 'xml') };
}

/**
 * Transactions through gateways. Persist, call, persist: every check runs first; then, in one
 * database transaction, the payment method's single use and CVV are consumed and a
 * `processing` transaction is committed; only then is the gateway called; its outcome is
 * committed after. Refusals before the call are recorded as `failed` transactions.
 */
export class GatewayTransactionService {
  private readonly repos: Repositories;

  constructor(
    private readonly store: StoreHandle,
    private readonly gateways: GatewayService,
    private readonly paymentMethods: PaymentMethodService,
    private readonly sealer: PaymentMethodSealer,
    private readonly caller: GatewayCaller,
    private readonly clock: Clock,
  ) {
    this.repos = repositories(store.db, store.dialect);
  }

  /** purchase, authorize, verify, store, general_credit on `gatewayToken`. */
  async direct(environment: Environment, gatewayToken: string, operation: DirectOperation, input: TransactionInput): Promise<TransactionResult> {
    // Spreedly resolves the payment method before the gateway: an unknown token is a 422 even
    // when the gateway is unknown too (docs/wire-compatibility.md). Inline cards are vaulted only after the checks.
    const named = await this.checkPaymentMethodToken(environment, input);
    const gateway = await this.gateways.show(environment, gatewayToken);
    const planned = await this.planDirect(environment, gateway, operation, input, named);
    if ('refused' in planned) return planned.refused;
    return (await this.attemptDirect(planned.plan, gateway, SINGLE_ATTEMPT)).result;
  }

  /**
   * Every check of a direct transaction on its (first) gateway, and its payment method resolved
   * (an inline card vaulted): a plan the gateways can then be tried with, or the refusal recorded.
   */
  async planDirect(
    environment: Environment,
    gateway: GatewayRecord,
    operation: DirectOperation,
    input: TransactionInput,
    /** The row `checkPaymentMethodToken` found, so it is not read twice (its use is decided under a lock later). */
    named?: PaymentMethod,
  ): Promise<{ plan: DirectPlan } | { refused: TransactionResult }> {
    const type = TRANSACTION_TYPE[operation];
    const base = this.baseDetails(gateway, input);
    requireAbility(gateway.definition, operation);
    checkAmount(input.amount, input.amountInvalid, NEEDS_AMOUNT[operation]);
    checkCurrency(input.currencyCode, NEEDS_AMOUNT[operation]);
    const resolved = await this.resolvePaymentMethod(environment, input, named);
    const common = { environment, gateway, type, details: { ...base, payment_method_added: resolved.added }, amount: input.amount ?? null, currency: input.currencyCode ?? null, callback: callbackOf(input) };
    if ('invalid' in resolved) {
      const refused = await this.refuse({ ...common, paymentMethod: null, details: { ...common.details, payment_method_errors: resolved.invalid } }, {
        messageKey: 'messages.payment_method_invalid',
        message: 'The payment method is invalid.',
      });
      return { refused };
    }
    const paymentMethod = resolved.paymentMethod;
    // A test offsite method (sprel) makes the purchase or authorization an offsite one.
    const offsite = paymentMethod.payment_method_type === 'sprel' && (operation === 'purchase' || operation === 'authorize');
    const plan: DirectPlan = { environment, operation, input, type: offsite ? OFFSITE_TYPE[operation] : type, paymentMethod, added: resolved.added };
    if (gateway.row.state === 'redacted') return { refused: await this.refuse(this.attemptArgs(plan, gateway), REDACTED_GATEWAY) };
    if (gateway.definition.test !== (paymentMethod.test === 1)) {
      const message =
        !environment.production ? MESSAGES.notActivated(environment.key) : gateway.definition.test ? MESSAGES.testGatewayNeedsTestCard : MESSAGES.productionGatewayNeedsRealCard;
      throw new AppError({ key: 'errors.account_inactive', message });
    }
    const refusal = STATE_REFUSALS[paymentMethod.storage_state];
    if (refusal !== undefined) return { refused: await this.refuse(this.attemptArgs(plan, gateway), refusal) };
    return { plan };
  }

  /**
   * One attempt of a planned direct transaction on `gateway`. The breaker or the in-flight cap may
   * refuse it (AppError 503, nothing persisted). The first attempt consumes the stored CVV (and a
   * single-use method) as it commits its `processing` record; a later attempt of a retry chain
   * (docs/routing-retry.md) sends the card opened by the first, CVV included, and consumes nothing again.
   */
  async attemptDirect(plan: DirectPlan, gateway: GatewayRecord, link: AttemptLink): Promise<AttemptResult> {
    const { environment, operation, input, paymentMethod } = plan;
    const args = this.attemptArgs(plan, gateway, link.failover);
    const permit = await this.caller.permit(gateway.row, gateway.definition);
    try {
      const opened = link.heldCard ?? (await this.sealer.open(paymentMethod));
      if (opened === null) return { result: await this.refuse(args, STATE_REFUSALS.redacted as Refusal), outcome: null, card: null };
      const token = orderedToken(TOKEN_LENGTH.item);
      const deadline = callDeadline(this.clock.now(), this.caller.timeoutMs(gateway.row));
      const chain = link.chained ? { first_attempt_token: link.firstAttemptToken ?? token } : {};
      const row = { ...this.processingRow(token, args, null, deadline), ...chain };
      const failedOver = link.failover !== null;
      const started =
        link.heldCard !== null
          ? { processing: await this.repos.transactions.insertReturning(row, failedOver), consumed: null }
          : await inTransaction(this.store, async (repos): Promise<{ processing: Transaction; consumed: PaymentMethod | null } | { refusal: Refusal }> => {
              await repos.locks.serialize(`payment_method:${paymentMethod.token}`);
              // The CVV goes to this (first) transaction only; a single-use method is used from now on.
              // The write is conditional on a usable state: a redact, use or close that came first refuses this one.
              const consumed = await repos.paymentMethods.updateIfStateReturning(environment.key, paymentMethod.token, ['cached', 'retained'], {
                sealed_cvv: null,
                cvv_length: null,
                cvv_expires_at: null,
                ...(paymentMethod.single_use === 1 ? { storage_state: 'used' } : {}),
                updated_at: this.clock.now().toISOString(),
              });
              if (consumed === undefined) {
                const current = await repos.paymentMethods.find(environment.key, paymentMethod.token);
                return { refusal: (current === undefined ? undefined : STATE_REFUSALS[current.storage_state]) ?? (STATE_REFUSALS.redacted as Refusal) };
              }
              return { processing: await repos.transactions.insertReturning(row, failedOver), consumed };
            });
      if ('refusal' in started) return { result: await this.refuse(args, started.refusal), outcome: null, card: null };
      const storedCredential = storedCredentialFor(operation, input, paymentMethod);
      const request = { ...this.request(operation, token, gateway, input, opened, null), storedCredential };
      const finished = await this.callAndFinish(permit, environment, gateway, started.processing, request, {
        retainOnSuccess: input.retainOnSuccess,
        // The row as the consuming write returned it is this transaction's own view of the method.
        paymentMethod: started.consumed ?? paymentMethod,
        paymentMethodIsCurrent: started.consumed !== null,
        keepNetworkTransactionId: storedCredential?.initiator === 'cardholder',
      });
      return { ...finished, card: link.keepCard ? opened : null };
    } finally {
      permit.release();
    }
  }

  /** The record arguments of an attempt of `plan` on `gateway` (details as of that gateway). */
  private attemptArgs(plan: DirectPlan, gateway: GatewayRecord, failover: FailoverNote | null = null) {
    const details: GatewayTransactionDetails = {
      ...this.baseDetails(gateway, plan.input),
      payment_method_added: plan.added,
      payment_method_storage_state: plan.paymentMethod.storage_state,
      ...(failover === null ? {} : { failover }),
    };
    return { environment: plan.environment, gateway, type: plan.type, paymentMethod: plan.paymentMethod, details, amount: plan.input.amount ?? null, currency: plan.input.currencyCode ?? null, callback: callbackOf(plan.input) };
  }

  /** capture, void, credit of the transaction `referenceToken`. */
  async reference(environment: Environment, referenceToken: string, operation: ReferenceOperation, input: TransactionInput): Promise<TransactionResult> {
    const reference = await this.repos.transactions.find(environment.key, referenceToken);
    if (reference === undefined) throw referenceNotFound();
    checkReference(operation, reference);
    const gateway = await this.gateways.show(environment, reference.gateway_token ?? '');
    requireAbility(gateway.definition, operation);
    if (operation !== 'void') {
      checkAmount(input.amount, input.amountInvalid, false);
      if (input.currencyCode !== undefined && input.currencyCode !== reference.currency_code) {
        throw new AppError({ key: 'errors.invalid_currency_code', attribute: 'currency_code', message: `The currency_code must be that of the reference transaction (${reference.currency_code}).` });
      }
    }
    const referenceDetails = detailsOf(reference);
    const paymentMethod = reference.payment_method_token === null ? null : ((await this.repos.paymentMethods.find(environment.key, reference.payment_method_token)) ?? null);
    const type = TRANSACTION_TYPE[operation];
    const common = {
      environment,
      gateway,
      type,
      paymentMethod,
      details: { ...this.baseDetails(gateway, input), payment_method_added: false, payment_method_storage_state: paymentMethod?.storage_state ?? null },
      amount: operation === 'void' ? null : (input.amount ?? null),
      currency: operation === 'void' ? null : reference.currency_code,
      callback: callbackOf(input),
    };
    if (gateway.row.state === 'redacted') return this.refuse({ ...common, referenceToken }, REDACTED_GATEWAY);

    const permit = await this.caller.permit(gateway.row, gateway.definition);
    try {
      const token = orderedToken(TOKEN_LENGTH.item);
      const deadline = callDeadline(this.clock.now(), this.caller.timeoutMs(gateway.row));
      // One reference at a time: concurrent captures, credits and voids are decided in order.
      const { amount, processing } = await inTransaction(this.store, async (repos) => {
        await repos.locks.serialize(`transaction:${referenceToken}`);
        const children = await repos.transactions.children(environment.key, referenceToken);
        let decided: number | null = null;
        if (operation === 'void') checkVoidable(children);
        else {
          const remaining = remainingAmount(operation, reference, children, gateway.definition.capturesAreFinal);
          decided = input.amount ?? remaining;
          if (decided < 1 || decided > remaining) {
            throw new AppError({ key: 'errors.invalid_amount', attribute: 'amount', message: `Amount must be between 1 and what remains to ${operation} (${remaining}).` });
          }
        }
        return { amount: decided, processing: await repos.transactions.insertReturning(this.processingRow(token, { ...common, amount: decided }, referenceToken, deadline)) };
      });
      const request = this.request(operation, token, gateway, { ...input, amount: amount ?? undefined, currencyCode: reference.currency_code ?? undefined }, null, {
        gatewayTransactionId: referenceDetails?.gateway_transaction_id ?? null,
        transactionType: reference.transaction_type,
        amount: reference.amount,
      });
      return (await this.callAndFinish(permit, environment, gateway, processing, request, { retainOnSuccess: false, paymentMethod, paymentMethodIsCurrent: false, keepNetworkTransactionId: false })).result;
    } finally {
      permit.release();
    }
  }

  /** Finishes a pending (3-D Secure) transaction; the same transaction comes back, updated. */
  async complete(environment: Environment, token: string): Promise<TransactionResult> {
    const row = await this.repos.transactions.find(environment.key, token);
    if (row === undefined) throw transactionNotFound(token);
    if (row.state !== 'pending') throw new AppError({ key: 'errors.transaction_not_pending', message: 'Only pending transactions can be completed.' });
    const gateway = await this.gateways.show(environment, row.gateway_token ?? '');
    const details = detailsOf(row);
    const paymentMethod = row.payment_method_token === null ? null : ((await this.repos.paymentMethods.find(environment.key, row.payment_method_token)) ?? null);
    const permit = await this.caller.permit(gateway.row, gateway.definition);
    try {
      // Exactly one complete goes to the gateway: it moves the transaction out of `pending` first.
      const deadline = callDeadline(this.clock.now(), this.caller.timeoutMs(gateway.row));
      const claimed = await inTransaction(this.store, async (repos) => {
        await repos.locks.serialize(`transaction:${token}`);
        return repos.transactions.updateIfState(environment.key, token, 'pending', {
          state: 'processing',
          details: details === null ? null : JSON.stringify({ ...details, call_deadline: deadline }),
          updated_at: this.clock.now().toISOString(),
        });
      });
      if (claimed === undefined) throw new AppError({ key: 'errors.transaction_not_pending', message: 'Only pending transactions can be completed.' });
      const request = this.request(
        'complete',
        token,
        gateway,
        { retainOnSuccess: false, attempt3dsecure: false, amount: row.amount ?? undefined, currencyCode: row.currency_code ?? undefined, redirectUrl: details?.redirect_url ?? undefined, callbackUrl: details?.callback_url ?? undefined },
        null,
        { gatewayTransactionId: details?.gateway_transaction_id ?? null, transactionType: row.transaction_type, amount: row.amount, context: details?.three_ds_context ?? null },
      );
      const finished = await this.callAndFinish(permit, environment, gateway, claimed, request, {
        retainOnSuccess: details?.retain_on_success === true,
        paymentMethod,
        paymentMethodIsCurrent: false,
        keepNetworkTransactionId: details?.stored_credential_initiator === 'cardholder' && details.stored_credential_reason_type !== null && details.stored_credential_reason_type !== undefined,
      });
      return finished.result;
    } finally {
      permit.release();
    }
  }

  private async callAndFinish(
    permit: CallPermit,
    environment: Environment,
    gateway: GatewayRecord,
    processing: Transaction,
    request: GatewayRequest,
    effects: TransactionEffects,
  ): Promise<{ result: TransactionResult; outcome: CallOutcome }> {
    const transcript: TranscriptEntry[] = [];
    const credentials = await this.gateways.openCredentials(gateway.row);
    request.credentials = Object.fromEntries(Object.entries(credentials).map(([name, value]) => [name, new Secret(value)]));
    // Capture, void, credit and complete send no card, but the gateway may still echo it: the
    // scrubber is told the card of the payment method they concern (docs/security.md, "Scrubbing").
    const card = request.paymentMethod === null && effects.paymentMethod !== null ? await this.sealer.open(effects.paymentMethod) : null;
    const outcome = await this.caller.call(permit, gateway.row, request, transcript, card);
    return { result: await finishTransaction(this.store, this.clock, environment, processing, outcome, transcript, effects), outcome };
  }

  private request(
    operation: GatewayOperation,
    token: string,
    gateway: GatewayRecord,
    input: TransactionInput,
    paymentMethod: GatewayRequest['paymentMethod'],
    reference: GatewayRequest['reference'],
  ): GatewayRequest {
    return {
      operation,
      transactionToken: token,
      testMode: gateway.row.sandbox === 1,
      credentials: {},
      amount: input.amount ?? null,
      currencyCode: input.currencyCode ?? null,
      paymentMethod,
      reference,
      orderId: input.orderId ?? null,
      description: input.description ?? null,
      ip: input.ip ?? null,
      email: input.email ?? null,
      shippingAddress: { ...EMPTY_SHIPPING_ADDRESS, ...input.shippingAddress },
      gatewaySpecificFields: (input.gatewaySpecificFields?.[gateway.row.gateway_type] as Record<string, unknown> | undefined) ?? {},
      attempt3dsecure: input.attempt3dsecure,
      threeDsVersion: input.threeDsVersion ?? null,
      browserInfo: input.browserInfo ?? null,
      redirectUrl: input.redirectUrl ?? null,
      callbackUrl: input.callbackUrl ?? null,
      storedCredential: null,
    };
  }

  private baseDetails(gateway: GatewayRecord, input: TransactionInput): Omit<GatewayTransactionDetails, 'payment_method_added'> {
    return {
      on_test_gateway: gateway.definition.test,
      gateway_type: gateway.row.gateway_type,
      order_id: input.orderId ?? null,
      ip: input.ip ?? null,
      description: input.description ?? null,
      email: input.email ?? null,
      merchant_name_descriptor: input.merchantNameDescriptor ?? null,
      merchant_location_descriptor: input.merchantLocationDescriptor ?? null,
      gateway_specific_fields: input.gatewaySpecificFields ?? null,
      gateway_specific_response_fields: {},
      gateway_transaction_id: null,
      gateway_latency_ms: null,
      retain_on_success: input.retainOnSuccess,
      attempt_3dsecure: input.attempt3dsecure,
      stored_credential_initiator: input.storedCredentialInitiator ?? null,
      stored_credential_reason_type: input.storedCredentialReasonType ?? null,
      network_transaction_id: null,
      three_ds_version: input.threeDsVersion ?? null,
      redirect_url: input.redirectUrl ?? null,
      callback_url: input.callbackUrl ?? null,
      callback_format: input.callbackFormat ?? null,
      shipping_address: { ...EMPTY_SHIPPING_ADDRESS, ...input.shippingAddress },
      response: null,
    };
  }

  private processingRow(
    token: string,
    args: { environment: Environment; gateway: GatewayRecord; type: string; paymentMethod: PaymentMethod | null; details: GatewayTransactionDetails; amount: number | null; currency: string | null; callback?: TransactionCallback },
    referenceToken: string | null,
    callDeadline: string | null = null,
  ) {
    const row = newTransactionRow({
      token,
      environmentKey: args.environment.key,
      transactionType: args.type,
      outcome: 'processing',
      gatewayToken: args.gateway.row.token,
      paymentMethodToken: args.paymentMethod?.token ?? null,
      referenceToken,
      amount: args.amount,
      currencyCode: args.currency,
      details: callDeadline === null ? args.details : { ...args.details, call_deadline: callDeadline },
      now: this.clock.now().toISOString(),
    });
    return args.callback === undefined ? row : { ...row, ...args.callback };
  }

  private refuse(
    args: { environment: Environment; gateway: GatewayRecord; type: string; paymentMethod: PaymentMethod | null; details: GatewayTransactionDetails; amount: number | null; currency: string | null; referenceToken?: string },
    refusal: Refusal,
  ): Promise<TransactionResult> {
    return refusedTransaction(this.store, this.processingRow(orderedToken(TOKEN_LENGTH.item), args, args.referenceToken ?? null), refusal);
  }

  /** Spreedly's first check of a direct transaction: a `payment_method_token` that names nothing is a 422. Returns the row it names. */
  async checkPaymentMethodToken(environment: Environment, input: TransactionInput): Promise<PaymentMethod | undefined> {
    return input.paymentMethodToken === undefined ? undefined : this.findPaymentMethod(environment, input.paymentMethodToken);
  }

  /** The payment method named in a body; unknown is a 422 (not the path's 404), as Spreedly answers it. */
  private async findPaymentMethod(environment: Environment, token: string): Promise<PaymentMethod> {
    const row = await this.repos.paymentMethods.find(environment.key, token);
    if (row === undefined) throw new AppError({ key: 'errors.payment_method_not_found', message: MESSAGES.paymentMethodTokenUnknown }, {}, 422);
    return row;
  }

  /** The payment method named by token, or vaulted from the inline card or bank account. */
  private async resolvePaymentMethod(
    environment: Environment,
    input: TransactionInput,
    named?: PaymentMethod,
  ): Promise<{ paymentMethod: PaymentMethod; added: boolean } | { invalid: Array<{ key: string; message: string; attribute?: string }>; added: boolean }> {
    if (input.paymentMethodToken !== undefined) {
      const row = named?.token === input.paymentMethodToken ? named : await this.findPaymentMethod(environment, input.paymentMethodToken);
      return { paymentMethod: await this.paymentMethods.settle(row), added: false };
    }
    if (input.inlinePaymentMethod !== undefined) {
      try {
        const created = await this.paymentMethods.create(environment, input.inlinePaymentMethod);
        return { paymentMethod: created.paymentMethod, added: true };
      } catch (error) {
        if (error instanceof AppError && error.status === 422) {
          return { invalid: error.entries.map((entry) => ({ key: entry.key, message: entry.message, ...(entry.attribute === undefined ? {} : { attribute: entry.attribute }) })), added: false };
        }
        throw error;
      }
    }
    throw new AppError({ key: 'errors.payment_method_or_payment_method_token_required', message: MESSAGES.paymentMethodRequired });
  }
}
