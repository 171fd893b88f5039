import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { buildCore, type Core } from './app.js';
import { isRole, type Role } from './domain/tenancy.js';
import { NotEmptyError } from './services/tenancy.service.js';
import { migrateStore, openStore } from './store/database.js';
import { fail, printResult } from './cli/output.js';
import { userCommands } from './cli/users.js';
import { upstreamCommands } from './cli/upstream.js';
import { importCommands } from './cli/imports.js';
import { auditCommands, complianceCommands } from './cli/audit.js';
import { mcpCommand } from './cli/mcp.js';
import { exportCommands } from './cli/exports.js';
import { localMasterKeyFile } from './vault/master-key.js';
import { createDatabaseIfMissing, initialise } from './cli/initialise.js';
import { databaseName, isMissingDatabase } from './store/postgres-database.js';
import { masterKeyCommands, printShares, shareCounts } from './cli/master-key.js';
import { unsealCommand } from './cli/unseal.js';
import { unsealFromStdin } from './cli/share-input.js';
import type { AccessSecret } from './domain/access-secret.js';
import type { Environment } from './domain/environment.js';
import type { Organization } from './domain/organization.js';

type JsonFlag = { json?: boolean };

function config(): Config {
  return loadConfig();
}

/** The version in package.json (beside dist/ and src/ alike). */
function packageVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

/**
 * Only `init` and `serve` may create a database or a local master key (README, "The `coffer` CLI"):
 * any other command run from the wrong directory would otherwise make a new empty `./data`, with
 * a new master key, and succeed on it. It says where it looked and stops instead.
 */
function requireExisting(loaded: Config, needs: { masterKey: boolean }): void {
  const hint = 'run `coffer init` (or `coffer serve`) first, or set COFFER_DATA_DIR / COFFER_DATABASE_URL';
  if (loaded.store.kind === 'sqlite' && !fs.existsSync(loaded.store.path)) {
    fail(`no database at ${path.resolve(loaded.store.path)} (data directory ${path.resolve(loaded.dataDir)}); ${hint}`);
  }
  if (needs.masterKey && loaded.masterKeyProvider === 'file' && !fs.existsSync(localMasterKeyFile(loaded.dataDir))) {
    fail(`no master key: COFFER_MASTER_KEY is not set and ${path.resolve(localMasterKeyFile(loaded.dataDir))} does not exist; ${hint}`);
  }
}

/** Opens the core of an existing installation, runs `work`, closes it; any error becomes one stderr line and exit 1. */
async function withCore(work: (core: Core) => Promise<void>): Promise<void> {
  const loaded = config();
  requireExisting(loaded, { masterKey: true });
  await runCore(loaded, work);
}

/**
 * Opens the core (creating the database and local key when there are none), runs `work`, closes it.
 * On a `shares` installation the command unseals its own core from shares on standard input first,
 * unless `sealed` says it works sealed (`init --key-shares` makes the key).
 */
async function runCore(loaded: Config, work: (core: Core) => Promise<void>, sealed: 'unseal' | 'stay-sealed' = 'unseal'): Promise<void> {
  const core = await buildCore(loaded);
  if (core.generatedMasterKeyFile !== null) {
    process.stderr.write(`coffer: warning: generated a local master key at ${core.generatedMasterKeyFile}; production must set COFFER_MASTER_KEY\n`);
  }
  try {
    const seal = core.custody.seal;
    if (seal !== null && seal.sealed() && sealed === 'unseal') {
      if (!seal.status().initialised) fail('no master key was split into shares for this database; run coffer init --key-shares N --threshold M');
      await unsealFromStdin(seal, 'this command');
    }
    await work(core);
  } finally {
    await core.close();
  }
}

const organizationOut = (organization: Organization) => ({ token: organization.token, name: organization.name, active: organization.active, created_at: organization.createdAt });
const environmentOut = (environment: Environment) => ({
  environment_key: environment.key,
  organization_token: environment.organizationToken,
  name: environment.name,
  production: environment.production,
  created_at: environment.createdAt,
});
const secretOut = (secret: AccessSecret) => ({
  access_secret_key: secret.key,
  organization_token: secret.organizationToken,
  name: secret.name,
  role: secret.role,
  environments: secret.environmentKeys ?? 'all',
  revoked: secret.revokedAt !== null,
  created_at: secret.createdAt,
});

const ALL = { sinceToken: null, order: 'asc' as const, count: 1_000_000 };

