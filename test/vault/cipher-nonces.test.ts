import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { open, seal } from '../../src/vault/cipher.js';

/** Seal nonces come from a pooled CSPRNG buffer (src/vault/cipher.ts): each is used once, across refills too. */
describe('seal nonces', () => {
  it('are never reused, across several refills of the pool, and every blob still opens', () => {
    const key = randomBytes(32);
    const nonces = new Set<string>();
    const count = 4096 * 3 + 17;
    for (let index = 0; index < count; index += 1) {
      const blob = seal(key, 'k1', Buffer.from(`value ${index}`), 'aad');
      nonces.add(Buffer.from(blob.split('.')[2] as string, 'base64').subarray(0, 12).toString('hex'));
      if (index % 1000 === 0) expect(open(key, blob, 'aad').toString()).toBe(`value ${index}`);
    }
    expect(nonces.size).toBe(count);
  });
});
