import type { Insertable } from 'kysely';
import type { Clock } from '../../domain/clock.js';
import { orderedToken, TOKEN_LENGTH } from '../../domain/tokens.js';
import { blankResponse, type PendingAction, type TranscriptEntry } from '../../gateways/kit/index.js';
import { addPaymentMethod, changePaymentMethodIfState } from '../payment-method-changes.js';
import type { StoreHandle } from '../../store/database.js';
import { inTransaction, repositories } from '../../store/repositories.js';
import type { TransactionsTable } from '../../store/schema.js';
import { SUCCEEDED_MESSAGE } from '../transaction-records.js';
import type { CallOutcome } from './gateway-caller.js';
import { detailsOf, responseRecord, type GatewayTransactionDetails } from './transaction-details.js';
import type { TransactionResult } from './gateway-transaction.service.js';
import type { Environment } from '../../domain/environment.js';
import type { PaymentMethod, PaymentMethodPatch } from '../../domain/payment-method.js';
import type { Transaction } from '../../domain/transaction.js';

/** Why Coffer refused a transaction without calling the gateway. */
export interface Refusal {
  messageKey: string;
  message: string;
}

const PENDING_MESSAGE = { key: 'messages.transaction_pending', text: 'Pending' } as const;

/** What a finished call changes besides the transaction itself. */
export interface TransactionEffects {
  retainOnSuccess: boolean;
  paymentMethod: PaymentMethod | null;
  /** `paymentMethod` is the row as this transaction itself last wrote it (not a read from before). */
  paymentMethodIsCurrent: boolean;
  /** A cardholder-initiated stored-credential transaction: keep the network transaction id with the method. */
  keepNetworkTransactionId: boolean;
}

/** HTTP status per final state: declines and refusals 422, unknown outcomes 408 (API.md §3). */
export function statusFor(state: string): number {
  if (state === 'succeeded' || state === 'pending') return 200;
  if (state === 'gateway_processing_result_unknown') return 408;
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

/** Records a transaction Coffer refused (state `failed`, nothing sent), in one write. */
export async function refusedTransaction(store: StoreHandle, row: Insertable<TransactionsTable>, refusal: Refusal): Promise<TransactionResult> {
  const failed = { ...row, state: 'failed', succeeded: 0, message_key: refusal.messageKey, message: refusal.message };
  const transaction = await repositories(store.db, store.dialect).transactions.insertReturning(failed);
  return { transaction, status: 422 };
}

/**
 * Commits what the gateway answered, together with its effects on the payment method: a closed
 * account closes it, `retain_on_success` retains it, a successful `store` vaults the gateway's
 * token as a new third-party payment method. `processing` is the row as committed before the
 * call (nothing else writes a transaction while its call runs), so it is not read again.
 */
export async function finishTransaction(
  store: StoreHandle,
  clock: Clock,
  environment: Environment,
  processing: Transaction,
  outcome: CallOutcome,
  transcript: TranscriptEntry[],
  effects: TransactionEffects,
): Promise<TransactionResult> {
  const at = clock.now().toISOString();
  const response =
    outcome.kind === 'answered'
      ? outcome.response
      : { ...blankResponse(false, outcome.message), errorCode: 'processing_error' as const, errorDetail: outcome.detail };
  const state =
    outcome.kind === 'unknown' ? 'gateway_processing_result_unknown' : response.pending ? 'pending' : response.success ? 'succeeded' : 'gateway_processing_failed';
  const message = state === 'succeeded' ? SUCCEEDED_MESSAGE : state === 'pending' ? PENDING_MESSAGE : { key: null, text: response.message };

  const row = processing;
  return inTransaction(store, async (repos) => {
    const details = detailsOf(row) as GatewayTransactionDetails;
    const updated: GatewayTransactionDetails = {
      ...details,
      gateway_transaction_id: response.gatewayTransactionId,
      gateway_latency_ms: outcome.latencyMs,
      gateway_specific_response_fields: response.specificResponseFields,
      response: responseRecord(response, at, { resultUnknown: outcome.kind === 'unknown', cancelled: row.transaction_type === 'Void' && response.success }),
      network_transaction_id: response.networkTransactionId,
      ...pendingActionDetails(response.pendingAction),
    };
    // The call's deadline mattered only while it could still be running (abandoned-calls.ts).
    delete updated.call_deadline;
    let paymentMethodToken = row.payment_method_token;
    const method = effects.paymentMethod;
    // The method as this transaction's writes leave it, while each of them is known to have applied.
    let known: PaymentMethod | undefined = method !== null && effects.paymentMethodIsCurrent ? method : undefined;
    const applied = async (patch: PaymentMethodPatch, write: Promise<boolean>) => {
      const changed = await write;
      known = changed && known !== undefined ? ({ ...known, ...patch } as PaymentMethod) : undefined;
    };
    if (method !== null && response.accountClosed) {
      const patch = { storageState: 'closed' as const, cacheExpiresAt: null, updatedAt: at };
      await applied(patch, changePaymentMethodIfState(repos, environment.key, method.token, ['cached', 'retained', 'used'], patch));
    }
    if (method !== null && state === 'succeeded' && effects.retainOnSuccess) {
      const patch = { storageState: 'retained' as const, cacheExpiresAt: null, updatedAt: at };
      await applied(patch, changePaymentMethodIfState(repos, environment.key, method.token, ['cached'], patch));
    }
    if (method !== null && state === 'succeeded' && effects.keepNetworkTransactionId && response.networkTransactionId !== null) {
      // Read again under this database transaction: an update since the call began is kept.
      const current = await repos.paymentMethods.find(environment.key, method.token);
      known = current;
      if (current !== undefined) {
        const kept = { ...current.details, network_transaction_id: response.networkTransactionId };
        const patch = { details: kept, updatedAt: at };
        await applied(patch, changePaymentMethodIfState(repos, environment.key, method.token, ['cached', 'retained'], patch));
      }
    }
    if (method !== null && row.transaction_type === 'Store' && state === 'succeeded' && response.thirdPartyToken !== null) {
      known = undefined;
      paymentMethodToken = orderedToken(TOKEN_LENGTH.item);
      await addPaymentMethod(repos, {
        token: paymentMethodToken,
        environmentKey: environment.key,
        paymentMethodType: 'third_party_token',
        storageState: 'retained',
        test: details.on_test_gateway,
        singleUse: false,
        email: method.email,
        data: null,
        metadata: null,
        callbackUrl: null,
        details: { third_party_token: response.thirdPartyToken, gateway_type: details.gateway_type },
        createdAt: at,
        updatedAt: at,
      });
      updated.third_party_token = response.thirdPartyToken;
      updated.basis_payment_method_token = method.token;
    }
    const transaction = await repos.transactions.finish(row, {
      state,
      succeeded: state === 'succeeded' ? 1 : 0,
      message_key: message.key,
      message: message.text,
      payment_method_token: paymentMethodToken,
      details: JSON.stringify(updated),
      // A completed transaction keeps the transcript of its first exchange too.
      transcript: [row.transcript, ...transcript.map((entry) => entry.text)].filter((text) => text !== null && text !== '').join('\n\n'),
      updated_at: at,
    });
    return { transaction, status: statusFor(state), ...(known === undefined ? {} : { paymentMethod: known }) };
  });
}
