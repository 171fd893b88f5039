import { NO_REQUEST, type RequestMeta } from '../../domain/request.js';
import { AppError, MESSAGES } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import { orderedToken, TOKEN_LENGTH } from '../../domain/tokens.js';
import type { AdapterPaymentMethod, GatewayOperation, GatewayRequest, StoredCredential } from '../../gateways/kit/index.js';
import type { StoreAccess } from '../../store/store-access.js';

import type { GatewayRecord, GatewayService } from '../gateway.service.js';
import type { PaymentMethodSealer } from '../payment-method-sealer.js';
import type { PaymentMethodService } from '../payment-method.service.js';
import { newTransaction } from '../transaction-records.js';
import { detailsOf } from './transaction-details.js';
import type { TransactionInput } from './transaction-input.js';
import { checkAmount, checkCurrency, checkReference, referenceNotFound, requireAbility, requirePaymentMethodKind, transactionNotFound, TRANSACTION_TYPE } from './transaction-rules.js';
import type { GatewayCaller } from './gateway-caller.js';
import { runGatewayTransaction, type GatewayTransactionPlan } from './pipeline/pipeline.js';
import { claimPending, holdsSensitiveValues, persistProcessing, persistRefusal, recordCardAccess, reservePaymentMethod, reserveReference } from './pipeline/steps.js';
import type { AttemptResult, PipelineDeps, PipelineRepoKeys, Refusal, TransactionResult } from './pipeline/pipeline-types.js';
import { REDACTED_GATEWAY, REDACTED_METHOD, STATE_REFUSALS } from './pipeline/refusals.js';
import type { Environment } from '../../domain/environment.js';
import { isWalletType, type PaymentMethod } from '../../domain/payment-method.js';
import { TransactionState, type NewTransaction, type Transaction } from '../../domain/transaction.js';
import { EMPTY_SHIPPING_ADDRESS, type FailoverNote, type GatewayTransactionDetails } from '../../domain/transaction-details.js';

export type { AttemptResult, TransactionResult } from './pipeline/pipeline-types.js';
export { STATE_REFUSALS } from './pipeline/refusals.js';

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

type ReferenceOperation = 'capture' | 'void' | 'credit';

const NEEDS_AMOUNT: Record<DirectOperation, boolean> = { purchase: true, authorize: true, general_credit: true, verify: false, store: false };

const WALLET_NOT_TAKEN: Refusal = { messageKey: 'messages.payment_method_not_supported', message: 'The gateway does not take this kind of payment method.' };

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
  const kept = paymentMethod.details.network_transaction_id;
  return { initiator, reasonType, networkTransactionId: initiator === 'merchant' && typeof kept === 'string' ? kept : null };
}

/** A transaction's own callback destination (docs/callbacks.md). */
type TransactionCallback = { callbackUrl: string | null; callbackFormat: string | null };

function callbackOf(input: TransactionInput): TransactionCallback {
  return { callbackUrl: input.callbackUrl ?? null, callbackFormat: input.callbackUrl === undefined ? null : (input.callbackFormat ?? 'xml') };
}

/** What a record of a gateway transaction is made of, before its token, state and deadline. */
interface RecordArgs {
  environment: Environment;
  /** The API request the transaction serves (its id is stamped on the events). */
  apiRequest: RequestMeta;
  gateway: GatewayRecord;
  type: string;
  paymentMethod: PaymentMethod | null;
  details: GatewayTransactionDetails;
  amount: number | null;
  currency: string | null;
  callback?: TransactionCallback;
  referenceToken?: string;
}

/** The opened card of a direct attempt (null for a follow-up: capture, void, credit, complete send none). */
interface OpenedCard {
  card: AdapterPaymentMethod;
}

/**
 * Transactions through gateways. Persist, call, persist: every check runs first; then, in one
 * database transaction, the payment method's single use and CVV are consumed and a
 * `processing` transaction is committed; only then is the gateway called; its outcome is
 * committed after. Refusals before the call are recorded as `failed` transactions.
 */
export class GatewayTransactionService {
  private readonly repos: StoreAccess<'transactions' | 'paymentMethods'>['repos'];
  private readonly pipeline: PipelineDeps;

