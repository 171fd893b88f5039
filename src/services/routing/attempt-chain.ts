import type { TransactionResult } from '../transactions/gateway-transaction.service.js';
import type { TransactionInput } from '../transactions/transaction-input.js';
import type { Environment } from '../../domain/environment.js';

/**
 * The seam between choosing gateways (workflows, or a request's own `retry`) and
 * trying them in turn. A chooser produces a `ChainRequest`; an `AttemptChain` runs it.
 */

/** The operations that may move on to a backup gateway. */
export type ChainOperation = 'purchase' | 'authorize' | 'verify';

/**
 * `outage_only`: move on only when the gateway faulted before the payment could have been taken.
 * `standard`: also on a soft decline (the documented list, adjusted by the custom errors).
 */
export type RetryMode = 'standard' | 'outage_only';

/** Spreedly's `retry{mode, custom_errors{error_codes, messages, override_default_error_codes}}`. */
export interface RetryPolicy {
  mode: RetryMode;
  customErrorCodes: string[];
  customMessages: string[];
  /** When true the custom codes replace the default soft-decline list instead of adding to it. */
  overrideDefaultErrorCodes: boolean;
}

/** Why the gateways were chosen, as recorded on the transaction and in its routing event. */
export interface RoutingNote {
  /** The workflow that routed the transaction; null for a request's own `retry`. */
  workflowKey: string | null;
  /** The rule that matched (its name or index), or null when the workflow's default applied. */
  ruleMatched: string | null;
  /** One sentence a merchant can read: "brand visa matched rule 2 → split 70/30, drew adyen". */
  reason: string;
}

export interface ChainRequest {
  environment: Environment;
  operation: ChainOperation;
  /** The gateways to try, in order: the first is the primary, the rest are backups. */
  gatewayTokens: string[];
  input: TransactionInput;
  /** Null: one attempt only, exactly as a plain gateway purchase. */
  retry: RetryPolicy | null;
  /** Set by a workflow; null for the gateway routes. */
  routing: RoutingNote | null;
}

/** Tries the gateways of a chain in turn; answers with the transaction that settled it. */
export interface AttemptChain {
  run(request: ChainRequest): Promise<TransactionResult>;
}
