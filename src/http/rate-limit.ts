import net from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../domain/clock.js';
import { AppError } from '../domain/errors.js';
import { TOKENIZATION_LIMITS, type RateLimitName, type RateLimitRules } from '../limits/rate-limit-policy.js';
import type { RateLimitCheck, RateLimitOutcome, RateLimitVerdict, RateLimiter } from '../limits/rate-limiter.js';
import { firstSix, issuerIdentificationNumber, lastFour, normalizePan } from '../vault/card-rules.js';
import type { DecodedBody } from './format/json-codec.js';
import { isPublicTokenization } from './auth.js';

/** What the rate-limit hook needs; built by the composition root. */
export interface RateLimiting {
  limiter: RateLimiter;
  /** The effective API.md §7 rules (null: lifted). */
  rules: RateLimitRules;
  clock: Clock;
  /** Proxies whose X-Forwarded-For is believed (COFFER_TRUST_PROXY); empty: the socket's address. */
  trustProxy: readonly string[];
  /**
   * Keyed hash of card-derived text (the BIN + last four), per environment and the same on every
   * node, so neither Redis keys nor logs ever hold card digits.
   */
  hashCardKey(environmentKey: string, material: string): Promise<string>;
  /** Told of each spent budget that refused a request (the metrics); absent when nobody counts. */
  onRefused?: (limit: RateLimitName) => void;
}

/** A budget with the name of the limit it belongs to. */
type NamedCheck = RateLimitCheck & { name: RateLimitName };

/** The limits keyed by a card's digits, and the digits each takes. */
const CARD_KEYED: Partial<Record<RateLimitName, (digits: string) => string>> = {
  payment_methods_bin6_last4: (digits) => `bin6+last4:${firstSix(digits)}${lastFour(digits)}`,
  payment_methods_bin8_last4: (digits) => `bin8+last4:${issuerIdentificationNumber(digits)}${lastFour(digits)}`,
};

/** The budgets of a card entering the vault (API.md §7), whichever endpoint it comes through. */
const TOKENIZATION: ReadonlySet<RateLimitName> = new Set(TOKENIZATION_LIMITS);

/** The limits counted per client IP (within the environment when the caller is authenticated). */
const PER_IP: ReadonlySet<RateLimitName> = new Set(['payment_methods_client_ip']);

/** The shortest card number any brand issues; shorter digits cannot key a BIN limit. */
const MIN_PAN_DIGITS = 12;

/**
 * The client address a budget is keyed by. IPv4-mapped IPv6 is the IPv4 address; other IPv6
 * addresses count by their /64, the block one subscriber gets (keying by the full address would
 * give a single client 2^64 budgets).
 */
export function clientKey(address: string): string {
  const bare = address.split('%')[0] ?? address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped !== null) return mapped[1] as string;
  if (net.isIPv6(bare)) return `${expandIpv6(bare).slice(0, 4).join(':')}::/64`;
  return bare;
}

/** The eight hextets of an IPv6 address, lower case, without leading zeros. */
function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.toLowerCase().split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  let left = parse(head);
  let right = tail === undefined ? [] : parse(tail);
  // An embedded IPv4 tail (::a.b.c.d) is two hextets.
  const toHextets = (groups: string[]) =>
    groups.flatMap((group) => {
      if (!group.includes('.')) return [group];
      const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  left = toHextets(left);
  right = toHextets(right);
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array.from({ length: missing }, () => '0'), ...right].map((group) => Number.parseInt(group, 16).toString(16));
}

/**
 * The payment method a request puts into the vault, or null when it vaults none: the body of
 * `POST payment_methods`, or the inline `credit_card` / `bank_account` of a gateway transaction
 * sent without a `payment_method_token` (API.md §7: every way a card enters the vault counts).
 */
