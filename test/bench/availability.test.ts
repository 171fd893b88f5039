import { describe, expect, it } from 'vitest';
import { judge, LATENCY_FACTOR, MEMORY_BOUND_MB } from '../../drills/availability/availability.drill.js';
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
});
