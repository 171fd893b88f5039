import type { RequestMeta } from '../../../domain/request.js';
import type { Environment } from '../../../domain/environment.js';
import type { Transaction } from '../../../domain/transaction.js';
import type { GatewayRequest } from '../../../gateways/kit/index.js';
import type { GatewayRecord } from '../../gateway.service.js';
import { callDeadline } from '../abandoned-calls.js';
import type { CallOutcome } from '../gateway-caller.js';
import type { PipelineDeps, PipelineRepos, Refusal, TransactionEffects, TransactionResult } from './pipeline-types.js';
import { authorizeRequest, callGateway, persistOutcome } from './steps.js';

/** A refusal before the call: recorded as a `failed` transaction, nothing sent. */
export interface Refused {
  refusal: Refusal;
}

function isRefused(value: object): value is Refused {
  return 'refusal' in value;
}

/**
 * One gateway transaction (a direct attempt, a capture/void/credit, a 3-D Secure completion), as
 * the parts that differ between them. The pipeline runs them in one order (`runGatewayTransaction`).
 */
export interface GatewayTransactionPlan<Prepared extends object, Reserved extends { processing: Transaction }> {
  environment: Environment;
  /** The API request the transaction serves: its events carry its id (docs/events.md). */
  apiRequest: RequestMeta;
  gateway: GatewayRecord;
  /** With the permit held, before anything is written: what the call needs in memory (the opened card). */
  prepare(): Promise<Prepared | Refused>;
  /**
   * In the unit of work that commits `processing` (deadline included): reserve what the call
   * needs, then persist `processing`. A refusal commits nothing; an AppError rolls it back.
   */
  reserve(repos: PipelineRepos, prepared: Prepared, deadline: string): Promise<Reserved | Refused>;
  /** What is sent, once `processing` is committed. */
  request(prepared: Prepared, reserved: Reserved): GatewayRequest;
  /** What the outcome changes besides the transaction. */
  effects(prepared: Prepared, reserved: Reserved): TransactionEffects;
  /** Records a refusal (a failed transaction with its events). */
  refuse(refusal: Refusal): Promise<TransactionResult>;
}

/** What a run came to: the answer, the call's outcome (null: refused before any call) and what was prepared (null then too). */
export interface PipelineRun<Prepared> {
  result: TransactionResult;
  outcome: CallOutcome | null;
  prepared: Prepared | null;
}

/**
 * Persist, call, persist, in this order and no other: authorize the request (the breaker or the
 * in-flight cap may refuse it: AppError 503, nothing persisted); prepare; reserve and persist
 * `processing` in one unit of work; call the gateway; persist the outcome. The permit is released
 * on every path, whatever happened.
 */
export async function runGatewayTransaction<Prepared extends object, Reserved extends { processing: Transaction }>(
  deps: PipelineDeps,
  plan: GatewayTransactionPlan<Prepared, Reserved>,
): Promise<PipelineRun<Prepared>> {
  const permit = await authorizeRequest(deps, plan.gateway);
  try {
    const prepared = await plan.prepare();
    if (isRefused(prepared)) return { result: await plan.refuse(prepared.refusal), outcome: null, prepared: null };
    const ready: Prepared = prepared;
    const deadline = callDeadline(deps.clock.now(), deps.caller.timeoutMs(plan.gateway));
    const reserved = await deps.unitOfWork((repos) => plan.reserve(repos, ready, deadline), { environment: plan.environment, request: plan.apiRequest });
    if (isRefused(reserved)) return { result: await plan.refuse(reserved.refusal), outcome: null, prepared: null };
    const effects = plan.effects(ready, reserved);
    const { outcome, transcript, opened } = await callGateway(deps, permit, plan.gateway, plan.request(ready, reserved), effects.paymentMethod);
    const result = await persistOutcome(deps, plan.environment, reserved.processing, outcome, transcript, effects, plan.apiRequest, opened);
    return { result, outcome, prepared: ready };
  } finally {
    permit.release();
  }
}