function vaultedPaymentMethod(request: FastifyRequest): Record<string, unknown> | null {
  const body = request.body as DecodedBody | undefined;
  // POST payment_methods counts whatever its body (a refused one too, as before): only a
  // transaction body can say that nothing enters the vault.
  if (body === undefined || body === null || body.root !== 'transaction') return body?.root === 'payment_method' ? body.fields : {};
  const token = body.fields.payment_method_token;
  if (token !== undefined && token !== null && token !== '') return null;
  const inline = [body.fields.credit_card, body.fields.bank_account].some((value) => value !== null && typeof value === 'object' && !Array.isArray(value));
  return inline ? body.fields : null;
}

/** The card number a request vaults, as digits, or null when there is none. */
function cardDigits(fields: Record<string, unknown> | null): string | null {
  const card = fields?.credit_card;
  if (card === null || typeof card !== 'object' || Array.isArray(card)) return null;
  const number = (card as Record<string, unknown>).number;
  if (typeof number !== 'string' && typeof number !== 'number') return null;
  const digits = normalizePan(String(number));
  return /^\d+$/.test(digits) && digits.length >= MIN_PAN_DIGITS ? digits : null;
}

/**
 * The budgets a request counts against. Keys start with their scope in braces (a Redis Cluster
 * hash tag, so every key of one request lives in one slot): the environment, or the client
 * address for the public endpoints. A limit whose key material is absent (no card number) and a
 * lifted limit are skipped.
 */
async function budgetsOf(request: FastifyRequest, names: readonly RateLimitName[], limits: RateLimiting): Promise<NamedCheck[]> {
  const environmentKey = request.auth?.environment.key ?? request.tokenizingEnvironment?.key ?? null;
  // A socket already gone has no address; such a request still counts, under one shared key.
  const client = clientKey(request.ip ?? 'unknown');
  const scope = environmentKey === null ? `{ip:${client}}` : `{env:${environmentKey}}`;
  const checks: NamedCheck[] = [];
  let vaulted: Record<string, unknown> | null | undefined;
  let digits: string | null | undefined;
  for (const name of names) {
    const rule = limits.rules[name];
    if (rule === null) continue;
    let key = `${scope}:${name}`;
    if (TOKENIZATION.has(name)) {
      // A transaction that vaults nothing (a payment_method_token) spends no tokenization budget.
      if (vaulted === undefined) vaulted = vaultedPaymentMethod(request);
      if (vaulted === null) continue;
    }
    const cardKeyed = CARD_KEYED[name];
    if (cardKeyed !== undefined) {
      if (digits === undefined) digits = cardDigits(vaulted ?? null);
      if (digits === null || environmentKey === null) continue;
      key += `:card:${await limits.hashCardKey(environmentKey, `rate-limit:${cardKeyed(digits)}`)}`;
    } else if (PER_IP.has(name) && environmentKey !== null) {
      key += `:ip:${client}`;
    }
    checks.push({ key, limit: rule.limit, windowMs: rule.windowSeconds * 1000, name });
  }
  return checks;
}

/**
 * The budget the headers describe when several apply: on a refusal, the spent budget that stays
 * spent longest (its wait is the Retry-After); otherwise the one with the least room left.
 */
export function headlineVerdict(outcome: RateLimitOutcome): RateLimitVerdict | null {
  const candidates = outcome.allowed ? outcome.verdicts : outcome.verdicts.filter((verdict) => verdict.exhausted);
  let best: RateLimitVerdict | null = null;
  for (const verdict of candidates) {
    if (best === null) best = verdict;
    else if (outcome.allowed ? verdict.remaining < best.remaining || (verdict.remaining === best.remaining && verdict.resetMs > best.resetMs) : verdict.resetMs > best.resetMs) {
      best = verdict;
    }
  }
  return best;
}

/** Whole seconds, rounded up: a client that waits that long is never early. */
function seconds(ms: number): number {
  return Math.ceil(ms / 1000);
}

