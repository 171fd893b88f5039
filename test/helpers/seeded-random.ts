import type { RandomInt } from '../../src/services/routing/split-draw.js';

/**
 * A reproducible stand-in for `cryptoRandomInt`: the same seed gives the same draws on every run,
 * so a test counting draws never fails by chance. Mulberry32, a small 32-bit generator whose
 * output is uniform enough for counting shares (not for anything secret).
 */
export function seededRandomInt(seed: number): RandomInt {
  let state = seed >>> 0;
  return (max) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const unit = ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    return Math.floor(unit * max);
  };
}