  constructor(
    store: StoreAccess<PipelineRepoKeys>,
    private readonly gateways: GatewayService,
    private readonly paymentMethods: PaymentMethodService,
    sealer: PaymentMethodSealer,
    caller: GatewayCaller,
    private readonly clock: Clock,
  ) {
    this.repos = store.repos;
    this.pipeline = { unitOfWork: (work, scope) => store.unitOfWork(work, scope), caller, credentials: gateways, sealer, clock };
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
    // A wallet token goes only where it can be sent: checked before an inline one is decrypted and vaulted.
    requirePaymentMethodKind(gateway.definition, named?.paymentMethodType ?? input.inlinePaymentMethod?.type);
    const resolved = await this.resolvePaymentMethod(environment, input, named);
    const common = { environment, apiRequest: requestOf(input), gateway, type, details: { ...base, payment_method_added: resolved.added }, amount: input.amount ?? null, currency: input.currencyCode ?? null, callback: callbackOf(input) };
    if ('invalid' in resolved) {
      const refused = await this.refuse({ ...common, paymentMethod: null, details: { ...common.details, payment_method_errors: resolved.invalid } }, {
        messageKey: 'messages.payment_method_invalid',
        message: 'The payment method is invalid.',
      });
      return { refused };
    }
    const paymentMethod = resolved.paymentMethod;
    requirePaymentMethodKind(gateway.definition, paymentMethod.paymentMethodType);
    // A test offsite method (sprel) makes the purchase or authorization an offsite one.
    const offsite = paymentMethod.paymentMethodType === 'sprel' && (operation === 'purchase' || operation === 'authorize');
    const plan: DirectPlan = { environment, operation, input, type: offsite ? OFFSITE_TYPE[operation] : type, paymentMethod, added: resolved.added };
    if (gateway.state === 'redacted') return { refused: await this.refuse(this.attemptArgs(plan, gateway), REDACTED_GATEWAY) };
    if (gateway.definition.test !== paymentMethod.test) {
      const message =
        !environment.production ? MESSAGES.notActivated(environment.key) : gateway.definition.test ? MESSAGES.testGatewayNeedsTestCard : MESSAGES.productionGatewayNeedsRealCard;
      throw new AppError({ key: 'errors.account_inactive', message });
    }
    const refusal = STATE_REFUSALS[paymentMethod.storageState];
    if (refusal !== undefined) return { refused: await this.refuse(this.attemptArgs(plan, gateway), refusal) };
    return { plan };
  }

  /**
   * One attempt of a planned direct transaction on `gateway`. The breaker or the in-flight cap may
   * refuse it (AppError 503, nothing persisted). The first attempt consumes the stored CVV (and a
   * single-use method) as it commits its `processing` record; a later attempt of a retry chain
   * (docs/routing.md) sends the card opened by the first, CVV included, and consumes nothing again.
   */
  async attemptDirect(plan: DirectPlan, gateway: GatewayRecord, link: AttemptLink): Promise<AttemptResult> {
    const run = await runGatewayTransaction(this.pipeline, this.directPlan(plan, gateway, link));
    return { result: run.result, outcome: run.outcome, card: link.keepCard && run.prepared !== null ? run.prepared.card : null };
  }

  /** The pipeline plan of one direct attempt. */
  private directPlan(plan: DirectPlan, gateway: GatewayRecord, link: AttemptLink): GatewayTransactionPlan<OpenedCard, { processing: Transaction; consumed: PaymentMethod | null }> {
    const { environment, operation, input, paymentMethod } = plan;
    const args = this.attemptArgs(plan, gateway, link.failover);
    const token = orderedToken(TOKEN_LENGTH.item);
    const storedCredential = storedCredentialFor(operation, input, paymentMethod);
    return {
      environment,
      apiRequest: args.apiRequest,
      gateway,
      prepare: async () => {
        // A backup gateway of a retry chain that cannot take a wallet method is refused before any call.
        if (isWalletType(paymentMethod.paymentMethodType) && !(gateway.definition.paymentMethods as readonly string[]).includes(paymentMethod.paymentMethodType)) {
          return { refusal: WALLET_NOT_TAKEN };
        }
        const card = link.heldCard ?? (await this.pipeline.sealer.open(paymentMethod));
        return card === null ? { refusal: REDACTED_METHOD } : { card };
      },
      reserve: async (repos, _card, deadline) => {
        const chain = link.chained ? { firstAttemptToken: link.firstAttemptToken ?? token } : {};
        const record = { ...this.processingRecord(token, args, deadline), ...chain };
        const failedOver = link.failover !== null;
        const at = this.clock.now().toISOString();
        // A later attempt of a chain holds the card the first one opened: nothing to consume again,
        // but the card goes to another gateway, for another transaction: that is recorded too.
        if (link.heldCard !== null) {
          if (holdsSensitiveValues(paymentMethod)) await recordCardAccess(repos, { paymentMethod, operation }, token, args.apiRequest, at);
          return { processing: await persistProcessing(repos, record, failedOver), consumed: null };
        }
        const reserved = await reservePaymentMethod(repos, environment, paymentMethod, at);
        // A refused reservation sends nothing (the card opened by prepare is dropped from memory).
        if ('refusal' in reserved) return reserved;
        // The card prepare opened, recorded with the transaction it is sent for (docs/audit.md).
        if (holdsSensitiveValues(paymentMethod)) await recordCardAccess(repos, { paymentMethod, operation }, token, args.apiRequest, at);
        return { processing: await persistProcessing(repos, record, failedOver), consumed: reserved.consumed };
      },
      request: ({ card }) => ({ ...this.request(operation, token, gateway, input, card, null), storedCredential }),
      effects: (_card, { consumed }) => ({
        retainOnSuccess: input.retainOnSuccess,
        // The method as the consuming write returned it is this transaction's own view of it.
        paymentMethod: consumed ?? paymentMethod,
        paymentMethodIsCurrent: consumed !== null,
        keepNetworkTransactionId: storedCredential?.initiator === 'cardholder',
      }),
      refuse: (refusal) => this.refuse(args, refusal),
    };
  }