/** API.md §7: 429 `errors.rate_limited` with Retry-After. */
export function rateLimitedError(retryAfterSeconds: number): AppError {
  const unit = retryAfterSeconds === 1 ? 'second' : 'seconds';
  return new AppError(
    { key: 'errors.rate_limited', message: `Too many requests. Retry after ${retryAfterSeconds} ${unit}.` },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

/**
 * Counts a request against `checks`; on a refusal throws 429 with Retry-After. Sets the
 * RateLimit-Limit/-Remaining/-Reset headers (IETF draft fields, seconds) of the headline budget,
 * always or (`headersOnRefusal`) only when refused.
 */
async function enforce(checks: NamedCheck[], reply: FastifyReply, limits: RateLimiting, headersOnRefusal = false): Promise<void> {
  if (checks.length === 0) return;
  const outcome = await limits.limiter.consume(checks, limits.clock.now().getTime());
  const shown = headlineVerdict(outcome);
  if (shown === null || (headersOnRefusal && outcome.allowed)) return;
  reply.header('RateLimit-Limit', String(shown.limit));
  reply.header('RateLimit-Remaining', String(shown.remaining));
  reply.header('RateLimit-Reset', String(seconds(shown.resetMs)));
  if (!outcome.allowed) {
    if (limits.onRefused !== undefined) reportRefusals(checks, outcome, limits.onRefused);
    throw rateLimitedError(Math.max(1, seconds(shown.resetMs)));
  }
}

/**
 * The budget a public tokenization spends before its body is read: per client address, in every
 * environment together (the transparent redirect's environment is in the body, and naming many
 * environments must not buy many budgets). Null when the operator lifted it.
 */
function publicBudget(request: FastifyRequest, limits: RateLimiting): NamedCheck | null {
  const name = 'public_tokenization_client_ip';
  const rule = limits.rules[name];
  if (rule === null) return null;
  const client = clientKey(request.ip ?? 'unknown');
  return { key: `{ip:${client}}:${name}`, limit: rule.limit, windowMs: rule.windowSeconds * 1000, name };
}

/**
 * The rate limits. An onRequest hook (after authentication) spends a public tokenization's
 * budget before anything of its body is read: a stranger looping bodies at the card form is
 * refused for the price of reading headers. The API.md §7 budgets of `config.rateLimits` are a
 * preHandler: they run after authentication (budgets are per environment) and body decoding (the
 * tokenization limits key by the card, and a transaction naming a vaulted card spends nothing),
 * and it must be registered before the idempotency hook: a 429 never claims an Idempotency-Key.
 * Every limited response carries RateLimit-Limit/-Remaining/-Reset.
 */
export function registerRateLimits(app: FastifyInstance, limits: RateLimiting): void {
  // Callback hooks: a request with no budget to spend passes without a promise (docs/benchmarks.md).
  app.addHook('onRequest', (request, reply, done) => {
    const budget = isPublicTokenization(request) ? publicBudget(request, limits) : null;
    if (budget === null) return done();
    // Its headers only on a refusal: an answer shows the budgets of API.md §7.
    enforce([budget], reply, limits, true).then(() => done(), done);
  });
  app.addHook('preHandler', (request, reply, done) => {
    const names = request.routeOptions.config.rateLimits;
    // A route none of whose limits is in force (an operator may lift each) has nothing to spend.
    if (names === undefined || names.every((name) => limits.rules[name] === null)) return done();
    budgetsOf(request, names, limits)
      .then((budgets) => enforce(budgets, reply, limits))
      .then(() => done(), done);
  });
}

/** Names each budget that was spent when the request was refused. */
function reportRefusals(checks: readonly NamedCheck[], outcome: RateLimitOutcome, onRefused: (limit: RateLimitName) => void): void {
  outcome.verdicts.forEach((verdict, i) => {
    const check = checks[i];
    if (verdict.exhausted && check !== undefined) onRefused(check.name);
  });
}
