import readline from 'node:readline';
import type { Command, Option } from 'commander';
import type { Config } from '../config/config.js';
import { fail, printResult } from './output.js';

type UnsealOptions = { json?: boolean; status?: boolean; reset?: boolean; url?: string };

/** The first non-blank line of standard input: the share, never an argument (no shell history, no process list). */
async function readShare(): Promise<string> {
  if (process.stdin.isTTY === true) process.stderr.write('key share: ');
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  try {
    for await (const line of lines) if (line.trim() !== '') return line.trim();
  } finally {
    lines.close();
  }
  return fail('no key share on standard input');
}

/** The node's admin-only unseal listener (COFFER_UNSEAL_HOST/PORT), as a URL. */
function unsealUrl(config: Config): string {
  const host = config.unseal.host.includes(':') ? `[${config.unseal.host}]` : config.unseal.host;
  return `http://${host}:${config.unseal.port}/unseal`;
}

/**
 * `coffer unseal` (docs/key-custody.md): one custodian submits their share to the node running on
 * this host, over its unseal listener; prints how many shares are in and whether it is unsealed.
 */
export function unsealCommand(cli: Command, config: () => Config, json: () => Option): void {
  cli
    .command('unseal')
    .description("submit one custodian's key share (read from standard input) to a sealed node on this host")
    .option('--status', 'only show how many shares are in')
    .option('--reset', 'forget the shares submitted so far')
    .option('--url <url>', 'the unseal listener (default from COFFER_UNSEAL_HOST and COFFER_UNSEAL_PORT)')
    .addOption(json())
    .action(async (opts: UnsealOptions) => {
      const url = opts.url ?? unsealUrl(config());
      const request: RequestInit =
        opts.status === true ? { method: 'GET' } : opts.reset === true ? { method: 'DELETE' } : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ share: await readShare() }) };
      let response: Response;
      try {
        response = await fetch(url, request);
      } catch (error) {
        return fail(`cannot reach the unseal listener at ${url} (${(error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message}); is coffer serve running with COFFER_MASTER_KEY_PROVIDER=shares?`);
      }
      const body = (await response.json().catch(() => null)) as { errors?: { message: string }[]; sealed?: boolean; submitted?: number; threshold?: number } | null;
      if (!response.ok || body === null) return fail(body?.errors?.[0]?.message ?? `the unseal listener answered ${response.status}`);
      printResult(body, opts.json === true);
    });
}
