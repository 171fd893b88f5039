import { AppError, type ErrorEntry } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import type { CardInput, JsonValue, Metadata } from '../../domain/payment-method.js';
import type { IntakeGrant, UpstreamPaymentMethodFields } from '../../domain/upstream.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { AdoptedPaymentMethod, AdoptResult, PaymentMethodAdopter } from '../portability/adopt-payment-method.js';
import { intakeCredentialHash } from './intake-credential.js';

/** The body the upstream's template rendered (docs/portability.md, "Live migration"). */
export interface IntakeBody {
  payment_method_token?: unknown;
  number?: unknown;
  month?: unknown;
  year?: unknown;
  routing_number?: unknown;
  account_number?: unknown;
}

/** What the intake answers the upstream: never a card value. */
export interface IntakeOutcome {
  paymentMethodToken: string;
  outcome: 'imported' | 'skipped';
}

const REFUSED = (): AppError => new AppError({ key: 'errors.intake_refused', message: 'The intake credential is missing, unknown, expired or already used.' });

/**
 * The intake: where an upstream delivers a card this Coffer asked it for. It admits a delivery
 * only with a one-time credential issued for that token (spent on first use, even when the
 * delivery is then refused, so a credential is never good twice), and seals the card under the
 * same token with the upstream's non-sensitive fields, as tokenization seals (the adopter).
 */
export class UpstreamIntakeService {
  constructor(
    private readonly store: StoreAccess<'upstreams' | 'environments'>,
    private readonly adopter: PaymentMethodAdopter,
    private readonly clock: Clock,
  ) {}

  async receive(credential: string | undefined, body: IntakeBody): Promise<IntakeOutcome> {
    if (credential === undefined || credential === '' || credential.length > 200) throw REFUSED();
    const grant = await this.store.repos.upstreams.spend(intakeCredentialHash(credential), this.clock.now().toISOString());
    if (grant === undefined) throw REFUSED();
    const named = text(body.payment_method_token);
    // The credential is bound to one token: a body naming another is refused (the credential is spent).
    if (named !== null && named !== grant.paymentMethodToken) throw REFUSED();
    const environment = await this.store.repos.environments.find(grant.environmentKey);
    if (environment === undefined) throw REFUSED();
    const input = adoptedFrom(grant, body);
    const result = await this.adopter.adopt(environment, input, {
      allowExpired: true,
      allowBlankName: true,
      transactionDetails: { source: 'upstream', pulled: grant.purpose },
      // Not this delivery's id (the upstream made it): the id of the request that caused the pull.
      request: { id: grant.requestId },
    });
    return this.settle(grant, result);
  }

  private async settle(grant: IntakeGrant, result: AdoptResult): Promise<IntakeOutcome> {
    const token = grant.paymentMethodToken;
    const now = this.clock.now().toISOString();
    if (result.outcome === 'imported' || result.outcome === 'skipped') {
      if (result.outcome === 'imported') await this.store.repos.upstreams.increment(grant.environmentKey, grant.purpose === 'backfill' ? 'backfill_backfilled' : 'pulled_on_demand');
      await this.store.repos.upstreams.clearFailure(grant.environmentKey, token);
      return { paymentMethodToken: token, outcome: result.outcome };
    }
    const reason = result.outcome === 'conflict' ? 'the token holds a different payment method here' : `refused: ${describe(result.errors)}`;
    await this.store.repos.upstreams.recordFailure(grant.environmentKey, { paymentMethodToken: token, reason, at: now });
    if (result.outcome === 'conflict') throw new AppError({ key: 'errors.taken', attribute: 'payment_method_token', message: 'Payment method token has already been taken' });
    throw new AppError(result.errors);
  }
}

/** Field errors by attribute and message only: their values are never in them. */
function describe(errors: ErrorEntry[]): string {
  return errors.map((error) => (error.attribute === undefined ? error.message : `${error.attribute}: ${error.message}`)).join('; ').slice(0, 300);
}

function text(value: unknown): string | null {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function int(value: unknown): number | undefined {
  const written = text(value);
  return written !== null && /^\d{1,4}$/.test(written) ? Number(written) : undefined;
}

/** The method to adopt: sensitive values from the delivery, everything else from the upstream's view. */
function adoptedFrom(grant: IntakeGrant, body: IntakeBody): AdoptedPaymentMethod {
  const fields: UpstreamPaymentMethodFields = grant.fields;
  const common = {
    token: grant.paymentMethodToken,
    storageState: fields.storageState === 'cached' ? ('cached' as const) : ('retained' as const),
    createdAt: fields.createdAt,
    email: fields.email,
    metadata: fields.metadata as Metadata | null,
    data: (fields.data ?? null) as JsonValue | null,
  };
  const names = { ...(fields.firstName === null ? {} : { first_name: fields.firstName }), ...(fields.lastName === null ? {} : { last_name: fields.lastName }) };
  if (fields.paymentMethodType === 'bank_account') {
    const routing = text(body.routing_number);
    const account = text(body.account_number);
    return {
      ...common,
      type: 'bank_account',
      bankAccount: {
        ...names,
        ...(routing === null ? {} : { bank_routing_number: routing }),
        ...(account === null ? {} : { bank_account_number: account }),
        ...(fields.bankName === null ? {} : { bank_name: fields.bankName }),
        ...(fields.accountType === null ? {} : { bank_account_type: fields.accountType }),
        ...(fields.accountHolderType === null ? {} : { bank_account_holder_type: fields.accountHolderType }),
      },
    };
  }
  const number = text(body.number);
  const month = fields.month ?? int(body.month);
  const year = fields.year ?? int(body.year);
  const card: CardInput = { ...names, ...(number === null ? {} : { number }), ...(month === undefined ? {} : { month }), ...(year === undefined ? {} : { year }) };
  for (const [field, value] of Object.entries(fields.address)) if (value !== null) (card as Record<string, unknown>)[field] = value;
  if (fields.eligibleForCardUpdater !== null) card.eligible_for_card_updater = fields.eligibleForCardUpdater;
  return { ...common, type: 'credit_card', card };
}
