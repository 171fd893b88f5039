import { AppError } from '../../domain/errors.js';
import type { AdapterPaymentMethod } from '../../gateways/kit/index.js';
import type { GatewayService } from '../gateway.service.js';
import type { AttemptResult, GatewayTransactionService, TransactionResult } from '../transactions/gateway-transaction.service.js';
import type { FailoverNote } from '../../domain/transaction-details.js';
import type { AttemptChain, ChainRequest } from './attempt-chain.js';
import { checkedBackups } from './backup-gateways.js';
import { decideRetry } from './retry-decision.js';

/** The refusals of a gateway that send nothing: the chain passes over that gateway to the next. */
const PASSED_OVER = new Set(['errors.circuit_breaker_open', 'errors.gateway_busy']);

function passedOver(error: unknown): error is AppError {
  return error instanceof AppError && error.entries.some((entry) => PASSED_OVER.has(entry.key));
}

/**
 * Spreedly's `retry` ("Recover", docs/routing-retry.md). Tries the chain's gateways in order through the
 * gateway transaction service; each attempt is its own transaction naming the first. A gateway
 * whose breaker is open (or that is busy) is passed over without a call; an attempt moves on to the
 * next gateway only as `decideRetry` allows. The answer is the attempt that settled the chain.
 *
 * The card is opened once: the first attempt consumes the stored CVV as a plain transaction does,
 * and the later ones send the card it opened, held here in memory until the chain ends.
 */
export class RetryingTransactions implements AttemptChain {
  constructor(
    private readonly gateways: GatewayService,
    private readonly transactions: GatewayTransactionService,
  ) {}

  async run(request: ChainRequest): Promise<TransactionResult> {
    const { environment, operation, input } = request;
    const [primaryToken, ...backupTokens] = request.gatewayTokens;
    if (primaryToken === undefined) throw new Error('a chain needs at least one gateway');
    if (request.retry === null || backupTokens.length === 0) return this.transactions.direct(environment, primaryToken, operation, input);
    const policy = request.retry;

    // Every check before anything is persisted: the payment method token, the primary, the backups.
    const named = await this.transactions.checkPaymentMethodToken(environment, input);
    const primary = await this.gateways.show(environment, primaryToken);
    const backups = await checkedBackups(this.gateways, environment, primary, backupTokens, operation);
    const planned = await this.transactions.planDirect(environment, primary, operation, input, named);
    if ('refused' in planned) return planned.refused;

    const chain = [primary, ...backups];
    let firstAttemptToken: string | null = null;
    let heldCard: AdapterPaymentMethod | null = null;
    let last: AttemptResult | null = null;
    let failover: FailoverNote | null = null;
    let firstRefusal: AppError | null = null;
    const skipped: FailoverNote['skipped'] = [];
    for (const [index, gateway] of chain.entries()) {
      const isLast = index === chain.length - 1;
      let attempt: AttemptResult;
      try {
        const note = noteFor(failover, skipped);
        attempt = await this.transactions.attemptDirect(planned.plan, gateway, { chained: true, firstAttemptToken, heldCard, keepCard: !isLast, failover: note });
      } catch (error) {
        if (!passedOver(error)) throw error;
        firstRefusal ??= error;
        skipped.push({ gateway_token: gateway.row.token, reason: error.message });
        continue;
      }
      skipped.length = 0;
      firstAttemptToken ??= attempt.result.transaction.token;
      heldCard = attempt.card ?? heldCard;
      last = attempt;
      const decision = decideRetry(attempt, policy);
      if (!decision.moveOn) return attempt.result;
      failover = { from_transaction_token: attempt.result.transaction.token, from_gateway_token: gateway.row.token, reason: decision.reason, skipped: [] };
    }
    if (last !== null) return last.result;
    // Every gateway was passed over: nothing was persisted, the primary's refusal is the answer.
    throw firstRefusal as AppError;
  }
}

/** Why the chain came to this attempt: the last attempt's decision and the gateways passed over since; null for the first. */
function noteFor(failover: FailoverNote | null, skipped: FailoverNote['skipped']): FailoverNote | null {
  const firstSkipped = skipped[0];
  if (failover !== null) return { ...failover, skipped: [...skipped] };
  if (firstSkipped === undefined) return null;
  return { from_transaction_token: null, from_gateway_token: firstSkipped.gateway_token, reason: `passed over without a call: ${firstSkipped.reason}`, skipped: [...skipped] };
}
