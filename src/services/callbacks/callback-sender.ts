import type { Clock } from '../../domain/clock.js';
import { headerSignature } from '../../domain/callback-signature.js';
import type { DeliveryRequest, DeliveryResult } from '../../receivers/http-delivery.js';
import type { Repositories } from '../../store/repositories.js';
import type { CallbackDelivery } from '../../domain/callback.js';
import type { ApiEvent } from '../../domain/event.js';

/** What a callback carries: the rendered, signed payload. */
export interface RenderedCallback {
  body: string;
  contentType: string;
}

/** Renders a delivery's payload (with its `signed` element) under the environment's secret. */
export type CallbackRenderer = (delivery: CallbackDelivery, event: ApiEvent, secret: string) => Promise<RenderedCallback | null>;

/** How one attempt went: delivered (a 2xx), failed at the destination, or not sent (nothing left to send). */
export interface AttemptOutcome {
  status: number | null;
  latencyMs: number;
  error: string | null;
  result: 'delivered' | 'failed' | 'not sent';
}

/**
 * One attempt of one delivery (docs/events.md, "Delivery"): renders the payload, signs it
 * (`signed` and X-Coffer-Signature) and POSTs it through the egress guard within the timeout.
 */
export class CallbackSender {
  constructor(
    private readonly repos: Pick<Repositories, 'events'>,
    private readonly send: (request: DeliveryRequest) => Promise<DeliveryResult>,
    private readonly secretFor: (environmentKey: string) => Promise<string>,
    private readonly render: CallbackRenderer,
    private readonly clock: Clock,
    private readonly timeoutMs: number,
  ) {}

  async attempt(delivery: CallbackDelivery): Promise<AttemptOutcome> {
    const event = await this.repos.events.find(delivery.environmentKey, delivery.eventToken);
    const secret = event === undefined ? null : await this.secretFor(delivery.environmentKey);
    const rendered = event === undefined || secret === null ? null : await this.render(delivery, event, secret);
    if (event === undefined || secret === null || rendered === null) return { status: null, latencyMs: 0, error: 'the event or its object is gone', result: 'not sent' };
    const started = this.clock.now();
    const signature = headerSignature(secret, rendered.body, Math.floor(started.getTime() / 1000));
    try {
      const result = await this.send({
        url: delivery.url,
        method: 'POST',
        headers: `Content-Type: ${rendered.contentType}\nX-Coffer-Signature: ${signature}\nX-Coffer-Event-Id: ${event.token}\nX-Coffer-Delivery-Id: ${delivery.token}`,
        body: rendered.body,
        timeoutMs: this.timeoutMs,
        sensitive: [],
      });
      const ok = result.status >= 200 && result.status < 300;
      return { status: result.status, latencyMs: result.latencyMs, error: ok ? null : `HTTP ${result.status}`, result: ok ? 'delivered' : 'failed' };
    } catch (error) {
      // The errors of the delivery client name the host and the category, never the path or the body.
      const latencyMs = this.clock.now().getTime() - started.getTime();
      return { status: null, latencyMs, error: error instanceof Error ? error.message : 'delivery failed', result: 'failed' };
    }
  }
}
