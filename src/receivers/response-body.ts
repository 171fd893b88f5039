import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Scrubber } from '../domain/scrubbing/scrubber.js';

/** What a body that cannot be decoded and scrubbed with certainty is replaced by (docs/security.md, "Scrubbing"). */
export const UNSCRUBBABLE_BODY = '[UNSCRUBBABLE BODY OMITTED]';

/**
 * Largest body once decompressed, as large as an uncompressed answer may be: a bigger one (a
 * compression bomb) is omitted, not inflated. It also bounds the scrubbing work (about 0.35 s for
 * a hostile 1 MiB of "1 1 1 …", 40 ms for 0.5 MiB of ordinary JSON, docs/security.md).
 */
const MAX_DECODED_BYTES = 1024 * 1024;

/** A receiver's answer body after decoding and scrubbing. */
export interface ScrubbedBody {
  /** What is stored and returned: scrubbed text, base64 of scrubbed bytes (encode_response), or UNSCRUBBABLE_BODY with the length and content type. */
  body: string;
  /** The scrubbed text for the transcript. */
  transcript: string;
  omitted: boolean;
}

type TextEncoding = 'utf8' | 'utf16le' | 'utf16be';
type Decoded = { kind: 'text'; encoding: TextEncoding; bom: boolean; text: string } | { kind: 'bytes'; bytes: Buffer; latin1: boolean } | { kind: 'unscrubbable'; reason: string };

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);

/** Content codings Coffer can undo, by name (RFC 9110 §8.4.1). */
const DECODERS: Record<string, (bytes: Buffer) => Promise<Buffer>> = {
  gzip: (bytes) => gunzip(bytes, { maxOutputLength: MAX_DECODED_BYTES }),
  'x-gzip': (bytes) => gunzip(bytes, { maxOutputLength: MAX_DECODED_BYTES }),
  // "deflate" is zlib-wrapped by the standard; some servers send it raw.
  deflate: (bytes) => inflate(bytes, { maxOutputLength: MAX_DECODED_BYTES }).catch(() => inflateRaw(bytes, { maxOutputLength: MAX_DECODED_BYTES })),
  br: (bytes) => brotli(bytes, { maxOutputLength: MAX_DECODED_BYTES }),
  identity: async (bytes) => bytes,
};

/** Signatures of containers that would hide text from the scrubber (a compressed body inside the body). */
const OPAQUE_SIGNATURES = [Buffer.from([0x1f, 0x8b]), Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.from([0x28, 0xb5, 0x2f, 0xfd])];
const SINGLE_BYTE_CHARSETS = new Set(['us-ascii', 'ascii', 'iso-8859-1', 'latin1', 'iso_8859-1', 'windows-1252', 'cp1252']);

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value.join(', ') : (value ?? '')).trim();
}

function charsetOf(contentType: string): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return match === null ? null : (match[1] as string).toLowerCase();
}

/** UTF-16 without a BOM: most of one byte of each pair is 0 (text in the Latin range). */
function utf16WithoutBom(bytes: Buffer): TextEncoding | null {
  if (bytes.length < 4 || bytes.length % 2 !== 0) return null;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let index = 0; index < bytes.length; index += 2) {
    if (bytes[index] === 0) evenZeros += 1;
    if (bytes[index + 1] === 0) oddZeros += 1;
  }
  const pairs = bytes.length / 2;
  if (oddZeros >= pairs * 0.3 && evenZeros === 0) return 'utf16le';
  if (evenZeros >= pairs * 0.3 && oddZeros === 0) return 'utf16be';
  return null;
}

