import type { RequestMeta } from '../../../domain/request.js';
import { AppError, type ErrorEntry } from '../../../domain/errors.js';
import type { Environment } from '../../../domain/environment.js';
import type { PaymentMethod } from '../../../domain/payment-method.js';
import { cardAccessActor, type CardAccessOperation } from '../../../domain/card-access.js';
import { Secret } from '../../../domain/secret.js';
import { TransactionState, type NewTransaction, type Transaction } from '../../../domain/transaction.js';
import type { GatewayTransactionDetails } from '../../../domain/transaction-details.js';
import { blankResponse, type GatewayRequest, type GatewayResponse, type PendingAction, type TranscriptEntry } from '../../../gateways/kit/index.js';
import type { GatewayRecord } from '../../gateway.service.js';
import { finishTransactionRecord, PENDING_MESSAGE, recordTransaction, SUCCEEDED_MESSAGE, updateTransactionIfState } from '../../transaction-records.js';
import type { CallOutcome, CallPermit } from '../gateway-caller.js';
import { detailsOf, responseRecord } from '../transaction-details.js';
import { checkVoidable, remainingAmount } from '../transaction-rules.js';
import { closeMethod, keepNetworkTransactionId, retainMethod, vaultThirdPartyToken } from './payment-method-effects.js';
import type { PipelineDeps, PipelineRepos, Refusal, TransactionEffects, TransactionResult } from './pipeline-types.js';
import { REDACTED_METHOD, STATE_REFUSALS } from './refusals.js';

/**
 * The steps of a gateway transaction, in the order they run (pipeline.ts): authorize the request,
 * reserve what the call needs (the payment method, or the reference's remaining amount) and
 * persist `processing` in the same unit of work, call the gateway, persist the outcome. Each
 * persisting step records its events and the callbacks they call for in its own unit of work
 * (docs/events.md): that is how the outcome is notified, with the change or not at all.
 */

/** Step 1: a slot to call the gateway, from the in-flight cap and the breaker; 503 (nothing persisted) when refused. */
export function authorizeRequest(deps: Pick<PipelineDeps, 'caller'>, gateway: GatewayRecord): Promise<CallPermit> {
  return deps.caller.permit(gateway, gateway.definition);
}

/**
 * Step 2 (direct): under the payment method's lock, the CVV goes to this transaction only and a
 * single-use method is used from now on. The write is conditional on a usable state: a redact,
 * use or close that came first refuses this transaction (nothing is persisted by this step then).
 */
export async function reservePaymentMethod(repos: PipelineRepos, environment: Environment, paymentMethod: PaymentMethod, at: string): Promise<{ consumed: PaymentMethod } | { refusal: Refusal }> {
  await repos.locks.serialize(`payment_method:${paymentMethod.token}`);
  const consumed = await repos.paymentMethods.updateIfStateReturning(environment.key, paymentMethod.token, ['cached', 'retained'], {
    sealed: { cvv: null },
    cvvLength: null,
    cvvExpiresAt: null,
    ...(paymentMethod.singleUse ? { storageState: 'used' as const } : {}),
    updatedAt: at,
  });
  if (consumed !== undefined) {
    // Dropping the CVV alone records nothing; using a single-use method is an event (docs/events.md).
    if (paymentMethod.singleUse) await repos.journal.record({ environmentKey: environment.key, eventType: 'UsePaymentMethod', objectType: 'payment_method', objectKey: paymentMethod.token, at: consumed.updatedAt });
    return { consumed };
  }
  const current = await repos.paymentMethods.find(environment.key, paymentMethod.token);
  return { refusal: (current === undefined ? undefined : STATE_REFUSALS[current.storageState]) ?? REDACTED_METHOD };
}

/**
 * Step 2 (capture, void, credit): one reference at a time, so concurrent captures, credits and
 * voids are decided in order: the amount this one may take (null for a void), or an AppError.
 */
export async function reserveReference(
  repos: PipelineRepos,
  reference: Transaction,
  operation: 'capture' | 'void' | 'credit',
  requested: number | undefined,
  capturesAreFinal: boolean,
): Promise<number | null> {
  await repos.locks.serialize(`transaction:${reference.token}`);
  const children = await repos.transactions.children(reference.environmentKey, reference.token);
  if (operation === 'void') {
    checkVoidable(children);
    return null;
  }
  const remaining = remainingAmount(operation, reference, children, capturesAreFinal);
  const decided = requested ?? remaining;
  if (decided < 1 || decided > remaining) {
    throw new AppError({ key: 'errors.invalid_amount', attribute: 'amount', message: `Amount must be between 1 and what remains to ${operation} (${remaining}).` });
  }
  return decided;
}

const NOT_PENDING: ErrorEntry = { key: 'errors.transaction_not_pending', message: 'Only pending transactions can be completed.' };

