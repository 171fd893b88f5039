import { createWriteStream, readFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Option, type Command } from 'commander';
import type { Core } from '../app.js';
import { AppError } from '../domain/errors.js';
import type { Environment } from '../domain/environment.js';
import type { ExportCaller, ExportView } from '../services/portability/export.service.js';
import { exportFilterOf, exportFilterSchema } from '../services/portability/export-filter.js';
import { fail, printResult } from './output.js';

type WithCore = (work: (core: Core) => Promise<void>) => Promise<void>;
type EnvironmentFlags = { environment: string; json?: boolean };

/** The whole of standard input, without its final line break: an admin access secret, never an argument. */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('admin access secret (then Ctrl-D): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** The person taking the step: the admin access secret read from stdin (dual control needs to know who). */
async function callerFrom(core: Core, environment: Environment): Promise<ExportCaller> {
  const secret = await readStdin();
  if (secret === '') fail('pipe an admin access secret of the environment on standard input');
  const context = await core.auth.authenticate(environment.key, secret, 'admin', false);
  if (context === null) fail('the secret on standard input is not an admin access secret of this environment');
  return { type: 'access_secret', id: context.secret.key, address: null };
}

export const exportOut = (job: ExportView) => ({
  id: job.token,
  environment_key: job.environmentKey,
  state: job.shownState,
  recipient_fingerprint: job.recipientFingerprint,
  recipient_user_ids: job.recipientUserIds,
  storage_state: job.filter.storageStates,
  created_from: job.filter.createdFrom,
  created_to: job.filter.createdTo,
  metadata: Object.entries(job.filter.metadata).map(([key, value]) => `${key}=${value}`),
  requested_by: job.requestedBy.id,
  approved_by: job.approvedBy?.id ?? null,
  downloaded_by: job.downloadedBy?.id ?? null,
  closed_by: job.closedBy?.id ?? null,
  closed_at: job.closedAt,
  payment_methods: job.paymentMethods,
  expires_at: job.expiresAt,
  created_at: job.createdAt,
});

/** An API error as one line (the service's messages name no value). */
async function orFail<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AppError) fail(error.entries.map((entry) => entry.message).join('; '));
    throw error;
  }
}

/**
 * `coffer export request|approve|reject|cancel|download|list|show` (docs/portability.md, "Exporting"): the
 * same dual control as the API. Each step that acts reads an admin access secret of the
 * environment from standard input, and the person who requested an export cannot approve it.
 */
export function exportCommands(cli: Command, withCore: WithCore): void {
  const exports = cli.command('export').description('export payment methods to another vault under dual control (request, approve or reject, cancel, download once)');
  const json = () => new Option('--json', 'print machine-readable JSON');

  exports.command('request').description("request an export to a recipient's OpenPGP public key (admin secret on stdin); another admin must approve it")
    .requiredOption('--environment <key>', 'the environment whose payment methods are exported')
    .requiredOption('--recipient <file>', "the recipient's armored OpenPGP public key (the file is encrypted to it)")
    .option('--storage-state <states>', 'retained, cached or retained,cached (default: both)')
    .option('--created-from <time>', 'only methods created at or after this ISO-8601 time')
    .option('--created-to <time>', 'only methods created before this ISO-8601 time')
    .option('--metadata <key=value...>', 'only methods whose metadata has these values')
    .addOption(json())
    .action((opts: EnvironmentFlags & { recipient: string; storageState?: string; createdFrom?: string; createdTo?: string; metadata?: string[] }) => {
      let recipient = '';
      try {
        recipient = readFileSync(opts.recipient, 'utf8');
      } catch {
        fail(`cannot read ${opts.recipient}`);
      }
      const metadata: Record<string, string> = {};
      for (const pair of opts.metadata ?? []) {
        const at = pair.indexOf('=');
        if (at <= 0) fail(`--metadata takes key=value, not ${pair}`);
        metadata[pair.slice(0, at)] = pair.slice(at + 1);
      }
      const parsed = exportFilterSchema.safeParse({ storage_state: opts.storageState, created_from: opts.createdFrom, created_to: opts.createdTo, metadata });
      if (!parsed.success) fail(`--${String(parsed.error.issues[0]?.path[0] ?? 'filter').replace(/_/g, '-')} is invalid`);
      return withCore(async (core) => {
        const environment = await core.tenancy.requireEnvironment(opts.environment);
        const caller = await callerFrom(core, environment);
        const job = await orFail(core.vaultExports.request(environment, caller, { filter: exportFilterOf(parsed.data), recipientPublicKey: recipient }));
        printResult(exportOut(job), opts.json === true);
      });
    });

  // The three decisions on a pending export: each reads the deciding admin secret from stdin.
  const decisions = [
    ['approve', 'approve an export (an admin secret on stdin, not the requester’s)'],
    ['cancel', 'cancel your own pending export (the requester’s admin secret on stdin); it never runs'],
    ['reject', 'reject a pending export (an admin secret on stdin, not the requester’s); it never runs'],
  ] as const;
  for (const [decision, description] of decisions) {
    exports.command(`${decision} <id>`).description(description)
      .requiredOption('--environment <key>', 'the environment of the export')
      .addOption(json())
      .action((id: string, opts: EnvironmentFlags) =>
        withCore(async (core) => {
          const environment = await core.tenancy.requireEnvironment(opts.environment);
          const caller = await callerFrom(core, environment);
          printResult(exportOut(await orFail(core.vaultExports[decision](environment, id, caller))), opts.json === true);
        }));
  }

  exports.command('download <id>').description('download an approved export, once, to a file (OpenPGP, encrypted to the recipient; admin secret on stdin)')
    .requiredOption('--environment <key>', 'the environment of the export')
    .requiredOption('--out <file>', 'where to write the encrypted file (created, mode 0600; never overwritten)')
    .addOption(json())
    .action((id: string, opts: EnvironmentFlags & { out: string }) =>
      withCore(async (core) => {
        const environment = await core.tenancy.requireEnvironment(opts.environment);
        const caller = await callerFrom(core, environment);
        const { file, done } = await orFail(core.vaultExports.download(environment, id, caller));
        try {
          await pipeline(file, createWriteStream(opts.out, { mode: 0o600, flags: 'wx' }));
        } catch (error) {
          file.destroy();
          await done;
          fail(`the download stopped: ${(error as NodeJS.ErrnoException).code === 'EEXIST' ? `${opts.out} exists already` : 'the file was not written to its end'} (the export is spent; request a new one)`);
        }
        printResult(exportOut(await done), opts.json === true);
      }));

  exports.command('list').description("an environment's exports, newest first")
    .requiredOption('--environment <key>', 'the environment')
    .addOption(json())
    .action((opts: EnvironmentFlags) =>
      withCore(async (core) => {
        const environment = await core.tenancy.requireEnvironment(opts.environment);
        printResult((await core.vaultExports.list(environment)).map(exportOut), opts.json === true);
      }));

  exports.command('show <id>').description('one export: its state, recipient, filter and who took each step')
    .requiredOption('--environment <key>', 'the environment')
    .addOption(json())
    .action((id: string, opts: EnvironmentFlags) =>
      withCore(async (core) => {
        const environment = await core.tenancy.requireEnvironment(opts.environment);
        printResult(exportOut(await orFail(core.vaultExports.find(environment, id))), opts.json === true);
      }));
}
