import type { AdapterPaymentMethod } from '../../../gateways/kit/index.js';
import type { Clock } from '../../../domain/clock.js';
import type { PaymentMethod } from '../../../domain/payment-method.js';
import type { Transaction } from '../../../domain/transaction.js';
import type { Repositories, WorkScope } from '../../../store/repositories.js';
import type { GatewayService } from '../../gateway.service.js';
import type { PaymentMethodSealer } from '../../payment-method-sealer.js';
import type { CallOutcome, GatewayCaller } from '../gateway-caller.js';

/** A transaction as the API returns it, with the HTTP status it is returned with. */
export interface TransactionResult {
  transaction: Transaction;
  status: number;
  /**
   * The payment method as this transaction's own writes left it, when they are all it needs: the
   * answer nests it without reading it again. Absent: the answer reads it.
   */
  paymentMethod?: PaymentMethod;
}

/** One attempt's record, what the gateway call came to (null: refused before any call), and the card when kept. */
export interface AttemptResult {
  result: TransactionResult;
  outcome: CallOutcome | null;
  card: AdapterPaymentMethod | null;
}

/** Why Coffer refused a transaction without calling the gateway. */
export interface Refusal {
  messageKey: string;
  message: string;
}

/** What a finished call changes besides the transaction itself. */
export interface TransactionEffects {
  retainOnSuccess: boolean;
  paymentMethod: PaymentMethod | null;
  /** `paymentMethod` is the method as this transaction itself last wrote it (not a read from before). */
  paymentMethodIsCurrent: boolean;
  /** A cardholder-initiated stored-credential transaction: keep the network transaction id with the method. */
  keepNetworkTransactionId: boolean;
}

/** The repositories the pipeline writes through, bound to one unit of work. */
export type PipelineRepoKeys = 'transactions' | 'paymentMethods' | 'locks' | 'journal' | 'cardAccess';
export type PipelineRepos = Pick<Repositories, PipelineRepoKeys>;

/** Runs `work` in one database transaction: its writes and the events recorded with them land together or not at all. */
export type UnitOfWork = <T>(work: (repos: PipelineRepos) => Promise<T>, scope?: WorkScope) => Promise<T>;

/** Everything the gateway transaction pipeline depends on, and nothing more (tests give fakes). */
export interface PipelineDeps {
  unitOfWork: UnitOfWork;
  caller: Pick<GatewayCaller, 'permit' | 'timeoutMs' | 'call'>;
  credentials: Pick<GatewayService, 'openCredentials'>;
  sealer: Pick<PaymentMethodSealer, 'open'>;
  clock: Clock;
}
