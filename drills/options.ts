import { AVAILABILITY_IDS } from './availability/availability.drill.js';

/** How `npm run drill` runs. */
export interface DrillOptions {
  quick: boolean;
  json: boolean;
  /** PostgreSQL server for the PostgreSQL drills (COFFER_BENCH_DATABASE_URL); null: SQLite only. */
  postgresUrl: string | null;
  only: DrillId[] | undefined;
  fuzzRuns: number;
  fuzzSeed: number;
  /** The availability drill's attacks to run (all when undefined). */
  attacks: string[] | undefined;
}

export const DRILL_IDS = ['kill9', 'pg-restart', 'fuzz', 'availability'] as const;
export type DrillId = (typeof DRILL_IDS)[number];

export class DrillOptionsError extends Error {}

export const DRILL_USAGE = `usage: npm run drill -- [--quick] [--json] [--only kill9,pg-restart,fuzz,availability] [--fuzz-runs N] [--seed N] [--attacks ID,…]
  --attacks                                the availability drill's attacks to run: ${AVAILABILITY_IDS.join(', ')}
  COFFER_BENCH_DATABASE_URL=postgres://…   also run the kill -9 drill on PostgreSQL and the PostgreSQL restart drill
                                           (which restarts that local cluster with pg_ctlcluster)`;

/** Parses the drill runner's flags (and `npm run drill --quick`, seen as npm_config_quick). */
export function parseDrillOptions(argv: readonly string[], env: Record<string, string | undefined>): DrillOptions {
  let quick = env.npm_config_quick === 'true';
  let json = env.npm_config_json === 'true';
  let only: DrillId[] | undefined;
  let fuzzRuns: number | null = null;
  let fuzzSeed = 7;
  let attacks: string[] | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index];
    const value = () => argv[++index];
    const integer = () => {
      const raw = value();
      if (raw === undefined || !/^\d+$/.test(raw) || Number(raw) < 1) throw new DrillOptionsError(`${flag} needs a positive integer`);
      return Number(raw);
    };
    if (flag === '--quick') quick = true;
    else if (flag === '--json') json = true;
    else if (flag === '--fuzz-runs') fuzzRuns = integer();
    else if (flag === '--seed') fuzzSeed = integer();
    else if (flag === '--attacks') {
      const ids = (value() ?? '').split(',').filter((id) => id !== '');
      const known = AVAILABILITY_IDS;
      if (ids.length === 0 || ids.some((id) => !known.includes(id))) throw new DrillOptionsError(`--attacks takes ${known.join(', ')}`);
      attacks = ids;
    } else if (flag === '--only') {
      const ids = (value() ?? '').split(',').filter((id) => id !== '');
      if (ids.length === 0 || ids.some((id) => !(DRILL_IDS as readonly string[]).includes(id))) throw new DrillOptionsError(`--only takes ${DRILL_IDS.join(', ')}`);
      only = ids as DrillId[];
    } else throw new DrillOptionsError(`unknown option ${flag}`);
  }
  const raw = env.COFFER_BENCH_DATABASE_URL?.trim();
  const postgresUrl = raw === undefined || raw === '' ? null : raw;
  if (postgresUrl !== null && !/^postgres(ql)?:\/\//.test(postgresUrl)) throw new DrillOptionsError('COFFER_BENCH_DATABASE_URL must be a postgres:// URL');
  return { quick, json, postgresUrl, only, fuzzRuns: fuzzRuns ?? (quick ? 40 : 250), fuzzSeed, attacks };
}
