import readline from 'node:readline';
import type { SharesMasterKey } from '../vault/master-key-providers/shares.js';
import { UnsealError } from '../vault/master-key-providers/shares.js';

/**
 * Unseals `seal` in this process from shares read on standard input, one per line (a CLI command
 * on a `shares` installation needs the master key too). Nothing read is echoed or kept: each line
 * goes to `submit`, which zeroes the shares once combined. Fails on the first refused share.
 */
export async function unsealFromStdin(seal: SharesMasterKey, what: string): Promise<void> {
  const interactive = process.stdin.isTTY === true;
  const status = seal.status();
  process.stderr.write(`Key shares: ${what} needs the master key; enter ${status.threshold} key shares, one per line\n`);
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue;
      try {
        const now = await seal.submit(line);
        if (!now.sealed) return;
        if (interactive) process.stderr.write(`Key shares: share accepted (${now.submitted} of ${now.threshold})\n`);
      } catch (error) {
        if (error instanceof UnsealError) throw new Error(`share refused: ${error.message}`);
        throw error;
      }
    }
  } finally {
    lines.close();
  }
  throw new Error(`standard input ended before ${status.threshold} valid key shares were read`);
}
