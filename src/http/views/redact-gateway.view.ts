import type { RedactedGateway } from '../../services/gateway.service.js';
import { WireMessage, type WireObject } from '../format/wire.js';
import { gatewayView } from './gateway.view.js';
import { storedDate } from './time.js';

/** The lean RedactGateway transaction: scalars first, then the wrapped gateway (the gem reads the first match). */
export function redactGatewayView({ transaction, gateway }: RedactedGateway): WireObject {
  return {
    token: transaction.token,
    created_at: storedDate(transaction.created_at),
    updated_at: storedDate(transaction.updated_at),
    succeeded: transaction.succeeded === 1,
    transaction_type: transaction.transaction_type,
    state: transaction.state,
    message: new WireMessage(transaction.message_key, transaction.message),
    gateway: gatewayView(gateway),
  };
}
