import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type * as openpgp from 'openpgp';
import { openpgpModule } from './openpgp-module.js';
import { ImportFileError } from './import-reader.js';

/*
 * OpenPGP import files (docs/portability.md, "Encrypted and signed files"), decrypted as they
 * stream. The file is read twice: first to decrypt it to the end and check its integrity (and the
 * sender's signature when one is required), plaintext discarded; then to import. So no row of a
 * tampered, truncated or wrongly signed file is ever imported, and the plaintext is never held
 * whole (an OpenPGP.js stream hands out plaintext before the end only with
 * `allowUnauthenticatedStream`, which the first pass makes safe).
 */

const ARMOR = '-----BEGIN PGP MESSAGE-----';

/** An OpenPGP message, armored or binary (a packet tag has its top bit set; JSON and CSV text never start so). */
export function isOpenPgp(firstBytes: Buffer): boolean {
  const first = firstBytes[0];
  if (first === undefined) return false;
  return (first & 0x80) !== 0 || firstBytes.toString('latin1').trimStart().startsWith(ARMOR);
}

/** The first bytes of a stream without consuming them (put back, so the reader sees the whole file). */
export function peek(stream: Readable, bytes = 64): Promise<Buffer> {
  // A body Fastify hands over already read to its end (an empty one) emits nothing more.
  if (stream.readableEnded || stream.destroyed) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const done = (result: Buffer | null, error?: unknown) => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
      if (error !== undefined) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(result ?? Buffer.alloc(0));
    };
    const onReadable = () => {
      const chunk = stream.read() as Buffer | string | null;
      if (chunk === null) return;
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      stream.unshift(buffer);
      done(buffer.subarray(0, bytes));
    };
    const onEnd = () => done(null);
    const onError = (error: unknown) => done(null, error);
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}

export interface DecryptKeys {
  decryptionKey: openpgp.PrivateKey;
  /** The sender's public key (armored) when a signature is required; null otherwise. */
  senderKey: string | null;
}

async function decryptStream(input: Readable, firstBytes: Buffer, keys: DecryptKeys): Promise<{ data: Readable; signatures: Promise<boolean>[] }> {
  const armored = !((firstBytes[0] ?? 0) & 0x80);
  const pgp = await openpgpModule();
  const web = Readable.toWeb(input) as unknown as NodeReadableStream<Uint8Array>;
  const message = armored
    ? await pgp.readMessage({ armoredMessage: web.pipeThrough(new TextDecoderStream()) as unknown as openpgp.NodeWebStream<string> })
    : await pgp.readMessage({ binaryMessage: web as unknown as openpgp.NodeWebStream<Uint8Array> });
  const verificationKeys = keys.senderKey === null ? undefined : await pgp.readKey({ armoredKey: keys.senderKey });
  const result = await pgp.decrypt({
    message,
    decryptionKeys: keys.decryptionKey,
    ...(verificationKeys === undefined ? {} : { verificationKeys, expectSigned: true }),
    format: 'binary',
    config: { allowUnauthenticatedStream: true },
  });
  const data = Readable.fromWeb(result.data as unknown as NodeReadableStream<Uint8Array>);
  return { data, signatures: result.signatures.map((signature) => signature.verified.then(() => true, () => false)) };
}

/**
 * Pass one: decrypts `input` to its end, checking integrity and, with a sender key, that it is
 * signed by that key; the plaintext is dropped. An ImportFileError says what is wrong, never a value.
 */
export async function checkEncrypted(input: Readable, firstBytes: Buffer, keys: DecryptKeys): Promise<void> {
  let stream: { data: Readable; signatures: Promise<boolean>[] };
  try {
    stream = await decryptStream(input, firstBytes, keys);
    for await (const chunk of stream.data) void chunk;
  } catch (error) {
    throw new ImportFileError(describe(error, keys.senderKey !== null));
  }
  if (keys.senderKey !== null) {
    const verified = await Promise.all(stream.signatures);
    if (!verified.includes(true)) throw new ImportFileError('The file is not signed by the sender key given');
  }
}

/** Pass two: the plaintext of `input`, as it streams (checked by `checkEncrypted` first). */
export async function decrypted(input: Readable, firstBytes: Buffer, keys: DecryptKeys): Promise<Readable> {
  try {
    return (await decryptStream(input, firstBytes, keys)).data;
  } catch (error) {
    throw new ImportFileError(describe(error, keys.senderKey !== null));
  }
}

/** OpenPGP.js's reasons, in words an operator can act on (its messages name no plaintext). */
function describe(error: unknown, signatureRequired: boolean): string {
  const text = error instanceof Error ? error.message : '';
  // Signature problems first: OpenPGP.js words "not signed" as an "Error decrypting message".
  if (signatureRequired && /not signed|signing key|signature/i.test(text)) return 'The file is not signed by the sender key given';
  if (/session key|decryption key|No decryption key/i.test(text)) return "The file cannot be decrypted with this environment's import key (it was encrypted to another key)";
  if (/Misformed armored text|armor|Unknown ASCII armor/i.test(text)) return 'The file is not a valid OpenPGP message';
  if (/Modification detected|MDC|authentication tag|integrity/i.test(text)) return 'The file was modified or truncated after it was encrypted';
  return 'The file is not a valid OpenPGP message';
}
