import { describe, expect, it } from 'vitest';
import { areaOf, formatProfile, summarizeProfile, type CpuProfile } from '../../bench/cpu-profile.js';
import { percentile, summarizeLatencies } from '../../bench/latency.js';

describe('latency percentiles', () => {
  it('takes the nearest rank', () => {
    const sorted = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(percentile(sorted, 50)).toBe(5);
    expect(percentile(sorted, 90)).toBe(9);
    expect(percentile(sorted, 99)).toBe(10);
    expect(percentile(new Float64Array(0), 50)).toBe(0);
  });

  it('summarises unsorted response times at sub-millisecond resolution', () => {
    expect(summarizeLatencies([0.25, 0.125, 3.5, 0.5])).toEqual({ p50: 0.25, p90: 3.5, p99: 3.5, max: 3.5, mean: 1.094 });
    expect(summarizeLatencies([])).toEqual({ p50: 0, p90: 0, p99: 0, max: 0, mean: 0 });
  });
});

describe('CPU profile summary', () => {
  // root → handler (coffer) → query (kysely) ; root → (idle) ; root → (garbage collector)
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 4, 5] },
      { id: 2, callFrame: { functionName: 'direct', url: 'file:///srv/coffer/dist/services/transactions/gateway-transaction.service.js', lineNumber: 40 }, children: [3] },
      { id: 3, callFrame: { functionName: 'executeQuery', url: 'file:///srv/coffer/node_modules/kysely/dist/esm/dialect/sqlite/sqlite-driver.js', lineNumber: 59 } },
      { id: 4, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
      { id: 5, callFrame: { functionName: '(garbage collector)', url: '', lineNumber: -1 } },
    ],
    samples: [3, 3, 3, 2, 4, 5],
    timeDeltas: [1000, 1000, 1000, 1000, 5000, 1000],
  };

  it('tells packages, Coffer source files, Node and V8 apart', () => {
    expect(areaOf('file:///x/node_modules/@scope/pkg/lib/a.js', 'f')).toBe('pkg @scope/pkg');
    expect(areaOf('file:///x/dist/http/format/xml-codec.js', 'f')).toBe('coffer src/http/format/xml-codec.ts');
    expect(areaOf('node:internal/streams/readable', 'f')).toBe('node internals');
    expect(areaOf('', '(garbage collector)')).toBe('(garbage collector)');
  });

  it('sums self time, leaves idle out of the busy time, and counts Coffer functions inclusively', () => {
    const summary = summarizeProfile(profile);
    expect(summary.busyMs).toBe(5);
    expect(summary.idleMs).toBe(5);
    expect(summary.bySelf[0]).toEqual({ name: 'executeQuery node_modules/kysely/dist/esm/dialect/sqlite/sqlite-driver.js:60', ms: 3, percent: 60 });
    expect(summary.byArea.map((line) => line.name)).toEqual(['pkg kysely', 'coffer src/services/transactions/gateway-transaction.service.ts', '(garbage collector)']);
    expect(summary.cofferInclusive).toEqual([{ name: 'direct dist/services/transactions/gateway-transaction.service.js:41', ms: 4, percent: 80 }]);
    expect(formatProfile(summary)).toContain('busy 5 ms, idle 5 ms');
  });
});
