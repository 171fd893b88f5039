import { expect } from 'vitest';
import type { Wire } from '../../src/http/format/wire.js';

type Encode = (root: string, body: Wire) => string;

/**
 * A response writer's name cache (src/http/format/name-cache.ts) changes nothing it prints: a body
 * with `names` prints as its oracle prints it, the same again once the names are cached, and the
 * same after the cache filled past its 4,096 names and started over.
 */
export function expectSameAcrossNameCacheReset(encode: Encode, oracle: Encode, names: readonly string[]): void {
  const body = (salt: number): Wire => Object.fromEntries(names.map((name, index) => [name, index + salt]));
  const first = encode('r', body(0));
  expect(first).toBe(oracle('r', body(0)));
  expect(encode('r', body(0))).toBe(first);
  for (let round = 0; round < 3; round += 1) encode('r', Object.fromEntries(Array.from({ length: 2000 }, (_, index) => [`name_${round}_${index}`, index])));
  expect(encode('r', body(1))).toBe(oracle('r', body(1)));
}
