import type { Clock } from '../../domain/clock.js';
import { Secret } from '../../domain/secret.js';
import type { GatewayOperation, GatewayRequest, GatewayResponse, TranscriptEntry } from '../../gateways/kit/index.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { Repositories } from '../../store/repositories.js';
import { SUCCEEDED_MESSAGE, updateTransactionIfState } from '../transaction-records.js';
import type { GatewayService } from '../gateway.service.js';
import { changePaymentMethodIfState } from '../payment-method-changes.js';
import type { GatewayCaller } from './gateway-caller.js';
import { detailsOf, responseRecord } from './transaction-details.js';
import { TransactionState, type Transaction } from '../../domain/transaction.js';
import { EMPTY_SHIPPING_ADDRESS, type GatewayTransactionDetails } from '../../domain/transaction-details.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'gateways' | 'journal' | 'paymentMethods' | 'transactions';

/** The transaction types reconciliation settles, and the operation that made each. */
const RECONCILABLE: Readonly<Record<string, GatewayOperation>> = { Purchase: 'purchase', Authorization: 'authorize' };

const BATCH = 50;

export interface ReconcileSettings {
  /** How long after the unknown result the gateway is asked (COFFER_RECONCILE_WINDOW_MINUTES). */
  windowMs: number;
  /** "Not found" is believed only this long after the call (search indexes lag behind). */
  notFoundAfterMs: number;
  /** First delay between lookups; doubles each time, capped at `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RECONCILE = { windowMs: 24 * 3_600_000, notFoundAfterMs: 10 * 60_000, baseDelayMs: 30_000, maxDelayMs: 3_600_000 } as const;

/** The not-charged record of a payment the gateway never received. */
const NOT_CHARGED = 'The gateway never received this transaction; nothing was charged.';

/**
 * Settles `gateway_processing_result_unknown` by asking the gateway (docs/events.md; adapters with
 * `inquire`), from the sweep. Each lookup is claimed by moving `reconcile_next_at` conditionally,
 * so two nodes never ask about one transaction at once. A known answer records the final outcome
 * (TransactionReconciled, callbacks); "never arrived", once believable, records it as not charged.
 */
export class Reconciler {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly gateways: GatewayService,
    private readonly caller: GatewayCaller,
    private readonly clock: Clock,
    private readonly settings: ReconcileSettings,
  ) {
    this.repos = store.repos;
  }

  /** One round over the due transactions; how many were settled. */
  async reconcileDue(): Promise<number> {
    const now = this.clock.now();
    const due = await this.repos.transactions.dueForReconciliation(now.toISOString(), BATCH);
    let settled = 0;
    for (const row of due) if (await this.reconcileOne(row, now)) settled += 1;
    return settled;
  }

  private async reconcileOne(row: Transaction, now: Date): Promise<boolean> {
    const operation = RECONCILABLE[row.transactionType];
    const gateway = row.gatewayToken === null ? undefined : await this.repos.gateways.find(row.environmentKey, row.gatewayToken);
    const expired = now.getTime() - Date.parse(row.createdAt) > this.settings.windowMs;
    if (operation === undefined || gateway === undefined || gateway.state === 'redacted' || expired) {
      await this.repos.transactions.claimReconciliation(row, null);
      return false;
    }
    const next = new Date(now.getTime() + Math.min(this.settings.maxDelayMs, this.settings.baseDelayMs * 2 ** row.reconcileAttempts)).toISOString();
    if (!(await this.repos.transactions.claimReconciliation(row, next))) return false;

    const credentials = await this.gateways.openCredentials(gateway);
    const transcript: TranscriptEntry[] = [];
    const answer = await this.caller.inquire(gateway, this.request(row, operation, gateway.sandbox, credentials), transcript);
    if (answer.kind === 'unknown') return false;
    if (answer.kind === 'not_found' && now.getTime() - Date.parse(row.createdAt) < this.settings.notFoundAfterMs) return false;
    return this.record(row, answer.kind === 'found' ? answer.response : null, transcript, now.toISOString());
  }

  private request(row: Transaction, operation: GatewayOperation, testMode: boolean, credentials: Record<string, string>): GatewayRequest {
    const details = detailsOf(row);
    return {
      operation,
      transactionToken: row.token,
      testMode,
      credentials: Object.fromEntries(Object.entries(credentials).map(([name, value]) => [name, new Secret(value)])),
      amount: row.amount,
      currencyCode: row.currencyCode,
      // A lookup never needs the card: it is not opened.
      paymentMethod: null,
      reference: null,
      orderId: details?.order_id ?? null,
      description: details?.description ?? null,
      ip: details?.ip ?? null,
      email: details?.email ?? null,
      shippingAddress: EMPTY_SHIPPING_ADDRESS,
      gatewaySpecificFields: {},
      attempt3dsecure: false,
    };
  }

  /** Records the answer (the gateway's outcome, or not charged when `response` is null), keeping the 408 in the details. */
  private record(row: Transaction, response: GatewayResponse | null, transcript: TranscriptEntry[], at: string): Promise<boolean> {
    const details = detailsOf(row) as GatewayTransactionDetails;
    const succeeded = response !== null && response.success && !response.pending;
    const updated: GatewayTransactionDetails = {
      ...details,
      ...(response === null ? {} : { gateway_transaction_id: response.gatewayTransactionId, response: responseRecord(response, at), gateway_specific_response_fields: response.specificResponseFields }),
      reconciliation: {
        reconciled_at: at,
        outcome: response === null ? 'not_received' : succeeded ? 'succeeded' : 'failed',
        original: { state: row.state, message_key: row.messageKey, message: row.message, response: details.response },
      },
    };
    return this.store.unitOfWork(async (repos) => {
      const settled = await updateTransactionIfState(repos, row.environmentKey, row.token, TransactionState.resultUnknown, {
        state: succeeded ? TransactionState.succeeded : TransactionState.gatewayProcessingFailed,
        succeeded,
        messageKey: succeeded ? SUCCEEDED_MESSAGE.key : response === null ? 'messages.transaction_not_received' : null,
        message: succeeded ? SUCCEEDED_MESSAGE.text : response === null ? NOT_CHARGED : response.message,
        details: updated,
        transcript: [row.transcript, ...transcript.map((entry) => entry.text)].filter((text) => text !== null && text !== '').join('\n\n'),
        reconcileNextAt: null,
        reconciledAt: at,
        updatedAt: at,
      });
      if (settled === undefined) return false;
      // The card of a payment that went through: a single-use one is used, retain_on_success retains it.
      const method = row.paymentMethodToken === null ? undefined : await repos.paymentMethods.find(row.environmentKey, row.paymentMethodToken);
      if (succeeded && method !== undefined) {
        if (method.singleUse) await changePaymentMethodIfState(repos, row.environmentKey, method.token, ['cached', 'retained'], { storageState: 'used', updatedAt: at });
        else if (details.retain_on_success) await changePaymentMethodIfState(repos, row.environmentKey, method.token, ['cached'], { storageState: 'retained', cacheExpiresAt: null, updatedAt: at });
      }
      return true;
    });
  }
}
