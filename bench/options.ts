import { SCENARIO_TITLES, type ScenarioId } from './scenarios.js';
import type { BenchMasterKeyProvider } from './hsm-provider.js';

/** How `npm run bench` runs, from its flags and environment. */
export interface BenchOptions {
  quick: boolean;
  /** Print one JSON object on stdout instead of the table. */
  json: boolean;
  connections: number;
  durationSeconds: number;
  /** An unmeasured run before each measured one (JIT, connection pools, SQLite page cache). */
  warmupSeconds: number;
  /** PostgreSQL server to create a scratch database on (COFFER_BENCH_DATABASE_URL); null: SQLite only. */
  postgresUrl: string | null;
  /** Another checkout (built) measured in the same run, scenario by scenario, for before/after figures. */
  compareDir: string | null;
  /** Profile the purchase path (`--cpu-prof`) instead of the full run. */
  profile: boolean;
  /** With --compare: both builds in one process, alternating rounds (see in-process-ab.ts). */
  inProcess: boolean;
  /**
   * Measured runs per scenario and build, the builds' order swapped every round; the report shows
   * each build's median round and, with --compare, the CPU ratio of every round (rounds.ts).
   */
  rounds: number;
  /** Run only these scenarios (all when undefined). */
  only: ScenarioId[] | undefined;
  /** Where Coffer's master key lives (COFFER_BENCH_MASTER_KEY_PROVIDER: env, the default, or pkcs11 on SoftHSM2). */
  masterKeyProvider: BenchMasterKeyProvider;
}

export class OptionsError extends Error {}

export const USAGE = `usage: npm run bench -- [--quick] [--json] [--only id,id] [--compare DIR] [--profile] [--connections N] [--duration S]
  --quick          3 s per run (under a minute in all); also \`npm run bench --quick\`
  --json           one JSON object on stdout; also \`npm run bench --json\`
  --only           scenarios: ${Object.keys(SCENARIO_TITLES).join(', ')}
  --compare DIR    also measure the Coffer checkout in DIR (built), run for run, as "compare"
  --profile        CPU-profile Coffer under the JSON purchase load; print the costliest functions
  --in-process     with --compare: both builds in one process, alternating rounds, cost per request
  --rounds N       N measured runs per scenario and build, the order swapped each round (default 1)
  COFFER_BENCH_DATABASE_URL=postgres://…   also run every scenario on PostgreSQL (scratch database)
  COFFER_BENCH_MASTER_KEY_PROVIDER=pkcs11  the master key in a SoftHSM2 token made for the run (default env)`;

function positive(flag: string, raw: string | undefined): number {
  const value = Number(raw);
  if (raw === undefined || !Number.isInteger(value) || value < 1) throw new OptionsError(`${flag} needs a positive integer`);
  return value;
}

/**
 * Parses the bench's flags. `npm run bench --quick` (no `--`) reaches the script only as
 * npm_config_quick=true in the environment, so that spelling is honoured too.
 */
export function parseBenchOptions(argv: readonly string[], env: Record<string, string | undefined>): BenchOptions {
  let quick = env.npm_config_quick === 'true';
  let json = env.npm_config_json === 'true';
  let connections = 10;
  let duration: number | null = null;
  let compareDir: string | null = null;
  let profile = false;
  let inProcess = false;
  let rounds = 1;
  let only: ScenarioId[] | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index] as string;
    const value = () => {
      index += 1;
      return argv[index];
    };
    if (flag === '--quick') quick = true;
    else if (flag === '--json') json = true;
    else if (flag === '--profile') profile = true;
    else if (flag === '--in-process') inProcess = true;
    else if (flag === '--connections') connections = positive(flag, value());
    else if (flag === '--duration') duration = positive(flag, value());
    else if (flag === '--rounds') rounds = positive(flag, value());
    else if (flag === '--compare') {
      const dir = value();
      if (dir === undefined || dir.startsWith('--')) throw new OptionsError('--compare needs a directory');
      compareDir = dir;
    } else if (flag === '--only') {
      const ids = (value() ?? '').split(',').filter((id) => id !== '');
      const unknown = ids.filter((id) => !(id in SCENARIO_TITLES));
      if (ids.length === 0 || unknown.length > 0) throw new OptionsError(`--only takes scenario ids (${Object.keys(SCENARIO_TITLES).join(', ')})`);
      only = ids as ScenarioId[];
    } else throw new OptionsError(`unknown option ${flag}`);
  }
  const postgresUrl = env.COFFER_BENCH_DATABASE_URL?.trim() ? (env.COFFER_BENCH_DATABASE_URL.trim() as string) : null;
  if (postgresUrl !== null && !/^postgres(ql)?:\/\//.test(postgresUrl)) throw new OptionsError('COFFER_BENCH_DATABASE_URL must be a postgres:// URL');
  if (inProcess && compareDir === null) throw new OptionsError('--in-process needs --compare DIR');
  const provider = env.COFFER_BENCH_MASTER_KEY_PROVIDER?.trim() || 'env';
  if (provider !== 'env' && provider !== 'pkcs11') throw new OptionsError('COFFER_BENCH_MASTER_KEY_PROVIDER must be env or pkcs11');
  return {
    quick,
    json,
    connections,
    durationSeconds: duration ?? (quick ? 3 : 10),
    warmupSeconds: quick ? 1 : 3,
    postgresUrl,
    compareDir,
    profile,
    inProcess,
    rounds,
    only,
    masterKeyProvider: provider,
  };
}
