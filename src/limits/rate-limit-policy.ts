/**
 * The rate limits of API.md §7 and their defaults. Every limit is counted per environment;
 * `per` names the extra part of the key (the client IP, or a card's BIN + last four).
 * Operators override any of them with COFFER_RATE_LIMITS (see docs/deployment.md).
 */
export interface RateLimitRule {
  /** Requests allowed in one window. */
  limit: number;
  /** The window, in seconds. */
  windowSeconds: number;
}

export const RATE_LIMIT_DEFAULTS = {
  transactions_list: { limit: 30, windowSeconds: 60 },
  events_list: { limit: 30, windowSeconds: 60 },
  payment_methods_bin6_last4: { limit: 1000, windowSeconds: 86_400 },
  payment_methods_bin8_last4: { limit: 250, windowSeconds: 86_400 },
  payment_methods_client_ip: { limit: 30, windowSeconds: 60 },
  // Coffer's own: every public tokenization (the card form, the transparent redirect), counted
  // per client address before its body is read. Twice the per-IP budget above, which still
  // applies after the body, so a shopper correcting a typo never meets this one.
  public_tokenization_client_ip: { limit: 60, windowSeconds: 60 },
  receivers_options: { limit: 30, windowSeconds: 60 },
  receivers_list: { limit: 30, windowSeconds: 60 },
  receivers_create: { limit: 30, windowSeconds: 60 },
  receivers_show: { limit: 30, windowSeconds: 60 },
  receivers_update: { limit: 30, windowSeconds: 60 },
  receivers_redact: { limit: 30, windowSeconds: 60 },
  receivers_deliver: { limit: 30, windowSeconds: 60 },
  receivers_export: { limit: 30, windowSeconds: 60 },
  certificates_list: { limit: 30, windowSeconds: 60 },
  certificates_create: { limit: 30, windowSeconds: 60 },
  certificates_generate: { limit: 30, windowSeconds: 60 },
  certificates_update: { limit: 30, windowSeconds: 60 },
  // Portal sign-in (every attempt counts, right or wrong): per account and client address (below
  // the lockout's 10 failures, so one source alone cannot lock an account out in one window), and
  // per client address (docs/portal.md "Lockout").
  portal_sign_in_account: { limit: 5, windowSeconds: 900 },
  portal_sign_in_ip: { limit: 50, windowSeconds: 900 },
} as const satisfies Record<string, RateLimitRule>;

export type RateLimitName = keyof typeof RATE_LIMIT_DEFAULTS;

/**
 * The budgets every way a card enters the vault counts against (API.md §7): `POST payment_methods`,
 * browser tokenization and the transparent redirect alike.
 */
export const TOKENIZATION_LIMITS = ['payment_methods_bin6_last4', 'payment_methods_bin8_last4', 'payment_methods_client_ip'] as const satisfies readonly RateLimitName[];

/** The effective rules: a rule per name, or null where the operator lifted the limit. */
export type RateLimitRules = Record<RateLimitName, RateLimitRule | null>;

export function isRateLimitName(name: string): name is RateLimitName {
  return Object.prototype.hasOwnProperty.call(RATE_LIMIT_DEFAULTS, name);
}
