import { NO_REQUEST, type RequestMeta } from '../../domain/request.js';
import { AppError } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { TransactionResult } from '../transactions/gateway-transaction.service.js';
import type { TransactionInput } from '../transactions/transaction-input.js';
import type { AttemptChain, ChainOperation, RetryPolicy, RoutingNote } from './attempt-chain.js';
import type { SuccessRates } from './success-rates.js';
import type { RandomInt } from './split-draw.js';
import type { Workflow } from '../../domain/workflow.js';
import { routeByWorkflow, type RoutingDecision, type TransactionFacts } from './workflow-router.js';
import { isNotFound, workflowNotFound, type WorkflowService } from './workflow.service.js';
import type { GatewayService } from '../gateway.service.js';
import { gatewaySupports } from '../transactions/transaction-rules.js';
import { factsOf } from './transaction-facts.js';
import type { Environment } from '../../domain/environment.js';
import { TransactionState, type RoutedBy, type Transaction } from '../../domain/transaction.js';

export type { RoutedBy } from '../../domain/transaction.js';

export interface RoutedResult extends TransactionResult {
  routedBy: RoutedBy;
}

/** A workflow's decision for a transaction body, evaluated without calling or storing anything. */
export interface Explanation {
  workflow: Workflow;
  facts: TransactionFacts;
  decision: RoutingDecision;
}

function retryOf(workflow: Workflow): RetryPolicy | null {
  if (workflow.retryMode === 'none') return null;
  return { mode: workflow.retryMode, customErrorCodes: [], customMessages: [], overrideDefaultErrorCodes: false };
}

export function routedByOf(decision: RoutingDecision): RoutedBy {
  return {
    workflow_key: decision.workflowKey,
    rule: decision.ruleMatched,
    rule_index: decision.ruleIndex,
    method: decision.method,
    gateway_token: decision.gatewayToken,
    gateway_tokens: decision.gatewayTokens,
    reason: decision.reason,
  };
}

/** Outcomes that say something about a gateway's health for success-rate routing. */
function outcomeOf(state: TransactionState): boolean | null {
  if (state === TransactionState.succeeded) return true;
  if (state === TransactionState.failed || state === TransactionState.gatewayProcessingFailed) return false;
  return null;
}

/**
 * `POST /v1/transactions/{purchase,authorize,verify}` (docs/routing.md). The workflow (named, or the
 * environment's default) chooses the gateways; the `AttemptChain` tries them under the workflow's
 * retry mode; the decision is recorded on the answering transaction with a `TransactionRouted` event.
 */
export class RoutedTransactionService {
  constructor(
    private readonly store: StoreAccess<'paymentMethods' | 'transactions' | 'journal'>,
    private readonly workflows: WorkflowService,
    private readonly gateways: GatewayService,
    private readonly chain: AttemptChain,
    private readonly successRates: SuccessRates,
    private readonly random: RandomInt,
    private readonly clock: Clock,
  ) {}

  /** The dry run: the decision the workflow makes for this body. Calls no gateway, writes nothing. */
  async explain(environment: Environment, workflowKey: string, input: TransactionInput): Promise<Explanation> {
    const workflow = await this.workflows.show(environment, workflowKey);
    const facts = await factsOf(this.store.repos.paymentMethods, environment, input);
    return { workflow, facts, decision: this.decide(workflow, facts) };
  }

  /**
   * The same dry run on facts given directly (the portal's sample transaction: a brand, a BIN of at
   * most eight digits, a type, metadata, amount and currency; no card number ever).
   */
  async explainFacts(environment: Environment, workflowKey: string, facts: TransactionFacts): Promise<Explanation> {
    const workflow = await this.workflows.show(environment, workflowKey);
    return { workflow, facts, decision: this.decide(workflow, facts) };
  }

