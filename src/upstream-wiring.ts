import type { Clock } from './domain/clock.js';
import type { EgressGuard } from './receivers/egress.js';
import type { PaymentMethodAdopter } from './services/portability/adopt-payment-method.js';
import { BackfillService, realSleep, type Sleep } from './services/upstream/backfill.service.js';
import { PullThroughService } from './services/upstream/pull-through.service.js';
import { UpstreamClient } from './services/upstream/upstream-client.js';
import { UpstreamHttp } from './services/upstream/upstream-http.js';
import { UpstreamIntakeService } from './services/upstream/upstream-intake.service.js';
import { UpstreamSettingsService } from './services/upstream/upstream-settings.service.js';
import type { StoreAccess } from './store/store-access.js';
import type { Keyring } from './vault/keyring.js';

/** Live migration from a Spreedly-compatible upstream (docs/portability.md, "Live migration"). */
export interface UpstreamCore {
  settings: UpstreamSettingsService;
  intake: UpstreamIntakeService;
  pullThrough: PullThroughService;
  backfill: BackfillService;
  close(): Promise<void>;
}

/**
 * Builds the live-migration services. The upstream client goes through the same egress guard as
 * receivers (COFFER_EGRESS_ALLOW): the configured upstream is the only new destination, and the
 * intake is reached by the upstream, never called by Coffer.
 */
export function buildUpstreams(deps: {
  access: StoreAccess;
  keyring: Keyring;
  clock: Clock;
  egress: EgressGuard;
  adopter: PaymentMethodAdopter;
  timeoutMs: number;
  sleep?: Sleep;
  onError?: (error: unknown) => void;
}): UpstreamCore {
  const http = new UpstreamHttp(deps.egress, deps.timeoutMs);
  const client = new UpstreamClient(http);
  let pullThrough: PullThroughService | null = null;
  const settings = new UpstreamSettingsService(deps.access, deps.keyring, client, deps.clock, (key) => pullThrough?.forget(key));
  pullThrough = new PullThroughService(deps.access, settings, client, deps.adopter, deps.clock);
  const backfill = new BackfillService(deps.access, settings, client, pullThrough, deps.clock, deps.sleep ?? realSleep, deps.onError);
  return {
    settings,
    intake: new UpstreamIntakeService(deps.access, deps.adopter, deps.clock),
    pullThrough,
    backfill,
    close: async () => {
      await backfill.drain();
      await http.close();
    },
  };
}
