import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export interface MasterKeySource {
  key: Buffer;
  /** Set when the key was read from or written to the data directory (not supplied by the operator). */
  localFile: string | null;
  created: boolean;
}

/** Where the local master key of `dataDir` lives (or would be generated). */
export function localMasterKeyFile(dataDir: string): string {
  return path.join(dataDir, 'master.key');
}

/**
 * The operator's COFFER_MASTER_KEY when given; otherwise a local key kept in
 * `<dataDir>/master.key` (mode 0600), generated on first start. A local key is for
 * development: it sits beside the database it protects.
 */
export function resolveMasterKey(configured: Buffer | null, dataDir: string): MasterKeySource {
  if (configured !== null) return { key: configured, localFile: null, created: false };
  const file = localMasterKeyFile(dataDir);
  if (fs.existsSync(file)) {
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file}: does not hold a base64 32-byte key`);
    return { key, localFile: file, created: false };
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  // 'wx' refuses to overwrite a key another process wrote a moment ago.
  fs.writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return { key, localFile: file, created: true };
}
