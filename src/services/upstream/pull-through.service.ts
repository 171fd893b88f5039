import { AppError } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import type { Environment } from '../../domain/environment.js';
import { NO_REQUEST, type RequestMeta } from '../../domain/request.js';
import type { Upstream, UpstreamPaymentMethodFields } from '../../domain/upstream.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { PaymentMethodAdopter } from '../portability/adopt-payment-method.js';
import { INTAKE_BODY_TEMPLATE, INTAKE_HEADER, INTAKE_PATH, INTAKE_WINDOW_MS, intakeCredentialHash, newIntakeCredential } from './intake-credential.js';
import type { UpstreamClient } from './upstream-client.js';
import type { UpstreamEndpoint } from './upstream-http.js';
import { upstreamAppError, type UpstreamSettingsService } from './upstream-settings.service.js';

/** What a pull found: the method is here now, or the upstream does not hold it either. */
export type PullResult = 'here' | 'pulled' | 'absent';

/** Tokens a pull may ask the upstream about (anything else is not a token of any vault we speak to). */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;

/** How long this node trusts what it read of an environment's upstream (set or cleared on another node). */
const CONFIG_TTL_MS = 5_000;

/**
 * Pull-through (docs/portability.md, "Live migration"): a payment method token this environment
 * does not hold is asked of its upstream. The upstream's view gives the non-sensitive fields;
 * the card itself comes by the upstream delivering it, through one receiver kept there, to this
 * Coffer's intake with a one-time credential bound to the token. Concurrent requests for one
 * token on this node share one pull; on several nodes, the second intake finds the card there
 * (skipped) and both requests proceed.
 */
export class PullThroughService {
  private readonly inFlight = new Map<string, Promise<PullResult>>();
  private readonly configs = new Map<string, { upstream: Upstream | null; readAt: number }>();
  private lastPurge = 0;

  constructor(
    private readonly store: StoreAccess<'upstreams' | 'paymentMethods'>,
    private readonly settings: UpstreamSettingsService,
    private readonly client: UpstreamClient,
    private readonly adopter: PaymentMethodAdopter,
    private readonly clock: Clock,
  ) {}

  /** Forgets what this node read of the environment's upstream (it was just set or cleared). */
  forget(environmentKey: string): void {
    this.configs.delete(environmentKey);
  }

