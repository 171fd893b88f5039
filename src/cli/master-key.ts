import type { Command, Option } from 'commander';
import type { Core } from '../app.js';
import type { Config } from '../config/config.js';
import { Pkcs11MasterKey } from '../vault/master-key-providers/pkcs11.js';
import { describeToken } from '../vault/master-key-providers/pkcs11-settings.js';
import { isMasterKeyProviderKind, type MasterKeyProvider } from '../vault/master-key-providers/provider.js';
import { SharesMasterKey } from '../vault/master-key-providers/shares.js';
import { fail, printResult } from './output.js';
import { unsealFromStdin } from './share-input.js';

type JsonFlag = { json?: boolean };
type WithCore = (work: (core: Core) => Promise<void>) => Promise<void>;

/** N and M of `--key-shares N --threshold M`, checked before anything is opened. */
export function shareCounts(opts: { keyShares?: string; threshold?: string }): { shares: number; threshold: number } | null {
  if (opts.keyShares === undefined && opts.threshold === undefined) return null;
  const shares = Number(opts.keyShares);
  const threshold = Number(opts.threshold);
  if (!Number.isInteger(shares) || !Number.isInteger(threshold) || threshold < 2 || shares < threshold || shares > 255) {
    fail('--key-shares N --threshold M: M at least 2, N at least M and at most 255');
  }
  return { shares, threshold };
}

/** Prints the custodians' shares once, to the terminal: they are never stored or logged. */
export function printShares(shares: string[], threshold: number): void {
  process.stderr.write(
    [
      `Master key split into ${shares.length} shares; any ${threshold} unseal a node. Give one to each custodian now: they are not shown again.`,
      ...shares.map((share, index) => `  share ${index + 1}  ${share}`),
      '',
    ].join('\n'),
  );
}

/** The provider `rotate --to` moves onto, ready to wrap (a new split key is made and printed, or an unfinished one unsealed). */
async function targetOf(core: Core, config: Config, kind: string, counts: { shares: number; threshold: number } | null): Promise<MasterKeyProvider> {
  if (!isMasterKeyProviderKind(kind)) fail('--to must be one of file, env, pkcs11, shares');
  // The configured provider: finishing a move (keys still wrapped by COFFER_MASTER_KEY_PREVIOUS_PROVIDER).
  if (kind === config.masterKeyProvider) return core.custody.provider;
  const target = (await core.custody.open(kind)).provider;
  const unreachable = target instanceof Pkcs11MasterKey ? target.unavailableReason() : null;
  if (unreachable !== null) fail(`the HSM cannot be reached: ${unreachable}`);
  if (target instanceof SharesMasterKey) {
    const status = target.status();
    // An interrupted move resumes on the split key it started (its shares were handed out).
    if (status.initialised && (await core.keyring.countWrappedBy(target)) > 0) {
      await unsealFromStdin(target, 'resuming the move to the split master key');
    } else {
      if (counts === null) fail('--to shares needs --key-shares N --threshold M');
      printShares(await target.initialise(counts.shares, counts.threshold), counts.threshold);
    }
  }
  return target;
}

/**
 * `coffer master-key create-hsm-key` and `coffer master-key rotate --to <provider>`
 * (docs/key-custody.md).
 */
export function masterKeyCommands(cli: Command, withCore: WithCore, config: () => Config, json: () => Option): void {
  const masterKey = cli.command('master-key').description('where the master key lives: create the HSM key, move between providers (docs/key-custody.md)');
  masterKey
    .command('create-hsm-key')
    .description('generate the AES-256 master key inside the PKCS#11 token (COFFER_PKCS11_*); it never leaves the token')
    .addOption(json())
    .action((opts: JsonFlag) => {
      const loaded = config();
      if (loaded.pkcs11 === null) fail('set COFFER_PKCS11_PIN_FILE (or COFFER_PKCS11_PIN), and COFFER_PKCS11_TOKEN_LABEL or COFFER_PKCS11_SLOT');
      let id: string;
      try {
        id = Pkcs11MasterKey.createKey(loaded.pkcs11);
      } catch (error) {
        fail(`cannot create the HSM key: ${(error as Error).message}`);
      }
      printResult({ master_key_id: id, token: describeToken(loaded.pkcs11), key_label: loaded.pkcs11.keyLabel }, opts.json === true);
    });
  masterKey
    .command('rotate')
    .description('re-wrap every data key under another master key provider (no card is re-encrypted; online; run again to resume)')
    .requiredOption('--to <provider>', 'file, env, pkcs11 or shares')
    .option('--key-shares <n>', 'with --to shares: how many custodian shares to print')
    .option('--threshold <m>', 'with --to shares: how many shares unseal')
    .addOption(json())
    .action((opts: JsonFlag & { to: string; keyShares?: string; threshold?: string }) => {
      const counts = shareCounts(opts);
      const loaded = config();
      return withCore(async (core) => {
        const target = await targetOf(core, loaded, opts.to, counts);
        const moved = await core.keyRotation.moveMasterKey(target);
        printResult({ to: target.kind, master_key_id: target.id, rewrapped: moved.rewrapped, remaining: moved.remaining }, opts.json === true);
      });
    });
  masterKey
    .command('history')
    .description('the latest master key rotations and moves, newest first: when, onto which provider, how many keys, completed or interrupted')
    .option('--limit <n>', 'how many runs to show', '20')
    .addOption(json())
    .action((opts: JsonFlag & { limit: string }) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) fail('--limit must be a whole number from 1 to 1000');
      return withCore(async (core) => {
        const runs = await core.keyRotation.history(limit);
        printResult(
          runs.map((run) => ({ finished_at: run.finishedAt, kind: run.kind, to: run.toProvider, master_key_id: run.toMasterKeyId, from: run.fromMasterKeyIds, rewrapped: run.rewrapped, remaining: run.remaining, outcome: run.outcome, problem: run.problem })),
          opts.json === true,
        );
      });
    });
}
