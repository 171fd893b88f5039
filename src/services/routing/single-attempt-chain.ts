import type { GatewayTransactionService, TransactionResult } from '../transactions/gateway-transaction.service.js';
import type { AttemptChain, ChainRequest } from './attempt-chain.js';

/** Stand-in until the retrying chain (issue 18 part A) is merged: the first gateway only. */
export class SingleAttemptChain implements AttemptChain {
  constructor(private readonly transactions: GatewayTransactionService) {}

  run(request: ChainRequest): Promise<TransactionResult> {
    return this.transactions.direct(request.environment, request.gatewayTokens[0] ?? '', request.operation, request.input);
  }
}
