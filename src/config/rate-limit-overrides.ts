import { RATE_LIMIT_DEFAULTS, isRateLimitName, type RateLimitRules } from '../limits/rate-limit-policy.js';
import { invalid, jsonObject } from './values.js';

type Rule = RateLimitRules[keyof RateLimitRules];

/** One override: the rule, or the problem with it (a string). */
function parseRule(name: string, value: unknown): Rule | string {
  if (value === null) return null;
  const rule = value as { limit?: unknown; window_seconds?: unknown };
  if (typeof value !== 'object' || Array.isArray(value) || !Number.isInteger(rule.limit) || (rule.limit as number) < 1) {
    return `${name} must be null or {"limit": <integer ≥ 1>, "window_seconds": <integer ≥ 1>}`;
  }
  const windowSeconds = rule.window_seconds ?? 60;
  if (!Number.isInteger(windowSeconds) || (windowSeconds as number) < 1 || (windowSeconds as number) > 7 * 86_400) {
    return `${name}.window_seconds must be an integer from 1 to 604800`;
  }
  return { limit: rule.limit as number, windowSeconds: windowSeconds as number };
}

/**
 * COFFER_RATE_LIMITS: a JSON object of overrides by limit name, each {"limit": n, "window_seconds": s}
 * or null to lift that limit; the name "*" applies to every limit not named itself (docs/deployment.md).
 */
export const rateLimitOverrides = jsonObject.transform((overrides, ctx): RateLimitRules => {
  const rules = { ...RATE_LIMIT_DEFAULTS } as RateLimitRules;
  if ('*' in overrides) {
    const all = parseRule('*', overrides['*']);
    if (typeof all === 'string') return invalid(ctx, all);
    for (const name of Object.keys(rules) as (keyof RateLimitRules)[]) rules[name] = all;
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (name === '*') continue;
    if (!isRateLimitName(name)) return invalid(ctx, `unknown limit ${name}; known: ${Object.keys(RATE_LIMIT_DEFAULTS).join(', ')}`);
    const rule = parseRule(name, value);
    if (typeof rule === 'string') return invalid(ctx, rule);
    rules[name] = rule;
  }
  return rules;
});
