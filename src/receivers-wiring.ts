import fs from 'node:fs';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import type { Clock } from './domain/clock.js';
import { AppError } from './domain/errors.js';
import { encodeJson } from './http/format/json-codec.js';
import { receiverTransactionView } from './http/views/receiver-transaction.view.js';
import { EgressGuard } from './receivers/egress.js';
import { HttpDeliveryClient } from './receivers/http-delivery.js';
import { loadReceiverCatalog, ReceiverTypes } from './receivers/receiver-types.js';
import type { CertificateService } from './services/certificate.service.js';
import type { PaymentMethodSealer } from './services/payment-method-sealer.js';
import { ReceiverService } from './services/receiver.service.js';
import { ReceiverDeliveryService } from './services/receivers/receiver-delivery.service.js';
import { ReceiverExportService } from './services/receivers/receiver-export.service.js';
import type { StoreAccess } from './store/store-access.js';
import type { Keyring } from './vault/keyring.js';

/** The receivers part of the core: types, services and the outbound clients they share. */
export interface ReceiversCore {
  receivers: ReceiverService;
  deliveries: ReceiverDeliveryService;
  exports: ReceiverExportService;
  /** The guard every user-supplied destination goes through (COFFER_EGRESS_ALLOW). */
  egress: EgressGuard;
  /** The outbound HTTP client of deliveries (egress guard, timeouts); callbacks use it too. */
  deliveryClient: HttpDeliveryClient;
  /** Where failures of background exports are logged, once the server's logger exists. */
  attachLogger(logger: Logger): void;
}

/** Builds receivers over the store, the vault and the certificates service. */
export function buildReceivers(
  config: Config,
  deps: { access: StoreAccess; keyring: Keyring; clock: Clock; certificates: CertificateService; sealer: PaymentMethodSealer },
): ReceiversCore {
  let logger: Logger | null = null;
  const { access, keyring, clock, certificates, sealer } = deps;
  const types = new ReceiverTypes(loadReceiverCatalog(config.receiverCatalogPath));
  const egress = new EgressGuard(config.egressAllow);
  const extraCaPem = config.outboundCaPath === null ? undefined : fs.readFileSync(config.outboundCaPath, 'utf8');
  const client = new HttpDeliveryClient(egress, extraCaPem === undefined ? {} : { extraCaPem });
  const certificateExists = async (environment: Parameters<CertificateService['show']>[0], token: string) => {
    try {
      await certificates.show(environment, token);
      return true;
    } catch (error) {
      if (error instanceof AppError && error.status === 404) return false;
      throw error;
    }
  };
  const receivers = new ReceiverService(access, keyring, clock, types, certificateExists);
  const timeoutMs = config.receiverTimeoutMs;
  const clientCertificate = async (environment: Parameters<CertificateService['show']>[0], token: string) => {
    const material = await certificates.clientCertificate(environment, token);
    return { cert: material.cert, key: material.key };
  };
  return {
    receivers,
    egress,
    deliveryClient: client,
    deliveries: new ReceiverDeliveryService(access, receivers, sealer, client, { timeoutMs, clientCertificate }, clock),
    exports: new ReceiverExportService(
      access,
      receivers,
      sealer,
      egress,
      client,
      { timeoutMs, callbackBody: (transaction) => encodeJson('transaction', receiverTransactionView(transaction, null)) },
      clock,
      // An export runs after its 202; its failure is recorded on the transaction, so only bugs land here.
      (error) => logger?.error({ err: { name: (error as Error).name } }, 'export job failed'),
    ),
    attachLogger: (attached) => {
      logger = attached;
    },
  };
}
