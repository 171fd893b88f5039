import { describe, expect, it } from 'vitest';
import { OptionsError, parseBenchOptions } from '../../bench/options.js';
import { DrillOptionsError, parseDrillOptions } from '../../drills/options.js';

describe('bench options', () => {
  it('defaults to a full SQLite run of 10 s per scenario', () => {
    expect(parseBenchOptions([], {})).toMatchObject({ quick: false, json: false, durationSeconds: 10, warmupSeconds: 3, connections: 10, rounds: 1, postgresUrl: null, compareDir: null, only: undefined });
  });

  it('takes --quick and --json as flags, or as npm_config_* when npm swallowed them', () => {
    expect(parseBenchOptions(['--quick', '--json'], {})).toMatchObject({ quick: true, json: true, durationSeconds: 3, warmupSeconds: 1 });
    expect(parseBenchOptions([], { npm_config_quick: 'true', npm_config_json: 'true' })).toMatchObject({ quick: true, json: true });
  });

  it('adds PostgreSQL with COFFER_BENCH_DATABASE_URL and refuses other URLs', () => {
    expect(parseBenchOptions([], { COFFER_BENCH_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' }).postgresUrl).toBe('postgres://postgres@127.0.0.1:5432/test');
    expect(() => parseBenchOptions([], { COFFER_BENCH_DATABASE_URL: 'mysql://x' })).toThrow(new OptionsError('COFFER_BENCH_DATABASE_URL must be a postgres:// URL'));
  });

  it('runs with the master key in env by default, in SoftHSM2 with COFFER_BENCH_MASTER_KEY_PROVIDER=pkcs11, and refuses others', () => {
    expect(parseBenchOptions([], {}).masterKeyProvider).toBe('env');
    expect(parseBenchOptions(['--quick'], { COFFER_BENCH_MASTER_KEY_PROVIDER: 'pkcs11' }).masterKeyProvider).toBe('pkcs11');
    expect(() => parseBenchOptions([], { COFFER_BENCH_MASTER_KEY_PROVIDER: 'shares' })).toThrow(new OptionsError('COFFER_BENCH_MASTER_KEY_PROVIDER must be env or pkcs11'));
  });

  it('narrows the scenarios with --only and refuses unknown ones', () => {
    expect(parseBenchOptions(['--only', 'purchase_json,list_transactions'], {}).only).toEqual(['purchase_json', 'list_transactions']);
    expect(() => parseBenchOptions(['--only', 'purchase'], {})).toThrow(OptionsError);
  });

  it('refuses unknown flags, bad numbers, --compare without a directory and --in-process without --compare', () => {
    expect(() => parseBenchOptions(['--fast'], {})).toThrow(new OptionsError('unknown option --fast'));
    expect(() => parseBenchOptions(['--duration', '0'], {})).toThrow(new OptionsError('--duration needs a positive integer'));
    expect(() => parseBenchOptions(['--rounds', '1.5'], {})).toThrow(new OptionsError('--rounds needs a positive integer'));
    expect(parseBenchOptions(['--rounds', '6', '--compare', '/tmp/before'], {})).toMatchObject({ rounds: 6, compareDir: '/tmp/before' });
    expect(() => parseBenchOptions(['--compare'], {})).toThrow(new OptionsError('--compare needs a directory'));
    expect(() => parseBenchOptions(['--in-process'], {})).toThrow(new OptionsError('--in-process needs --compare DIR'));
    expect(parseBenchOptions(['--compare', '/tmp/before', '--in-process'], {})).toMatchObject({ compareDir: '/tmp/before', inProcess: true });
  });
});

describe('drill options', () => {
  it('runs every drill, 250 fuzz cases per endpoint by default and 40 when quick', () => {
    expect(parseDrillOptions([], {})).toMatchObject({ quick: false, only: undefined, fuzzRuns: 250, fuzzSeed: 7, postgresUrl: null });
    expect(parseDrillOptions([], { npm_config_quick: 'true' }).fuzzRuns).toBe(40);
    expect(parseDrillOptions(['--fuzz-runs', '5', '--seed', '9', '--only', 'fuzz'], {})).toMatchObject({ fuzzRuns: 5, fuzzSeed: 9, only: ['fuzz'] });
  });

  it("narrows the availability drill's attacks with --attacks and refuses unknown ones", () => {
    expect(parseDrillOptions(['--only', 'availability', '--attacks', 'json-wide@public,slow-bodies'], {})).toMatchObject({ only: ['availability'], attacks: ['json-wide@public', 'slow-bodies'] });
    expect(parseDrillOptions(['--attacks', 'slow-callbacks,large-pages-xml,large-pages-json'], {}).attacks).toEqual(['slow-callbacks', 'large-pages-xml', 'large-pages-json']);
    expect(parseDrillOptions([], {}).attacks).toBeUndefined();
    expect(() => parseDrillOptions(['--attacks', 'ddos'], {})).toThrow(/^--attacks takes json-deep@public, /);
  });

  it('refuses unknown drills and flags', () => {
    expect(() => parseDrillOptions(['--only', 'chaos'], {})).toThrow(new DrillOptionsError('--only takes kill9, pg-restart, fuzz, availability'));
    expect(() => parseDrillOptions(['--fuzz-runs', 'x'], {})).toThrow(new DrillOptionsError('--fuzz-runs needs a positive integer'));
    expect(() => parseDrillOptions(['--loud'], {})).toThrow(new DrillOptionsError('unknown option --loud'));
  });
});