function decodeText(bytes: Buffer, encoding: TextEncoding): string | null {
  try {
    const label = encoding === 'utf8' ? 'utf-8' : encoding === 'utf16le' ? 'utf-16le' : 'utf-16be';
    return new TextDecoder(label, { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

function encodeText(text: string, encoding: TextEncoding, bom: boolean): Buffer {
  const body = encoding === 'utf8' ? Buffer.from(text, 'utf8') : Buffer.from(text, 'utf16le');
  if (encoding === 'utf16be') body.swap16();
  if (!bom) return body;
  const mark = encoding === 'utf8' ? [0xef, 0xbb, 0xbf] : encoding === 'utf16le' ? [0xff, 0xfe] : [0xfe, 0xff];
  return Buffer.concat([Buffer.from(mark), body]);
}

/** Decides how the bytes of a body are text, or that they cannot be read with certainty. */
function classify(bytes: Buffer, contentType: string): Decoded {
  if (OPAQUE_SIGNATURES.some((signature) => bytes.subarray(0, signature.length).equals(signature))) return { kind: 'unscrubbable', reason: 'compressed content inside the body' };
  const boms: Array<[number[], TextEncoding]> = [
    [[0xef, 0xbb, 0xbf], 'utf8'],
    [[0xff, 0xfe], 'utf16le'],
    [[0xfe, 0xff], 'utf16be'],
  ];
  for (const [mark, encoding] of boms) {
    if (bytes.subarray(0, mark.length).equals(Buffer.from(mark))) {
      const text = decodeText(bytes.subarray(mark.length), encoding);
      return text === null ? { kind: 'unscrubbable', reason: `invalid ${encoding}` } : { kind: 'text', encoding, bom: true, text };
    }
  }
  const charset = charsetOf(contentType);
  if (charset !== null && charset.startsWith('utf-16')) {
    const encoding: TextEncoding = charset === 'utf-16le' ? 'utf16le' : charset === 'utf-16be' ? 'utf16be' : (utf16WithoutBom(bytes) ?? 'utf16be');
    const text = decodeText(bytes, encoding);
    return text === null ? { kind: 'unscrubbable', reason: `invalid ${charset}` } : { kind: 'text', encoding, bom: false, text };
  }
  if (charset !== null && SINGLE_BYTE_CHARSETS.has(charset)) return { kind: 'bytes', bytes, latin1: true };
  if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') return { kind: 'unscrubbable', reason: `charset ${charset}` };
  const utf16 = utf16WithoutBom(bytes);
  if (utf16 !== null) {
    const text = decodeText(bytes, utf16);
    if (text !== null) return { kind: 'text', encoding: utf16, bom: false, text };
  }
  const text = decodeText(bytes, 'utf8');
  return text === null ? { kind: 'bytes', bytes, latin1: false } : { kind: 'text', encoding: 'utf8', bom: false, text };
}

/**
 * Decodes a receiver's answer as far as it can be decoded — Content-Encoding (gzip, deflate, br,
 * several in a row), then UTF-8 or UTF-16 (with or without a BOM) — and scrubs it; entities,
 * escapes, full-width digits and separators are matched by the scrubber itself. A body that
 * cannot be decoded with certainty (an unknown content coding, corrupt or oversized compressed
 * data, a compressed container inside, a charset Coffer cannot read) is never stored or
 * returned: it becomes UNSCRUBBABLE_BODY. Bodies that are not text are scanned byte by byte.
 */
export async function scrubResponseBody(
  raw: Buffer,
  headers: Record<string, string | string[] | undefined>,
  scrubber: Scrubber,
  encodeResponse: boolean,
): Promise<ScrubbedBody> {
  const contentType = headerValue(headers, 'content-type');
  // Said in the body itself, with the length and content type of what was received (a chunked
  // answer has no Content-Length header to keep them).
  const shape = `${raw.length} bytes, ${contentType === '' ? 'no content type' : scrubber.text(contentType)}`;
  const omitted = (reason: string): ScrubbedBody => ({ body: `${UNSCRUBBABLE_BODY} (${shape})`, transcript: `${UNSCRUBBABLE_BODY} (${shape}: ${reason})`, omitted: true });
  let bytes = raw;
  const codings = headerValue(headers, 'content-encoding')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '');
  for (const coding of codings.reverse()) {
    const decode = DECODERS[coding];
    if (decode === undefined) return omitted(`content coding ${coding}`);
    try {
      bytes = await decode(bytes);
    } catch {
      return omitted(`${coding} data that does not decode`);
    }
  }
  const decoded = classify(bytes, contentType);
  if (decoded.kind === 'unscrubbable') return omitted(decoded.reason);
  if (decoded.kind === 'text') {
    const text = scrubber.text(decoded.text);
    return { body: encodeResponse ? encodeText(text, decoded.encoding, decoded.bom).toString('base64') : text, transcript: text, omitted: false };
  }
  const scrubbed = scrubber.bytes(decoded.bytes);
  const text = scrubber.text(scrubbed.toString(decoded.latin1 ? 'latin1' : 'utf8'));
  return { body: encodeResponse ? scrubbed.toString('base64') : text, transcript: text, omitted: false };
}