  /** The record arguments of an attempt of `plan` on `gateway` (details as of that gateway). */
  private attemptArgs(plan: DirectPlan, gateway: GatewayRecord, failover: FailoverNote | null = null) {
    const details: GatewayTransactionDetails = {
      ...this.baseDetails(gateway, plan.input),
      payment_method_added: plan.added,
      payment_method_storage_state: plan.paymentMethod.storageState,
      ...(failover === null ? {} : { failover }),
    };
    return { environment: plan.environment, apiRequest: requestOf(plan.input), gateway, type: plan.type, paymentMethod: plan.paymentMethod, details, amount: plan.input.amount ?? null, currency: plan.input.currencyCode ?? null, callback: callbackOf(plan.input) };
  }

  /** capture, void, credit of the transaction `referenceToken`. */
  async reference(environment: Environment, referenceToken: string, operation: ReferenceOperation, input: TransactionInput): Promise<TransactionResult> {
    const reference = await this.repos.transactions.find(environment.key, referenceToken);
    if (reference === undefined) throw referenceNotFound();
    checkReference(operation, reference);
    const gateway = await this.gateways.show(environment, reference.gatewayToken ?? '');
    requireAbility(gateway.definition, operation);
    if (operation !== 'void') {
      checkAmount(input.amount, input.amountInvalid, false);
      if (input.currencyCode !== undefined && input.currencyCode !== reference.currencyCode) {
        throw new AppError({ key: 'errors.invalid_currency_code', attribute: 'currency_code', message: `The currency_code must be that of the reference transaction (${reference.currencyCode}).` });
      }
    }
    const referenceDetails = detailsOf(reference);
    const paymentMethod = reference.paymentMethodToken === null ? null : ((await this.repos.paymentMethods.find(environment.key, reference.paymentMethodToken)) ?? null);
    const args: RecordArgs = {
      environment,
      apiRequest: requestOf(input),
      gateway,
      type: TRANSACTION_TYPE[operation],
      paymentMethod,
      details: { ...this.baseDetails(gateway, input), payment_method_added: false, payment_method_storage_state: paymentMethod?.storageState ?? null },
      amount: operation === 'void' ? null : (input.amount ?? null),
      currency: operation === 'void' ? null : reference.currencyCode,
      callback: callbackOf(input),
      referenceToken,
    };
    if (gateway.state === 'redacted') return this.refuse(args, REDACTED_GATEWAY);
    const token = orderedToken(TOKEN_LENGTH.item);
    const run = await runGatewayTransaction(this.pipeline, {
      environment,
      apiRequest: args.apiRequest,
      gateway,
      prepare: async () => ({}),
      reserve: async (repos, _nothing, deadline) => {
        const amount = await reserveReference(repos, reference, operation, input.amount, gateway.definition.capturesAreFinal);
        return { amount, processing: await persistProcessing(repos, this.processingRecord(token, { ...args, amount }, deadline), false) };
      },
      request: (_nothing, { amount }) =>
        this.request(operation, token, gateway, { ...input, amount: amount ?? undefined, currencyCode: reference.currencyCode ?? undefined }, null, {
          gatewayTransactionId: referenceDetails?.gateway_transaction_id ?? null,
          transactionType: reference.transactionType,
          amount: reference.amount,
        }),
      effects: () => ({ retainOnSuccess: false, paymentMethod, paymentMethodIsCurrent: false, keepNetworkTransactionId: false }),
      refuse: (refusal) => this.refuse(args, refusal),
    });
    return run.result;
  }

