import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blobKeyId, CipherError, open, seal } from '../../src/vault/cipher.js';

const key = randomBytes(32);
const PLAINTEXT = 'card 4111111111111111 cvv 123';
const AAD = 'gateway:GW123:credentials';

function decode(blob: string): { header: string; raw: Buffer } {
  const last = blob.lastIndexOf('.');
  return { header: blob.slice(0, last + 1), raw: Buffer.from(blob.slice(last + 1), 'base64') };
}

function encode(header: string, raw: Buffer): string {
  return `${header}${raw.toString('base64')}`;
}

/** The error `fn` throws; fails the test when it throws nothing. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

/** A CipherError whose message and stack reveal neither the plaintext nor the key nor the blob. */
function expectOpaqueCipherError(error: Error, blob: string): void {
  expect(error).toBeInstanceOf(CipherError);
  expect(error.name).toBe('CipherError');
  const text = `${error.message}\n${error.stack ?? ''}`;
  for (const secret of [PLAINTEXT, key.toString('hex'), key.toString('base64'), key.toString('latin1'), decode(blob).raw.toString('base64')]) {
    expect(text).not.toContain(secret);
  }
}

describe('cipher', () => {
  it('seals and opens a round trip, in the documented format', () => {
    const blob = seal(key, 'k1', Buffer.from(PLAINTEXT), AAD);
    expect(blob).toMatch(/^c1\.k1\.[A-Za-z0-9+/]+=*$/);
    expect(blob).not.toContain(PLAINTEXT);
    expect(open(key, blob, AAD).toString('utf8')).toBe(PLAINTEXT);
    // nonce (12) + ciphertext (same length as the plaintext) + tag (16)
    expect(decode(blob).raw.length).toBe(12 + Buffer.byteLength(PLAINTEXT) + 16);
  });

  it('round-trips the empty plaintext and the empty associated data', () => {
    expect(open(key, seal(key, 'k', Buffer.alloc(0), ''), '')).toEqual(Buffer.alloc(0));
  });

  it('gives different blobs for the same plaintext (fresh nonce each time)', () => {
    const blobs = new Set<string>();
    const nonces = new Set<string>();
    for (let i = 0; i < 50; i += 1) {
      const blob = seal(key, 'k1', Buffer.from(PLAINTEXT), AAD);
      blobs.add(blob);
      nonces.add(decode(blob).raw.subarray(0, 12).toString('hex'));
      expect(open(key, blob, AAD).toString()).toBe(PLAINTEXT);
    }
    expect(blobs.size).toBe(50);
    expect(nonces.size).toBe(50);
  });

  it('rejects a blob with any single byte tampered (nonce, ciphertext or tag), without leaking', () => {
    const blob = seal(key, 'k1', Buffer.from(PLAINTEXT), AAD);
    const { header, raw } = decode(blob);
    for (let i = 0; i < raw.length; i += 1) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const tampered = Buffer.from(raw);
        tampered[i] = (tampered[i] as number) ^ mask;
        const forged = encode(header, tampered);
        expectOpaqueCipherError(thrown(() => open(key, forged, AAD)), blob);
      }
    }
  });

  it('rejects tampering at any position with any change (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 256 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, position, mask) => {
        const blob = seal(key, 'k1', Buffer.from(bytes), AAD);
        const { header, raw } = decode(blob);
        const i = position % raw.length;
        raw[i] = (raw[i] as number) ^ mask;
        expect(() => open(key, encode(header, raw), AAD)).toThrow(CipherError);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects truncated, extended and malformed blobs with CipherError', () => {
    const blob = seal(key, 'k1', Buffer.from(PLAINTEXT), AAD);
    const { header, raw } = decode(blob);
    const variants = [
      encode(header, raw.subarray(0, raw.length - 1)),
      encode(header, raw.subarray(1)),
      encode(header, Buffer.concat([raw, Buffer.from([0])])),
      encode(header, raw.subarray(0, 27)),
      encode(header, Buffer.alloc(0)),
      blob.replace(/^c1\./, 'c2.'),
      blob.replace(/^c1\.k1\./, 'c1..'),
      `${blob}.extra`,
      'c1.k1',
      '',
      PLAINTEXT,
    ];
    for (const variant of variants) expectOpaqueCipherError(thrown(() => open(key, variant, AAD)), blob);
  });

  it('rejects the wrong associated data and the wrong key', () => {
    const blob = seal(key, 'k1', Buffer.from(PLAINTEXT), AAD);
    for (const aad of ['', 'gateway:GW124:credentials', `${AAD} `, AAD.toUpperCase()]) {
      expectOpaqueCipherError(thrown(() => open(key, blob, aad)), blob);
    }
    expectOpaqueCipherError(thrown(() => open(randomBytes(32), blob, AAD)), blob);
  });

  it('authenticates the key id: a blob relabelled with another key id does not open', () => {
    const key = randomBytes(32);
    const blob = seal(key, 'k1', Buffer.from('secret'), 'aad');
    expect(() => open(key, blob.replace('c1.k1.', 'c1.k2.'), 'aad')).toThrow(CipherError);
  });

  it('refuses keys that are not 32 bytes, and key ids with a dot, with CipherError', () => {
    expect(() => seal(randomBytes(16), 'k1', Buffer.from('x'), 'aad')).toThrow(CipherError);
    expect(() => open(randomBytes(31), seal(randomBytes(32), 'k1', Buffer.from('x'), 'aad'), 'aad')).toThrow(CipherError);
    expect(() => seal(randomBytes(32), 'a.b', Buffer.from('x'), 'aad')).toThrow(CipherError);
  });

  it('blobKeyId names the sealing key without opening, and rejects what is not a blob', () => {
    expect(blobKeyId(seal(key, 'd-ENV-1', Buffer.from('x'), ''))).toBe('d-ENV-1');
    expect(blobKeyId('c1.abc.AAAA')).toBe('abc');
    for (const bad of ['', 'c1', 'c1.k', 'c1..AAAA', 'c2.k.AAAA', 'C1.k.AAAA', 'c1.k.AAAA.BBBB']) {
      expect(() => blobKeyId(bad)).toThrow(CipherError);
    }
  });

  it('open(seal(x)) is x for arbitrary bytes and associated data (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 4096 }),
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
        (bytes, aad, keyId) => {
          const plaintext = Buffer.from(bytes);
          const blob = seal(key, keyId, plaintext, aad);
          expect(blobKeyId(blob)).toBe(keyId);
          expect(open(key, blob, aad).equals(plaintext)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a blob does not open under other associated data (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.string({ maxLength: 50 }), fc.string({ maxLength: 50 }), (bytes, aad, other) => {
        // Strings are compared as their UTF-8 bytes, which is what the cipher authenticates.
        fc.pre(Buffer.from(aad, 'utf8').equals(Buffer.from(other, 'utf8')) === false);
        const blob = seal(key, 'k', Buffer.from(bytes), aad);
        expect(() => open(key, blob, other)).toThrow(CipherError);
      }),
      { numRuns: 300 },
    );
  });
});
