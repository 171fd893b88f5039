/**
 * RFC 4648 base32 (the alphabet A–Z, 2–7), without padding: only what the scrubber needs to know
 * how a value looks in base32 at each alignment it can have inside a longer base32 text. Node has
 * no base32 codec; the encoding is a dozen lines, so no dependency is taken for it.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Base32 of `offset` zero bytes followed by `bytes`. */
function base32After(bytes: Uint8Array, offset: number): string {
  let out = '';
  let bits = 0;
  let held = 0;
  for (let index = -offset; index < bytes.length; index += 1) {
    held = ((held << 8) | (index < 0 ? 0 : (bytes[index] as number))) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(held >>> bits) & 31];
    }
  }
  if (bits > 0) out += ALPHABET[(held << (5 - bits)) & 31];
  return out;
}

export function base32(bytes: Uint8Array): string {
  return base32After(bytes, 0);
}

/**
 * The base32 characters that depend only on `value`, for each of the five byte alignments it can
 * have inside a longer base32 text (a character that also holds a neighbour's bits is left out).
 */
export function base32Cores(value: Uint8Array): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 5; offset += 1) {
    const first = Math.ceil((offset * 8) / 5);
    const last = Math.floor(((offset + value.length) * 8) / 5);
    cores.push(base32After(value, offset).slice(first, last));
  }
  return cores;
}