  /** Finishes a pending (3-D Secure) transaction; the same transaction comes back, updated. */
  async complete(environment: Environment, token: string, apiRequest: RequestMeta = NO_REQUEST): Promise<TransactionResult> {
    const pending = await this.repos.transactions.find(environment.key, token);
    if (pending === undefined) throw transactionNotFound(token);
    if (pending.state !== TransactionState.pending) throw new AppError({ key: 'errors.transaction_not_pending', message: 'Only pending transactions can be completed.' });
    const gateway = await this.gateways.show(environment, pending.gatewayToken ?? '');
    const details = detailsOf(pending);
    const paymentMethod = pending.paymentMethodToken === null ? null : ((await this.repos.paymentMethods.find(environment.key, pending.paymentMethodToken)) ?? null);
    const run = await runGatewayTransaction(this.pipeline, {
      environment,
      apiRequest,
      gateway,
      prepare: async () => ({}),
      reserve: async (repos, _nothing, deadline) => ({ processing: await claimPending(repos, pending, deadline, this.clock.now().toISOString()) }),
      request: () =>
        this.request(
          'complete',
          token,
          gateway,
          { retainOnSuccess: false, attempt3dsecure: false, amount: pending.amount ?? undefined, currencyCode: pending.currencyCode ?? undefined, redirectUrl: details?.redirect_url ?? undefined, callbackUrl: details?.callback_url ?? undefined },
          null,
          { gatewayTransactionId: details?.gateway_transaction_id ?? null, transactionType: pending.transactionType, amount: pending.amount, context: details?.three_ds_context ?? null },
        ),
      effects: () => ({
        retainOnSuccess: details?.retain_on_success === true,
        paymentMethod,
        paymentMethodIsCurrent: false,
        keepNetworkTransactionId: details?.stored_credential_initiator === 'cardholder' && details.stored_credential_reason_type !== null && details.stored_credential_reason_type !== undefined,
      }),
      // Nothing refuses a completion before its call: a transaction no longer pending is a 422 (claimPending).
      refuse: () => Promise.reject(new Error('a completion is never refused')),
    });
    return run.result;
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
      testMode: gateway.sandbox,
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
      gatewaySpecificFields: (input.gatewaySpecificFields?.[gateway.gatewayType] as Record<string, unknown> | undefined) ?? {},
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
      gateway_type: gateway.gatewayType,
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

  /** The record of a transaction about to call (or refused before calling), with the call's deadline when it will call. */
  private processingRecord(token: string, args: RecordArgs, callDeadline: string | null = null): NewTransaction {
    const record = newTransaction({
      token,
      environmentKey: args.environment.key,
      transactionType: args.type,
      outcome: TransactionState.processing,
      gatewayToken: args.gateway.token,
      paymentMethodToken: args.paymentMethod?.token ?? null,
      referenceToken: args.referenceToken ?? null,
      amount: args.amount,
      currencyCode: args.currency,
      details: callDeadline === null ? args.details : { ...args.details, call_deadline: callDeadline },
      now: this.clock.now().toISOString(),
    });
    return args.callback === undefined ? record : { ...record, ...args.callback };
  }

  private refuse(args: RecordArgs, refusal: Refusal): Promise<TransactionResult> {
    return persistRefusal(this.pipeline, this.processingRecord(orderedToken(TOKEN_LENGTH.item), args), refusal, args.apiRequest);
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
        const created = await this.paymentMethods.create(environment, input.inlinePaymentMethod, requestOf(input));
        return { paymentMethod: created.paymentMethod, added: true };
      } catch (error) {
        // A refused wallet token is the request's fault, not the card's: its own 422, and nothing recorded.
        if (error instanceof AppError && error.entries.some((entry) => entry.key.startsWith('errors.wallet_'))) throw error;
        if (error instanceof AppError && error.status === 422) {
          return { invalid: error.entries.map((entry) => ({ key: entry.key, message: entry.message, ...(entry.attribute === undefined ? {} : { attribute: entry.attribute }) })), added: false };
        }
        throw error;
      }
    }
    throw new AppError({ key: 'errors.payment_method_or_payment_method_token_required', message: MESSAGES.paymentMethodRequired });
  }
}

/** The API request a transaction's input came with (none for retries the sweep or a job starts). */
function requestOf(input: TransactionInput): RequestMeta {
  return input.request ?? NO_REQUEST;
}
