/**
 * The decodings of one run of base64 or hex characters, at each alignment the encoded text can
 * start at, as latin1 text (one character per byte) with the way back from a span of a decoding
 * to the characters of the run that encode it. A run is first glanced at (its bytes counted
 * without being made) and decoded only when the decoding could matter: most runs are words of
 * ordinary text, whose decodings hold neither digits nor text, and making them all cost more
 * than the rest of the scrubbing together.
 */

import type { Span } from './spans.js';

/** What a decoding holds, counted. */
export interface Glance {
  length: number;
  /** ASCII digits. */
  digits: number;
  /** Bytes that start a UTF-8 sequence of two or more (a digit of another script needs one). */
  leads: number;
  /** Printable ASCII, tab and line breaks. */
  printable: number;
}

/** Share of a decoding that must be printable for it to count as ASCII text. */
const PRINTABLE_SHARE = 0.9;

/** True when the decoding reads as ASCII text (what a further encoding would be written in). */
export function isAsciiText(glance: Glance): boolean {
  return glance.printable >= glance.length * PRINTABLE_SHARE;
}


export interface Decoding {
  text: string;
  back: (span: Span) => Span;
  glance: Glance;
}

export type Encoding = 'base64' | 'hex';

/** Each base64 character's six bits (both alphabets: `+/` and `-_`), -1 for any other. */
const SEXTETS = new Int8Array(128).fill(-1);
[...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'].forEach((char, index) => {
  SEXTETS[char.charCodeAt(0)] = index;
});
SEXTETS['+'.charCodeAt(0)] = 62;
SEXTETS['-'.charCodeAt(0)] = 62;
SEXTETS['/'.charCodeAt(0)] = 63;
SEXTETS['_'.charCodeAt(0)] = 63;

function nibble(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

function count(glance: Glance, byte: number): void {
  glance.length += 1;
  if (byte >= 0x30 && byte <= 0x39) glance.digits += 1;
  if ((byte >= 0x20 && byte < 0x7f) || byte === 0x09 || byte === 0x0a || byte === 0x0d) glance.printable += 1;
  else if (byte >= 0xc2 && byte <= 0xf4) glance.leads += 1;
}

/** The bytes base64 from `align` decodes to, counted (a last group of 2 or 3 characters gives 1 or 2 bytes, as Node decodes it). */
function glanceBase64(run: string, align: number): Glance {
  const glance = { length: 0, digits: 0, leads: 0, printable: 0 };
  let bits = 0;
  let held = 0;
  for (let index = align; index < run.length; index += 1) {
    held = ((held << 6) | (SEXTETS[run.charCodeAt(index)] as number)) & 0xfff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      count(glance, (held >> bits) & 0xff);
    }
  }
  return glance;
}

function glanceHex(run: string, align: number): Glance {
  const glance = { length: 0, digits: 0, leads: 0, printable: 0 };
  for (let index = align; index + 1 < run.length; index += 2) count(glance, nibble(run.charCodeAt(index)) * 16 + nibble(run.charCodeAt(index + 1)));
  return glance;
}

/** A run of base64 or hex characters in a text: [start, end). */
export interface Run {
  encoding: Encoding;
  start: number;
  end: number;
}

const SHORTEST_RUN: Record<Encoding, number> = { base64: 4, hex: 6 };

/**
 * The runs of `text` worth decoding: maximal runs of base64 characters (either alphabet) of 4
 * or more, and within them maximal runs of hex digits of 6 or more (3 bytes, a CVV). One pass
 * over the text; a regex per kind cost several times more on ordinary text.
 */
export function runsIn(text: string): Run[] {
  const runs: Run[] = [];
  let base64Start = -1;
  let hexStart = -1;
  const close = (encoding: Encoding, start: number, end: number): void => {
    if (start !== -1 && end - start >= SHORTEST_RUN[encoding]) runs.push({ encoding, start, end });
  };
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const inBase64 = code < 128 && SEXTETS[code] !== -1;
    const inHex = inBase64 && nibble(code) !== -1;
    if (inBase64 && base64Start === -1) base64Start = index;
    if (!inBase64 && base64Start !== -1) {
      close('base64', base64Start, index);
      base64Start = -1;
    }
    if (inHex && hexStart === -1) hexStart = index;
    if (!inHex && hexStart !== -1) {
      close('hex', hexStart, index);
      hexStart = -1;
    }
  }
  close('base64', base64Start, text.length);
  close('hex', hexStart, text.length);
  return runs;
}

function base64At(run: string, align: number, glance: Glance): Decoding {
  return {
    glance,
    text: Buffer.from(run.slice(align), 'base64').toString('latin1'),
    back: ([start, end]) => [align + Math.floor(start / 3) * 4, Math.min(run.length, align + Math.ceil(end / 3) * 4)],
  };
}

function hexAt(run: string, align: number, glance: Glance): Decoding {
  return {
    glance,
    text: Buffer.from(run.slice(align, align + ((run.length - align) & ~1)), 'hex').toString('latin1'),
    back: ([start, end]) => [align + start * 2, align + end * 2],
  };
}

/** The decodings of `run` worth reading, by what `worth` makes of a glance at each. */
export function decodingsOf(run: string, encoding: Encoding, worth: (glance: Glance) => boolean): Decoding[] {
  const alignments = encoding === 'base64' ? 4 : 2;
  const smallest = SHORTEST_RUN[encoding];
  const found: Decoding[] = [];
  for (let align = 0; align < alignments && run.length - align >= smallest; align += 1) {
    const glance = encoding === 'base64' ? glanceBase64(run, align) : glanceHex(run, align);
    if (worth(glance)) found.push(encoding === 'base64' ? base64At(run, align, glance) : hexAt(run, align, glance));
  }
  return found;
}