/** Every command, option and help text of `coffer` (bin/coffer runs `main`; tests walk the help). */
export function program(): Command {
  const cli = new Command('coffer')
    .description('Coffer: self-hosted payment vault and gateway orchestration')
    .version(packageVersion(), '-V, --version', 'print the version')
    // Usage errors follow the same rule as every other failure: one `coffer:` line on stderr.
    .configureOutput({ outputError: (text, write) => write(`coffer: ${text.replace(/^error: /, '').trim()}\n`) });
  const json = () => new Option('--json', 'print machine-readable JSON');

  cli.command('serve').description('serve the v1 API (migrates and, on an empty database, initialises first)').action(async () => {
    // Loaded only here: the HTTP stack is not needed by the other commands and slows their start.
    const { serve } = await import('./cli/serve.js');
    await serve(config());
  });

  cli.command('migrate').description('apply pending migrations to an existing database (init and serve create one)').addOption(json()).action(async (opts: JsonFlag) => {
    const loaded = config();
    requireExisting(loaded, { masterKey: false });
    const store = openStore(loaded.store);
    try {
      const applied = await migrateStore(store);
      printResult({ applied: applied.join(',') || 'none' }, opts.json === true);
    } finally {
      await store.close();
    }
  });

  cli.command('init').description('create the database if there is none (SQLite file or PostgreSQL database), then organization default, environment sandbox, an admin secret and the portal owner')
    .option('--key-shares <n>', 'with COFFER_MASTER_KEY_PROVIDER=shares: split a new master key into this many custodian shares (printed once)')
    .option('--threshold <m>', 'with --key-shares: how many shares unseal a node')
    .addOption(json())
    .action(async (opts: JsonFlag & { keyShares?: string; threshold?: string }) => {
      const counts = shareCounts(opts);
      const loaded = config();
      if (counts !== null && loaded.masterKeyProvider !== 'shares') fail('--key-shares needs COFFER_MASTER_KEY_PROVIDER=shares (the nodes then start sealed)');
      await createDatabaseIfMissing(loaded);
      const printCreated = (created: Awaited<ReturnType<typeof initialise>>) =>
        printResult(
          {
            organization_token: created.organization_token,
            environment_key: created.environment_key,
            access_secret_key: created.access_secret_key,
            access_secret: created.access_secret,
            portal_email: created.owner?.user.email ?? null,
            portal_password: created.owner?.password ?? null,
          },
          opts.json === true,
        );
      if (counts === null) return runCore(loaded, async (core) => printCreated(await initialise(core)));
      return runCore(
        loaded,
        async (core) => {
          const seal = core.custody.seal;
          if (seal === null || seal.status().initialised) fail('this database has a split master key already (coffer master-key rotate --to moves to another)');
          if (!(await core.tenancy.isEmpty())) fail('the database is not empty');
          printShares(await seal.initialise(counts.shares, counts.threshold), counts.threshold);
          printCreated(await initialise(core));
        },
        'stay-sealed',
      );
    });

  const orgs = cli.command('organizations').description('manage organizations');
  orgs.command('create').description('create an organization').requiredOption('--name <name>', 'its name').addOption(json()).action((opts: JsonFlag & { name: string }) =>
    withCore(async (core) => printResult(organizationOut(await core.tenancy.createOrganization(opts.name)), opts.json === true)));
  orgs.command('list').description('list every organization').addOption(json()).action((opts: JsonFlag) =>
    withCore(async (core) => printResult((await core.tenancy.listOrganizations()).map(organizationOut), opts.json === true)));
  for (const [verb, active] of [['deactivate', false], ['activate', true]] as const) {
    orgs.command(`${verb} <token>`).description(`${verb} an organization`).addOption(json()).action((token: string, opts: JsonFlag) =>
      withCore(async (core) => printResult(organizationOut(await core.tenancy.setOrganizationActive(token, active)), opts.json === true)));
  }

  const envs = cli.command('environments').description('manage environments');
  envs.command('create').description('create an environment in an organization').requiredOption('--organization <token>', 'the organization').requiredOption('--name <name>', 'its name')
    .option('--production', 'activate for real cards and production gateways', false).addOption(json())
    .action((opts: JsonFlag & { organization: string; name: string; production: boolean }) =>
      withCore(async (core) => printResult(environmentOut(await core.tenancy.createEnvironment(opts.organization, opts.name, opts.production)), opts.json === true)));
  envs.command('list').description("list an organization's environments").requiredOption('--organization <token>', 'the organization').addOption(json()).action((opts: JsonFlag & { organization: string }) =>
    withCore(async (core) => {
      await core.tenancy.requireOrganization(opts.organization);
      printResult((await core.tenancy.listEnvironments(opts.organization, ALL)).map(environmentOut), opts.json === true);
    }));

  const secrets = cli.command('access-secrets').description('manage access secrets');
  secrets.command('create').description('create an access secret (printed once)').requiredOption('--organization <token>', 'the organization')
    .option('--environment <key>', 'limit to this environment (repeatable)', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--role <role>', 'admin, transact or read', 'admin').option('--name <name>', 'a label', 'cli').addOption(json())
    .action((opts: JsonFlag & { organization: string; environment: string[]; role: string; name: string }) => {
      // Checked before the store is opened, so a typo creates nothing.
      if (!isRole(opts.role)) fail(`--role must be admin, transact or read (got ${opts.role})`);
      return withCore(async (core) => {
        const created = await core.tenancy.createAccessSecret(opts.organization, {
          name: opts.name,
          role: opts.role as Role,
          environmentKeys: opts.environment.length === 0 ? null : opts.environment,
        });
        printResult({ access_secret_key: created.accessSecret.key, access_secret: created.secret }, opts.json === true);
      });
    });
  secrets.command('list').description('list access secrets (never the secrets themselves)').option('--organization <token>', "only this organization's").addOption(json()).action((opts: JsonFlag & { organization?: string }) =>
    withCore(async (core) => {
      if (opts.organization !== undefined) await core.tenancy.requireOrganization(opts.organization);
      printResult((await core.tenancy.listAccessSecrets(opts.organization ?? null)).map(secretOut), opts.json === true);
    }));
  secrets.command('revoke <key>').description('revoke an access secret').addOption(json()).action((key: string, opts: JsonFlag) =>
    withCore(async (core) => {
      if (!(await core.tenancy.revokeAccessSecret(key))) fail(`no live access secret ${key}`);
      printResult({ access_secret_key: key, revoked: true }, opts.json === true);
    }));
  masterKeyCommands(cli, withCore, config, json);
  unsealCommand(cli, config, json);
  userCommands(cli, withCore);
  upstreamCommands(cli, withCore, json);
  importCommands(cli, withCore);
  auditCommands(cli, withCore, json);
  complianceCommands(cli, withCore);
  mcpCommand(cli, packageVersion());
  exportCommands(cli, withCore);
  const keys = cli.command('keys').description('rotate encryption keys (see src/vault/README.md)');
  keys.command('rotate-master').description('re-wrap every key under COFFER_MASTER_KEY (old key in COFFER_MASTER_KEY_PREVIOUS)').addOption(json())
    .action((opts: JsonFlag) => withCore(async (core) => printResult({ rewrapped: await core.keyRotation.rotateMaster() }, opts.json === true)));
  keys.command('rotate-data').description("make a new data key current for an environment and re-encrypt its records")
    .requiredOption('--environment <key>', 'the environment')
    .option('--batch-size <n>', 'records per batch', '500')
    .option('--settle-seconds <n>', 'wait for running servers to adopt the new key, then re-encrypt what they wrote meanwhile', '35')
    .addOption(json())
    .action((opts: JsonFlag & { environment: string; batchSize: string; settleSeconds: string }) => {
      const batchSize = Number(opts.batchSize);
      const settleSeconds = Number(opts.settleSeconds);
      if (!Number.isInteger(batchSize) || batchSize < 1) fail('--batch-size must be a positive integer');
      if (!Number.isInteger(settleSeconds) || settleSeconds < 0) fail('--settle-seconds must be a whole number of seconds');
      return withCore(async (core) => {
        await core.tenancy.requireEnvironment(opts.environment);
        const result = await core.keyRotation.rotateData(opts.environment, batchSize);
        await new Promise((resolve) => setTimeout(resolve, settleSeconds * 1000));
        const stragglers = await core.keyRotation.reencrypt(opts.environment, batchSize);
        printResult({ environment_key: result.environmentKey, key_id: result.keyId, reencrypted: result.reencrypted + stragglers }, opts.json === true);
      });
    });
  return cli;
}

/** Entry point of `bin/coffer`. */
export async function main(argv: string[]): Promise<void> {
  // Whatever any command creates is its user's alone (docs/deployment.md, "File permissions"):
  // the code that writes the data directory asks for 0700/0600 itself, and this also covers the
  // files it does not create itself (SQLite's -wal, -shm and -journal, made later, and made again
  // at each open once a clean close removed them) and any file added later without a mode.
  process.umask(0o077);
  try {
    await program().parseAsync(argv);
  } catch (error) {
    if (error instanceof NotEmptyError) fail(error.message);
    if (error instanceof ConfigError) fail(`invalid configuration: ${error.message}`);
    if (isMissingDatabase(error)) {
      const url = loadConfig().store;
      const name = url.kind === 'postgres' ? databaseName(url.url) : '';
      fail(`PostgreSQL database "${name}" (COFFER_DATABASE_URL) does not exist; \`coffer init\` (or \`coffer serve\`) creates it`);
    }
    fail(error instanceof Error ? error.message : String(error));
  }
}