/**
 * Steps 2 and 3 (complete): exactly one complete goes to the gateway: it moves the transaction out
 * of `pending` into `processing` (with the call's deadline) first; a 422 when it had moved on.
 */
export async function claimPending(repos: PipelineRepos, pending: Transaction, deadline: string, at: string): Promise<Transaction> {
  await repos.locks.serialize(`transaction:${pending.token}`);
  const details = detailsOf(pending);
  const claimed = await updateTransactionIfState(repos, pending.environmentKey, pending.token, TransactionState.pending, {
    state: TransactionState.processing,
    details: details === null ? null : { ...details, call_deadline: deadline },
    updatedAt: at,
  });
  if (claimed === undefined) throw new AppError(NOT_PENDING);
  return claimed;
}

/** Whether opening `method` reveals card or bank data (a PAN, a CVV, an account number). */
export function holdsSensitiveValues(method: PaymentMethod): boolean {
  return method.paymentMethodType === 'credit_card' || method.paymentMethodType === 'bank_account';
}

/** A payment method's sensitive values were (or are about to be) opened for this transaction. */
export interface CardOpening {
  paymentMethod: PaymentMethod;
  operation: CardAccessOperation;
}

/**
 * The card access record of an opening (docs/audit.md): one insert, in the unit of work that
 * commits the transaction it served, whose result nobody waits for.
 */
export async function recordCardAccess(repos: Pick<PipelineRepos, 'cardAccess'>, opening: CardOpening, transactionToken: string, apiRequest: RequestMeta, at: string): Promise<void> {
  await repos.cardAccess.record({
    environmentKey: opening.paymentMethod.environmentKey,
    paymentMethodToken: opening.paymentMethod.token,
    operation: opening.operation,
    objectType: 'transaction',
    objectId: transactionToken,
    ...cardAccessActor(apiRequest),
    requestId: apiRequest.id,
    createdAt: at,
  });
}

/** Step 3: the `processing` record, with its events, committed before the call. */
export function persistProcessing(repos: PipelineRepos, processing: NewTransaction, failedOver: boolean): Promise<Transaction> {
  return recordTransaction(repos, processing, { failedOver });
}

/** A transaction Coffer refused (state `failed`, nothing sent), recorded with its events in one unit of work. */
export async function persistRefusal(deps: Pick<PipelineDeps, 'unitOfWork'>, record: NewTransaction, refusal: Refusal, apiRequest: RequestMeta): Promise<TransactionResult> {
  const failed: NewTransaction = { ...record, state: TransactionState.failed, succeeded: false, messageKey: refusal.messageKey, message: refusal.message };
  const transaction = await deps.unitOfWork((repos) => recordTransaction(repos, failed), { request: apiRequest });
  return { transaction, status: 422 };
}

/**
 * Step 4: the call, with the gateway's credentials opened for it. Capture, void, credit and
 * complete send no card, but the gateway may still echo it: the scrubber is told the card of the
 * payment method they concern (`concerning`; docs/security.md).
 */
export async function callGateway(
  deps: Pick<PipelineDeps, 'caller' | 'credentials' | 'sealer'>,
  permit: CallPermit,
  gateway: GatewayRecord,
  request: GatewayRequest,
  concerning: PaymentMethod | null,
): Promise<{ outcome: CallOutcome; transcript: TranscriptEntry[]; opened: CardOpening | null }> {
  const transcript: TranscriptEntry[] = [];
  const credentials = await deps.credentials.openCredentials(gateway);
  const sent = { ...request, credentials: Object.fromEntries(Object.entries(credentials).map(([name, value]) => [name, new Secret(value)])) };
  const card = request.paymentMethod === null && concerning !== null ? await deps.sealer.open(concerning) : null;
  const outcome = await deps.caller.call(permit, gateway, sent, transcript, card);
  // Opened to scrub the transcript only, but opened: the outcome's unit of work records it.
  const opened = card !== null && concerning !== null && holdsSensitiveValues(concerning) ? { paymentMethod: concerning, operation: request.operation as CardAccessOperation } : null;
  return { outcome, transcript, opened };
}

/** HTTP status per final state: declines and refusals 422, unknown outcomes 408 (API.md §3). */
export function statusFor(state: TransactionState): number {
  if (state === TransactionState.succeeded || state === TransactionState.pending) return 200;
  if (state === TransactionState.resultUnknown) return 408;
  return 422;
}

/** The gateway's pending action as the transaction records it; all null once nothing is pending. */
function pendingActionDetails(action: PendingAction | null): Partial<GatewayTransactionDetails> {
  return {
    three_ds_context: action?.threeDsContext ?? null,
    required_action: action?.requiredAction ?? null,
    device_fingerprint_form: action?.deviceFingerprintForm ?? null,
    challenge_form: action?.challengeForm ?? null,
    challenge_url: action?.challengeUrl ?? null,
    checkout_url: action?.checkoutUrl ?? null,
  };
}

