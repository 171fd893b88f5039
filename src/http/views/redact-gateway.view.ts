import type { RedactedGateway } from '../../services/gateway.service.js';
import type { WireObject } from '../format/wire.js';
import { gatewayView } from './gateway.view.js';
import { leanTransactionHead } from './lean-transaction.js';

/** The lean RedactGateway transaction wrapping the redacted gateway. */
export function redactGatewayView({ transaction, gateway }: RedactedGateway): WireObject {
  return { ...leanTransactionHead(transaction), gateway: gatewayView(gateway) };
}