  async run(environment: Environment, operation: ChainOperation, workflowKey: string | undefined, input: TransactionInput): Promise<RoutedResult> {
    const workflow = await this.workflowFor(environment, workflowKey);
    const facts = await factsOf(this.store.repos.paymentMethods, environment, input);
    const decision = await this.withUsableBackups(environment, operation, this.decide(workflow, facts));
    const routing: RoutingNote = { workflowKey: workflow.key, ruleMatched: decision.ruleMatched, reason: decision.reason };
    const result = await this.chain.run({ environment, operation, gatewayTokens: decision.gatewayTokens, input, retry: retryOf(workflow), routing });
    const routedBy = routedByOf(decision);
    await this.recordRouting(environment, result.transaction, routedBy, input.request ?? NO_REQUEST);
    this.learn(decision, facts, result);
    return { ...result, transaction: { ...result.transaction, routedBy }, routedBy };
  }

  /**
   * The decision on the answering transaction and every attempt of its chain, and one
   * `TransactionRouted` event naming the answer, written together (docs/routing.md, "Where the
   * decision is recorded"); no event when the answer is not found.
   */
  private recordRouting(environment: Environment, answer: Transaction, routedBy: RoutedBy, request: RequestMeta): Promise<void> {
    const at = this.clock.now().toISOString();
    return this.store.unitOfWork(async (repos) => {
      const changed = await repos.transactions.recordRouting(environment.key, { token: answer.token, firstAttemptToken: answer.firstAttemptToken }, routedBy);
      if (changed) await repos.journal.record({ environmentKey: environment.key, eventType: 'TransactionRouted', objectType: 'transaction', objectKey: answer.token, at });
    }, { environment, request });
  }

  /**
   * Drops the backups that cannot take this operation (redacted since the workflow was saved, or a
   * type without the ability): a workflow serves purchase, authorize and verify alike, and a backup
   * that cannot verify must not refuse every verify. The primary is kept: its refusal is the answer.
   */
  private async withUsableBackups(environment: Environment, operation: ChainOperation, decision: RoutingDecision): Promise<RoutingDecision> {
    const [primary, ...backups] = decision.gatewayTokens;
    const usable: string[] = [];
    const dropped: string[] = [];
    for (const token of backups) {
      const gateway = await this.gateways.show(environment, token).catch((error: unknown) => {
        if (isNotFound(error)) return null;
        throw error;
      });
      if (gateway !== null && gateway.state !== 'redacted' && gatewaySupports(gateway.definition, operation)) usable.push(token);
      else dropped.push(token);
    }
    if (dropped.length === 0) return decision;
    return { ...decision, gatewayTokens: [primary as string, ...usable], reason: `${decision.reason} (skipped ${dropped.join(', ')}: cannot ${operation})` };
  }

  private decide(workflow: Workflow, facts: TransactionFacts): RoutingDecision {
    return routeByWorkflow(workflow, facts, { random: this.random, successRates: this.successRates });
  }

  private async workflowFor(environment: Environment, key: string | undefined): Promise<Workflow> {
    if (key !== undefined) {
      try {
        return await this.workflows.show(environment, key);
      } catch (error) {
        // A key in a body that names nothing is a 422, as an unknown payment_method_token is.
        if (error instanceof AppError && error.status === 404) throw new AppError(workflowNotFound().entries, {}, 422);
        throw error;
      }
    }
    const fallback = await this.workflows.defaultWorkflow(environment);
    if (fallback === null) {
      throw new AppError({ key: 'errors.workflow_required', attribute: 'workflow_key', message: 'Name a workflow_key: this environment has no default workflow.' });
    }
    return fallback;
  }

  /**
   * Feeds success-rate routing: the answering gateway's outcome, and a failure for each gateway the
   * chain moved on from before it (they faulted or soft-declined).
   */
  private learn(decision: RoutingDecision, facts: TransactionFacts, result: TransactionResult): void {
    const answered = result.transaction.gatewayToken;
    const index = answered === null ? -1 : decision.gatewayTokens.indexOf(answered);
    for (const skipped of decision.gatewayTokens.slice(0, Math.max(index, 0))) this.successRates.record(skipped, facts.cardBrand, false);
    const outcome = outcomeOf(result.transaction.state);
    if (answered !== null && outcome !== null) this.successRates.record(answered, facts.cardBrand, outcome);
  }
}
