import type { Command } from 'commander';
import type { Core } from '../app.js';
import type { Upstream } from '../domain/upstream.js';
import { printResult } from './output.js';

type JsonFlag = { json?: boolean };
type WithCore = (work: (core: Core) => Promise<void>) => Promise<void>;

/** The whole of standard input, without its final line break (the secret piped in, never an argument). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

const upstreamOut = (upstream: Upstream) => ({
  environment_key: upstream.environmentKey,
  url: upstream.url,
  upstream_environment_key: upstream.upstreamEnvironmentKey,
  public_url: upstream.publicUrl,
  receiver_token: upstream.receiverToken,
  pulled_on_demand: upstream.pulledOnDemand,
  backfill_state: upstream.backfill.state,
  backfill_seen: upstream.backfill.seen,
  backfilled: upstream.backfill.backfilled,
  already_here: upstream.backfill.alreadyHere,
  backfill_failed: upstream.backfill.failed,
  backfill_since_token: upstream.backfill.cursor,
});

/**
 * `coffer upstream set|show|clear|backfill` (docs/portability.md, "Live migration"). The upstream
 * access secret is read from standard input, so it is in no shell history or process list.
 */
export function upstreamCommands(cli: Command, withCore: WithCore, json: () => import('commander').Option): void {
  const upstream = cli.command('upstream').description('live migration from a Spreedly-compatible vault (docs/portability.md)');
  upstream
    .command('set')
    .description('name the upstream of an environment; the upstream access secret is read from standard input')
    .requiredOption('--environment <key>', 'the environment that will hold the cards')
    .requiredOption('--url <url>', 'the upstream base URL, e.g. https://core.spreedly.com')
    .requiredOption('--upstream-environment <key>', 'the environment key at the upstream')
    .requiredOption('--public-url <url>', 'where the upstream can reach this Coffer')
    .option('--receiver-token <token>', 'an existing receiver at the upstream that delivers to this Coffer')
    .addOption(json())
    .action((opts: JsonFlag & { environment: string; url: string; upstreamEnvironment: string; publicUrl: string; receiverToken?: string }) =>
      withCore(async (core) => {
        await core.tenancy.requireEnvironment(opts.environment);
        const secret = await readStdin();
        const set = await core.upstreams.settings.set(opts.environment, {
          url: opts.url,
          environmentKey: opts.upstreamEnvironment,
          accessSecret: secret,
          publicUrl: opts.publicUrl,
          receiverToken: opts.receiverToken,
        });
        printResult(upstreamOut(set), opts.json === true);
      }),
    );
  upstream
    .command('show')
    .description("show an environment's upstream (never its secret) and the migration's progress and failures")
    .requiredOption('--environment <key>', 'the environment whose upstream to show')
    .addOption(json())
    .action((opts: JsonFlag & { environment: string }) =>
      withCore(async (core) => {
        const status = await core.upstreams.settings.status(opts.environment);
        printResult({ ...upstreamOut(status.upstream), failed: status.failedCount, failures: status.failures.map((failure) => `${failure.paymentMethodToken}: ${failure.reason}`) }, opts.json === true);
      }),
    );
  upstream
    .command('clear')
    .description('forget the upstream of an environment (cards already copied stay)')
    .requiredOption('--environment <key>', 'the environment whose upstream to forget')
    .addOption(json())
    .action((opts: JsonFlag & { environment: string }) =>
      withCore(async (core) => {
        await core.upstreams.settings.clear(opts.environment);
        printResult({ environment_key: opts.environment, upstream: null }, opts.json === true);
      }),
    );
  upstream
    .command('backfill')
    .description('copy every retained payment method of the upstream (resumes where an interrupted walk stopped)')
    .requiredOption('--environment <key>', 'the environment whose upstream to walk')
    .option('--restart', 'walk from the beginning again (what is here already is not copied twice)', false)
    .addOption(json())
    .action((opts: JsonFlag & { environment: string; restart: boolean }) =>
      withCore(async (core) => {
        const environment = await core.tenancy.requireEnvironment(opts.environment);
        const timer = setInterval(() => {
          void core.upstreams.settings.show(environment.key).then((current) => {
            process.stderr.write(`coffer: backfill ${current.backfill.state}: ${current.backfill.seen} seen, ${current.backfill.backfilled} copied, ${current.backfill.failed} failed\n`);
          }, () => undefined);
        }, 2_000);
        try {
          await core.upstreams.backfill.run(environment, { restart: opts.restart });
        } finally {
          clearInterval(timer);
        }
        const status = await core.upstreams.settings.status(environment.key);
        printResult({ ...upstreamOut(status.upstream), failed: status.failedCount }, opts.json === true);
      }),
    );
}
