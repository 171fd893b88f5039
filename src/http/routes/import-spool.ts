import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline as pipe, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A request body kept in a private temporary file until its import has read it. */
export interface SpooledBody {
  /** The body again, from its first byte, each time it is called. */
  open(): Readable;
  /** Removes the file and forgets its key. */
  remove(): Promise<void>;
}

/**
 * Receives a whole import body into a private temporary file (mode 0600, in a directory of its own)
 * before the import reads it, so that the upload is bounded by how fast it arrives, not by how fast
 * cards are sealed: an import over the API that is streamed as it is imported must arrive within the
 * request timeout (30 s, server-timeouts.ts), which a large file cannot (docs/portability.md, "API").
 *
 * `sealed`: the file holds the body encrypted (AES-256-GCM) under a key made for it and kept only in
 * this process's memory, so a clear file's card numbers are never written to disk in clear. An
 * OpenPGP body is already ciphertext and is written as it is.
 */
export async function spoolBody(body: Readable, sealed: boolean): Promise<SpooledBody> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'coffer-import-'));
  const file = path.join(dir, sealed ? 'file.sealed' : 'file.pgp');
  const remove = () => rm(dir, { recursive: true, force: true });
  if (!sealed) {
    try {
      await pipeline(body, createWriteStream(file, { mode: 0o600 }));
    } catch (error) {
      await remove();
      throw error;
    }
    return { open: () => createReadStream(file), remove };
  }
  const key = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  try {
    await pipeline(body, cipher, createWriteStream(file, { mode: 0o600 }));
  } catch (error) {
    key.fill(0);
    await remove();
    throw error;
  }
  const tag = cipher.getAuthTag();
  return {
    open: () => {
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      // An error on either side ends the other with it: the import sees it as the file's error.
      return pipe(createReadStream(file), decipher, () => {});
    },
    remove: async () => {
      key.fill(0);
      await remove();
    },
  };
}
