import { describe, expect, it } from 'vitest';
import { judge, LATENCY_FACTOR, measureAgain, MEMORY_BOUND_MB, OTHER_LOAD_LIMIT_PERCENT } from '../../drills/availability/availability.drill.js';
import { machineBusyMs, processCpuMs, watchOtherLoad } from '../../drills/availability/other-load.js';
import { ATTACKS } from '../../drills/availability/attacks.js';
import { ATTACK_BODY_BYTES, BODY_SHAPES } from '../../drills/availability/hostile-bodies.js';
import type { VictimSample } from '../../drills/availability/victim.js';

const sample = (p50: number, answered = 100, failed = 0): VictimSample => ({ latency: { p50, p90: p50, p99: p50, max: p50, mean: p50 }, answered, failed });

describe('the availability drill', () => {
  it('has one attack per body shape and kind of route, and the slow-body attacks, under unique ids', () => {
    const ids = ATTACKS.map((attack) => attack.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const shape of Object.keys(BODY_SHAPES)) expect(ids).toEqual(expect.arrayContaining([`${shape}@public`, `${shape}@authenticated`]));
    expect(ATTACKS.filter((attack) => attack.goal === 'memory').map((attack) => attack.id)).toEqual(['slow-bodies', 'slow-bodies@authenticated']);
  });

  it.each(Object.entries(BODY_SHAPES))('%s: a body of just under 1 MiB, of its shape', (shape, make) => {
    const body = make();
    expect(body.bytes.length).toBeLessThanOrEqual(ATTACK_BODY_BYTES);
    expect(body.bytes.length).toBeGreaterThan(ATTACK_BODY_BYTES - 64);
    const text = body.bytes.toString('utf8');
    if (body.contentType === 'application/json') expect(() => JSON.parse(text)).not.toThrow();
    if (shape === 'xml-attributes') expect(text.split('="1"').length - 1).toBeGreaterThan(80_000);
    if (shape === 'form') expect([...new URLSearchParams(text)].length).toBeGreaterThan(45_000);
  });

  it(`fails a latency attack whose victim p50 passes ${LATENCY_FACTOR}× idle, or whose victim fails`, () => {
    const latency = { goal: 'latency' as const };
    expect(judge(latency, sample(4), sample(8), 100)).toEqual([]);
    expect(judge(latency, sample(4), sample(8.1), 100)).toEqual(["the victim's p50 under attack, 8.10 ms, is over 2× its idle p50 of 4.00 ms"]);
    // An idle victim here answers in a quarter of a millisecond: the figures keep two decimals.
    expect(judge(latency, sample(0.25), sample(0.51), 100)).toEqual(["the victim's p50 under attack, 0.51 ms, is over 2× its idle p50 of 0.25 ms"]);
    expect(judge(latency, sample(4), sample(4, 10, 2), 100)).toEqual(['2 victim requests failed under attack']);
    expect(judge(latency, sample(4), sample(0, 0, 0), 100)).toEqual(['the victim got no answer under attack']);
  });

  it(`fails a memory attack that takes the server to ${MEMORY_BOUND_MB} MiB, whatever the victim's latency`, () => {
    const memory = { goal: 'memory' as const };
    expect(judge(memory, sample(1), sample(50), MEMORY_BOUND_MB - 1)).toEqual([]);
    expect(judge(memory, sample(1), sample(1), MEMORY_BOUND_MB)).toEqual([`the server's RSS reached ${MEMORY_BOUND_MB} MiB (bound ${MEMORY_BOUND_MB})`]);
  });

  it(`measures a latency miss again only when other processes used more than ${OTHER_LOAD_LIMIT_PERCENT}% of a core meanwhile`, () => {
    const latency = { goal: 'latency' as const };
    const miss = ['the victim p50 …'];
    expect(measureAgain(latency, miss, { idle: 3, attacked: 60 })).toBe(true);
    expect(measureAgain(latency, miss, { idle: 40, attacked: 2 })).toBe(true);
    expect(measureAgain(latency, miss, { idle: 3, attacked: OTHER_LOAD_LIMIT_PERCENT })).toBe(false);
    expect(measureAgain(latency, miss, { idle: null, attacked: null })).toBe(false);
    expect(measureAgain(latency, [], { idle: 90, attacked: 90 })).toBe(false);
    expect(measureAgain({ goal: 'memory' }, miss, { idle: 90, attacked: 90 })).toBe(false);
  });

  it("reads the machine's busy time and a process's CPU time from /proc", () => {
    // user nice system idle iowait irq softirq steal guest guest_nice, in ticks of 10 ms
    expect(machineBusyMs('cpu  100 2 30 5000 7 1 20 3 0 0\ncpu0 50 1 15 2500 3 0 10 1 0 0\n')).toBe((100 + 2 + 30 + 1 + 20 + 3) * 10);
    expect(machineBusyMs('intr 1 2 3\n')).toBeNull();
    // A command name with spaces and parentheses: fields count from the last ')'.
    const stat = '4242 (node (worker) x) S 1 4242 4242 0 -1 4194560 500 0 0 0 250 75 0 0 20 0 11 0 1000 100000 2000';
    expect(processCpuMs(4242, stat)).toBe((250 + 75) * 10);
    expect(processCpuMs(-1)).toBeNull();
    if (machineBusyMs() !== null) {
      expect(processCpuMs(process.pid)).toBeGreaterThan(0);
      const load = watchOtherLoad([process.pid]);
      expect(load.stop()).toBeGreaterThanOrEqual(0);
    }
  });
});