  /**
   * Makes sure the environment holds `token` if its upstream does: 'here' at once when it is held
   * (or the environment has no upstream: nothing to ask), 'pulled' after a pull, 'absent' when the
   * upstream does not know it either. An unreachable upstream is 502 (503 with Retry-After on its 429).
   * `request` is the request naming the token: the card's events carry its id.
   */
  async ensure(environment: Environment, token: string, request: RequestMeta = NO_REQUEST): Promise<PullResult> {
    const upstream = await this.upstreamOf(environment.key);
    if (upstream === null || !TOKEN_SHAPE.test(token)) return 'here';
    if ((await this.store.repos.paymentMethods.find(environment.key, token)) !== undefined) return 'here';
    const key = `${environment.key}\u0000${token}`;
    const running = this.inFlight.get(key);
    if (running !== undefined) return running;
    const pull = this.pull(environment, upstream, token, 'on_demand', null, request).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, pull);
    return pull;
  }

  /**
   * Pulls one token (on demand, or for the backfill with the fields its list gave). Throws the
   * upstream's unavailability as an AppError; a refusal by the intake is recorded as a failure and
   * answered as the token being absent, so the original request gets its usual 404/422.
   * `request` is the API request that caused the pull (for the backfill, the one that started it).
   */
  async pull(environment: Environment, upstream: Upstream, token: string, purpose: 'on_demand' | 'backfill', listed: UpstreamPaymentMethodFields | null, request: RequestMeta = NO_REQUEST): Promise<PullResult> {
    const endpoint = await this.settings.endpoint(upstream);
    try {
      const fields = listed ?? (await this.client.showPaymentMethod(endpoint, token));
      if (fields === null) return 'absent';
      if (fields.storageState === 'redacted') {
        await this.fail(environment.key, token, 'redacted upstream: there is no card to copy');
        return 'absent';
      }
      if (fields.paymentMethodType === 'third_party_token') return await this.adoptReference(environment, fields, purpose, request);
      if (fields.paymentMethodType !== 'credit_card' && fields.paymentMethodType !== 'bank_account') {
        await this.fail(environment.key, token, `payment method type ${fields.paymentMethodType.slice(0, 40)} is not copied`);
        return 'absent';
      }
      return await this.deliver(environment, upstream, endpoint, fields, purpose, request);
    } catch (error) {
      if (error instanceof AppError) throw error;
      const answer = upstreamAppError(error);
      await this.fail(environment.key, token, answer.message);
      throw answer;
    }
  }

  private async deliver(environment: Environment, upstream: Upstream, endpoint: UpstreamEndpoint, fields: UpstreamPaymentMethodFields, purpose: 'on_demand' | 'backfill', request: RequestMeta): Promise<PullResult> {
    const receiverToken = await this.receiverFor(environment, upstream, endpoint);
    await this.purgeSpentGrants();
    const credential = newIntakeCredential();
    const expiresAt = new Date(this.clock.now().getTime() + INTAKE_WINDOW_MS).toISOString();
    // The intake is a request of the upstream's: the grant carries this request's id over to it.
    await this.store.repos.upstreams.grant({ environmentKey: environment.key, credentialHash: intakeCredentialHash(credential), paymentMethodToken: fields.token, fields, purpose, expiresAt, requestId: request.id });
    const delivered = await this.client.deliver(endpoint, receiverToken, {
      paymentMethodToken: fields.token,
      url: `${upstream.publicUrl}${INTAKE_PATH}`,
      headers: `Content-Type: application/json\r\n${INTAKE_HEADER}: ${credential}`,
      body: INTAKE_BODY_TEMPLATE,
    });
    if (delivered === null) return 'absent';
    if ((await this.store.repos.paymentMethods.find(environment.key, fields.token)) !== undefined) return 'pulled';
    // The intake recorded its own refusal (conflict, invalid card); anything else is recorded here.
    if (delivered.intakeStatus === null || delivered.intakeStatus < 400 || delivered.intakeStatus >= 500) {
      const why = delivered.intakeStatus === null ? (delivered.message ?? 'the upstream could not reach the intake').slice(0, 200) : `the intake answered HTTP ${delivered.intakeStatus}`;
      await this.fail(environment.key, fields.token, `delivery failed: ${why}`);
    }
    return 'absent';
  }

  /** A third-party token holds nothing sensitive: its fields are copied without a delivery. */
  private async adoptReference(environment: Environment, fields: UpstreamPaymentMethodFields, purpose: 'on_demand' | 'backfill', request: RequestMeta): Promise<PullResult> {
    const result = await this.adopter.adopt(
      environment,
      {
        token: fields.token,
        type: 'third_party_token',
        thirdParty: { ...(fields.thirdPartyToken === null ? {} : { reference: fields.thirdPartyToken }), ...(fields.gatewayType === null ? {} : { gateway_type: fields.gatewayType }) },
        storageState: fields.storageState === 'cached' ? 'cached' : 'retained',
        createdAt: fields.createdAt,
        email: fields.email,
        metadata: fields.metadata as never,
        data: (fields.data ?? null) as never,
      },
      { transactionDetails: { source: 'upstream', pulled: purpose }, request },
    );
    if (result.outcome === 'imported') await this.store.repos.upstreams.increment(environment.key, purpose === 'backfill' ? 'backfill_backfilled' : 'pulled_on_demand');
    if (result.outcome === 'imported' || result.outcome === 'skipped') return 'pulled';
    await this.fail(environment.key, fields.token, result.outcome === 'conflict' ? 'the token holds a different payment method here' : 'refused: invalid third-party token');
    return 'absent';
  }

  /**
   * The receiver at the upstream that delivers to this Coffer: the one named or made before, or
   * a new one of the type the upstream offers for the public URL (docs/portability.md).
   */
  private async receiverFor(environment: Environment, upstream: Upstream, endpoint: UpstreamEndpoint): Promise<string> {
    if (upstream.receiverToken !== null) return upstream.receiverToken;
    const origin = new URL(upstream.publicUrl).origin;
    const options = await this.client.receiverOptions(endpoint);
    const named = options.find((option) => option.hostnames?.split(',').some((host) => host.trim().replace(/\/+$/, '') === origin) === true);
    const test = environment.production ? undefined : options.find((option) => option.receiverType === 'test');
    const open = options.find((option) => option.hostnames === null && option.receiverType !== 'test');
    const type = named ?? test ?? open;
    if (type === undefined) {
      throw new AppError({ key: 'errors.upstream_unavailable', message: 'The upstream offers no receiver type for the public URL; name an existing receiver as receiver_token.' });
    }
    const made = await this.client.createReceiver(endpoint, type.receiverType, origin);
    if (!(await this.store.repos.upstreams.setReceiverIfAbsent(environment.key, made))) {
      const kept = await this.store.repos.upstreams.find(environment.key);
      if (kept?.receiverToken != null) {
        this.forget(environment.key);
        return kept.receiverToken;
      }
    }
    this.forget(environment.key);
    return made;
  }

  /** Grants past their window admit nothing: forgotten at most once a minute, as pulls happen. */
  private async purgeSpentGrants(): Promise<void> {
    const now = this.clock.now().getTime();
    if (now - this.lastPurge < 60_000) return;
    this.lastPurge = now;
    await this.store.repos.upstreams.purgeGrants(new Date(now).toISOString());
  }

  private async fail(environmentKey: string, token: string, reason: string): Promise<void> {
    await this.store.repos.upstreams.recordFailure(environmentKey, { paymentMethodToken: token, reason, at: this.clock.now().toISOString() });
  }

  private async upstreamOf(environmentKey: string): Promise<Upstream | null> {
    const now = Date.now();
    const cached = this.configs.get(environmentKey);
    if (cached !== undefined && now - cached.readAt < CONFIG_TTL_MS) return cached.upstream;
    const upstream = (await this.store.repos.upstreams.find(environmentKey)) ?? null;
    this.configs.set(environmentKey, { upstream, readAt: now });
    return upstream;
  }
}