/** What a call came to, as a response (a fault or an unknown result is a blank failed response) and a state. */
export function outcomeOf(outcome: CallOutcome): { response: GatewayResponse; state: TransactionState } {
  if (outcome.kind === 'answered') {
    const { response } = outcome;
    return { response, state: response.pending ? TransactionState.pending : response.success ? TransactionState.succeeded : TransactionState.gatewayProcessingFailed };
  }
  const response = { ...blankResponse(false, outcome.message), errorCode: 'processing_error' as const, errorDetail: outcome.detail };
  return { response, state: outcome.kind === 'unknown' ? TransactionState.resultUnknown : TransactionState.gatewayProcessingFailed };
}

/**
 * Step 5: commits what the gateway answered, together with its effects on the payment method: a
 * closed account closes it, `retain_on_success` retains it, a successful `store` vaults the
 * gateway's token as a new third-party payment method. `processing` is the transaction as
 * committed before the call (nothing else writes a transaction while its call runs), so it is not
 * read again.
 */
export async function persistOutcome(
  deps: Pick<PipelineDeps, 'unitOfWork' | 'clock'>,
  environment: Environment,
  processing: Transaction,
  outcome: CallOutcome,
  transcript: TranscriptEntry[],
  effects: TransactionEffects,
  apiRequest: RequestMeta,
  opened: CardOpening | null = null,
): Promise<TransactionResult> {
  const at = deps.clock.now().toISOString();
  const { response, state } = outcomeOf(outcome);
  const message = state === TransactionState.succeeded ? SUCCEEDED_MESSAGE : state === TransactionState.pending ? PENDING_MESSAGE : { key: null, text: response.message };
  const succeeded = state === TransactionState.succeeded;
  const details = detailsOf(processing) as GatewayTransactionDetails;
  const answered: GatewayTransactionDetails = {
    ...details,
    gateway_transaction_id: response.gatewayTransactionId,
    gateway_latency_ms: outcome.latencyMs,
    gateway_specific_response_fields: response.specificResponseFields,
    response: responseRecord(response, at, { resultUnknown: outcome.kind === 'unknown', cancelled: processing.transactionType === 'Void' && response.success }),
    network_transaction_id: response.networkTransactionId,
    ...pendingActionDetails(response.pendingAction),
  };
  // The call's deadline mattered only while it could still be running (abandoned-calls.ts).
  delete answered.call_deadline;
  const method = effects.paymentMethod;
  return deps.unitOfWork(async (repos) => {
    if (opened !== null) await recordCardAccess(repos, opened, processing.token, apiRequest, at);
    // The method as this transaction's writes leave it, while each of them is known to have applied.
    const initial = method !== null && effects.paymentMethodIsCurrent ? method : undefined;
    const afterClose = method !== null && response.accountClosed ? await closeMethod(repos, environment, method, initial, at) : initial;
    const afterRetain = method !== null && succeeded && effects.retainOnSuccess ? await retainMethod(repos, environment, method, afterClose, at) : afterClose;
    const networkTransactionId = succeeded && effects.keepNetworkTransactionId ? response.networkTransactionId : null;
    const afterKeep = method !== null && networkTransactionId !== null ? await keepNetworkTransactionId(repos, environment, method, networkTransactionId, at) : afterRetain;
    const thirdPartyToken = processing.transactionType === 'Store' && succeeded ? response.thirdPartyToken : null;
    const vaulted =
      method !== null && thirdPartyToken !== null
        ? await vaultThirdPartyToken(repos, environment, method, { thirdPartyToken }, { onTestGateway: details.on_test_gateway, gatewayType: details.gateway_type }, at)
        : null;
    const transaction = await finishTransactionRecord(repos, processing, {
      state,
      succeeded,
      messageKey: message.key,
      message: message.text,
      paymentMethodToken: vaulted ?? processing.paymentMethodToken,
      details: vaulted === null || method === null ? answered : { ...answered, third_party_token: thirdPartyToken, basis_payment_method_token: method.token },
      // A completed transaction keeps the transcript of its first exchange too.
      transcript: [processing.transcript, ...transcript.map((entry) => entry.text)].filter((text) => text !== null && text !== '').join('\n\n'),
      updatedAt: at,
    });
    // A vaulted third-party method is the one the answer nests: it is read.
    const known = vaulted === null ? afterKeep : undefined;
    return { transaction, status: statusFor(state), ...(known === undefined ? {} : { paymentMethod: known }) };
  }, { environment, request: apiRequest });
}
