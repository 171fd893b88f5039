import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_DEFAULTS, type RateLimitName } from '../../src/limits/rate-limit-policy.js';
import type { RateLimitCheck, RateLimiter } from '../../src/limits/rate-limiter.js';

/**
 * The behaviour every RateLimiter shares (one node's memory, Redis), with explicit times: an
 * exact sliding window, atomic over the budgets of one request. `make` returns a fresh limiter;
 * keys are unique per test, so one Redis serves every run.
 */

export const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const MINUTE = 60_000;

let sequence = 0;
export const freshKey = (label = 'k') => `${label}${(sequence += 1)}_${randomBytes(4).toString('hex')}`;

const budget = (limit: number, windowMs: number, key = freshKey()): RateLimitCheck => ({ key, limit, windowMs });

/** Consumes `times` requests at `at`; the number allowed. */
export async function spend(limiter: RateLimiter, checks: RateLimitCheck[], times: number, at: number): Promise<number> {
  let allowed = 0;
  for (let i = 0; i < times; i += 1) if ((await limiter.consume(checks, at)).allowed) allowed += 1;
  return allowed;
}

export function rateLimiterContract(name: string, make: () => RateLimiter, setup: () => void = () => undefined): void {
  describe(`${name}: the limiter contract`, () => {
    setup();

    it.each(Object.entries(RATE_LIMIT_DEFAULTS) as Array<[RateLimitName, { limit: number; windowSeconds: number }]>)(
      '%s at its default edge: N allowed, N+1 refused until the window has passed',
      async (_limitName, rule) => {
        const limiter = make();
        const windowMs = rule.windowSeconds * 1000;
        const check = budget(rule.limit, windowMs);
        expect(await spend(limiter, [check], rule.limit, T0)).toBe(rule.limit);
        const refused = await limiter.consume([check], T0);
        expect(refused.allowed).toBe(false);
        expect(refused.verdicts[0]).toEqual({ limit: rule.limit, remaining: 0, resetMs: windowMs, exhausted: true });
        const lastMoment = await limiter.consume([check], T0 + windowMs - 1);
        expect(lastMoment.allowed).toBe(false);
        expect(lastMoment.verdicts[0]?.resetMs).toBe(1);
        const after = await limiter.consume([check], T0 + windowMs);
        expect(after.allowed).toBe(true);
        expect(after.verdicts[0]).toEqual({ limit: rule.limit, remaining: rule.limit - 1, resetMs: windowMs, exhausted: false });
      },
    );

    it('counts remaining down and reports when the oldest request leaves the window', async () => {
      const limiter = make();
      const check = budget(3, MINUTE);
      expect((await limiter.consume([check], T0)).verdicts[0]).toEqual({ limit: 3, remaining: 2, resetMs: MINUTE, exhausted: false });
      expect((await limiter.consume([check], T0 + 10_000)).verdicts[0]).toEqual({ limit: 3, remaining: 1, resetMs: 50_000, exhausted: false });
      expect((await limiter.consume([check], T0 + 20_000)).verdicts[0]).toEqual({ limit: 3, remaining: 0, resetMs: 40_000, exhausted: false });
      expect((await limiter.consume([check], T0 + 30_000)).verdicts[0]).toEqual({ limit: 3, remaining: 0, resetMs: 30_000, exhausted: true });
      // The first leaves at T0 + 60 s: one slot, and the next wait is for the second (T0 + 70 s).
      const next = await limiter.consume([check], T0 + MINUTE);
      expect(next).toEqual({ allowed: true, verdicts: [{ limit: 3, remaining: 0, resetMs: 10_000, exhausted: false }] });
    });

    it('is a sliding window: no 2× across a minute boundary, as a fixed window would allow', async () => {
      const limiter = make();
      const check = budget(30, MINUTE);
      // 30 in the last second of one minute, then the first second of the next: the second 30 are refused.
      expect(await spend(limiter, [check], 30, T0 + 59_000)).toBe(30);
      expect(await spend(limiter, [check], 30, T0 + 61_000)).toBe(0);
      // Half at T0, half at T0 + 30 s: at T0 + 60 s only the first half has left.
      const spread = budget(30, MINUTE);
      expect(await spend(limiter, [spread], 15, T0)).toBe(15);
      expect(await spend(limiter, [spread], 15, T0 + 30_000)).toBe(15);
      expect(await spend(limiter, [spread], 16, T0 + MINUTE)).toBe(15);
      expect(await spend(limiter, [spread], 1, T0 + 90_000 - 1)).toBe(0);
      expect(await spend(limiter, [spread], 16, T0 + 90_000)).toBe(15);
    });

    it('a request refused by one budget is counted in none of them', async () => {
      const limiter = make();
      const tight = budget(2, MINUTE);
      const loose = budget(10, MINUTE);
      expect(await spend(limiter, [tight, loose], 2, T0)).toBe(2);
      const refused = await limiter.consume([tight, loose], T0);
      expect(refused.allowed).toBe(false);
      expect(refused.verdicts).toEqual([
        { limit: 2, remaining: 0, resetMs: MINUTE, exhausted: true },
        { limit: 10, remaining: 8, resetMs: MINUTE, exhausted: false },
      ]);
      // The loose budget still has exactly 8: the 10 refused attempts took nothing from it.
      expect(await spend(limiter, [tight, loose], 10, T0 + 1)).toBe(0);
      expect(await spend(limiter, [loose], 9, T0 + 2)).toBe(8);
    });

    it('keeps keys apart and lets budgets with different windows each count', async () => {
      const limiter = make();
      const [a, b] = [budget(1, MINUTE), budget(1, MINUTE)];
      expect(await spend(limiter, [a], 2, T0)).toBe(1);
      expect(await spend(limiter, [b], 2, T0)).toBe(1);
      const day = budget(2, 86_400_000);
      const minute = budget(5, MINUTE);
      expect(await spend(limiter, [day, minute], 2, T0)).toBe(2);
      const refused = await limiter.consume([day, minute], T0 + 2 * MINUTE);
      expect(refused.allowed).toBe(false);
      expect(refused.verdicts[0]).toEqual({ limit: 2, remaining: 0, resetMs: 86_400_000 - 2 * MINUTE, exhausted: true });
      expect(refused.verdicts[1]).toEqual({ limit: 5, remaining: 5, resetMs: 0, exhausted: false });
    });

    it('with a lowered limit, waits until enough of the counted requests have left', async () => {
      const limiter = make();
      const key = freshKey();
      for (let i = 0; i < 5; i += 1) expect((await limiter.consume([budget(5, MINUTE, key)], T0 + i * 1_000)).allowed).toBe(true);
      // The operator lowers the limit to 2: four of the five must leave first (the fourth, counted at T0 + 3 s).
      const refused = await limiter.consume([budget(2, MINUTE, key)], T0 + 10_000);
      expect(refused.verdicts[0]).toEqual({ limit: 2, remaining: 0, resetMs: 53_000, exhausted: true });
      expect((await limiter.consume([budget(2, MINUTE, key)], T0 + 63_000 - 1)).allowed).toBe(false);
      expect((await limiter.consume([budget(2, MINUTE, key)], T0 + 63_000)).allowed).toBe(true);
    });
  });
}
