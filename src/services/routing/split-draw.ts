import { randomInt } from 'node:crypto';
import type { SplitShare } from '../../domain/workflow.js';

/** A source of uniform integers in [0, max). Production draws from the CSPRNG; tests may pass their own. */
export type RandomInt = (max: number) => number;

export const cryptoRandomInt: RandomInt = (max) => randomInt(max);

/**
 * One share drawn in proportion to the weights: a uniform integer below the total weight falls in
 * exactly one share's interval. `randomInt` has no modulo bias, so 70/30 is 70/30.
 */
export function drawWeighted(shares: readonly SplitShare[], random: RandomInt): SplitShare {
  const total = shares.reduce((sum, share) => sum + share.weight, 0);
  let ticket = random(total);
  for (const share of shares) {
    if (ticket < share.weight) return share;
    ticket -= share.weight;
  }
  // Unreachable with positive weights (validated on write); the last share keeps the answer defined.
  return shares[shares.length - 1] as SplitShare;
}

/** Each share's probability under a plain weighted draw. */
export function shareProbabilities(shares: readonly SplitShare[]): number[] {
  const total = shares.reduce((sum, share) => sum + share.weight, 0);
  return shares.map((share) => share.weight / total);
}
