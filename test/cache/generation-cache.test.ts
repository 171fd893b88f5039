import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/cache/bounded-map.js';
import { GenerationCache } from '../../src/cache/generation-cache.js';

/** A cache over a generation the test moves by hand, and a counter of loads. */
function harness(capacity = 10) {
  let generation = 1;
  const cache = new GenerationCache(async () => generation);
  const region = cache.region<{ value: string }>('things', capacity);
  let loads = 0;
  const load = (value: string) => async () => {
    loads += 1;
    return { value };
  };
  return {
    cache,
    region,
    load,
    loads: () => loads,
    bump: () => {
      generation += 1;
    },
  };
}

/** A promise the test settles. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('BoundedMap', () => {
  it('holds at most its capacity, dropping the least recently used entry', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1); // a is now the most recent
    map.set('c', 3);
    expect(map.size).toBe(2);
    expect(map.get('b')).toBeUndefined();
    expect(map.get('a')).toBe(1);
    expect(map.get('c')).toBe(3);
    map.set('a', 10); // replacing does not evict
    expect(map.size).toBe(2);
    expect(map.get('a')).toBe(10);
  });

  it('refuses a capacity below one', () => {
    expect(() => new BoundedMap(0)).toThrow(/capacity of at least 1/);
    expect(() => new BoundedMap(1.5)).toThrow(/capacity of at least 1/);
  });
});

describe('GenerationCache', () => {
  it('serves a value read under the current generation without loading it again', async () => {
    const { cache, region, load, loads } = harness();
    const first = await region.read(await cache.begin(), 'k', load('one'));
    const second = await region.read(await cache.begin(), 'k', load('two'));
    expect(second).toBe(first);
    expect(second?.value).toBe('one');
    expect(loads()).toBe(1);
    expect(cache.stats()).toMatchObject({ generationReads: 2, generation: 1, regions: { things: { hits: 1, misses: 1, size: 1, capacity: 10 } } });
  });

  it('drops every region when the store generation moves', async () => {
    const { cache, region, load, loads, bump } = harness();
    const other = cache.region<{ value: string }>('others', 10);
    await region.read(await cache.begin(), 'k', load('old'));
    await other.read(await cache.begin(), 'k', load('old'));
    bump();
    const generation = await cache.begin();
    expect(cache.stats().regions.others!.size).toBe(0);
    expect((await region.read(generation, 'k', load('new')))?.value).toBe('new');
    expect(loads()).toBe(3);
  });

  it('uses but never keeps a value whose load raced a newer generation', async () => {
    const { cache, region, bump } = harness();
    const early = await cache.begin();
    const slow = deferred<{ value: string }>();
    const pending = region.read(early, 'k', () => slow.promise);
    bump();
    const late = await cache.begin();
    slow.resolve({ value: 'maybe stale' });
    expect((await pending)?.value).toBe('maybe stale');
    expect(cache.stats().regions.things!.size).toBe(0);
    expect((await region.read(late, 'k', async () => ({ value: 'fresh' })))?.value).toBe('fresh');
    expect(cache.stats().regions.things!.size).toBe(1);
  });

  it('a generation read that arrives after a newer one neither empties the cache nor stores under it', async () => {
    let next = 5;
    const cache = new GenerationCache(async () => next);
    const region = cache.region<{ value: string }>('things', 10);
    await region.read(await cache.begin(), 'k', async () => ({ value: 'at 5' }));
    next = 4; // a reply overtaken by a newer one (a pool of connections)
    const older = await cache.begin();
    expect(cache.stats().generation).toBe(5);
    // What the cache holds is at least as new as generation 4 asks for.
    expect((await region.read(older, 'k', async () => ({ value: 'reloaded' })))?.value).toBe('at 5');
    expect((await region.read(older, 'other', async () => ({ value: 'at 4' })))?.value).toBe('at 4');
    expect(cache.stats().regions.things!.size).toBe(1);
  });

  it('does not cache an absent value', async () => {
    const { cache, region } = harness();
    let loads = 0;
    const absent = async () => {
      loads += 1;
      return undefined;
    };
    expect(await region.read(await cache.begin(), 'k', absent)).toBeUndefined();
    expect(await region.read(await cache.begin(), 'k', absent)).toBeUndefined();
    expect(loads).toBe(2);
  });

  it('freezes what it hands out and stamps it with its generation, bundled rows included', async () => {
    let next = 7;
    const cache = new GenerationCache(async () => next);
    const region = cache.region<{ row: { name: string } }>('bundles', 10);
    const bundle = (await region.read(await cache.begin(), 'k', async () => ({ row: { name: 'x' } })))!;
    expect(Object.isFrozen(bundle)).toBe(true);
    expect(Object.isFrozen(bundle.row)).toBe(true);
    expect(() => {
      (bundle.row as { name: string }).name = 'y';
    }).toThrow(TypeError);
    next = 8;
    const reads = cache.stats().generationReads;
    // Within the request that got the row: its generation, no second read.
    expect(await cache.generationFor(bundle.row)).toBe(7);
    expect(cache.stats().generationReads).toBe(reads);
    // A row from elsewhere: the store is asked.
    expect(await cache.generationFor({ name: 'elsewhere' })).toBe(8);
    expect(cache.stats().generationReads).toBe(reads + 1);
  });

  it('keeps each region within its capacity', async () => {
    const { cache, region, load } = harness(3);
    const generation = await cache.begin();
    for (let i = 0; i < 10; i++) await region.read(generation, `k${i}`, load(`v${i}`));
    expect(cache.stats().regions.things).toMatchObject({ size: 3, capacity: 3 });
  });

  it('refuses two regions of one name', () => {
    const { cache } = harness();
    expect(() => cache.region('things', 1)).toThrow(/exists already/);
  });
});

describe('GenerationCache with batched reads', () => {
  it('requests that begin in one turn share one read, sent after all of them began', async () => {
    let generation = 3;
    const sent: number[] = [];
    const cache = new GenerationCache(
      async () => {
        sent.push(generation);
        return generation;
      },
      { batchReads: true },
    );
    const together = [cache.begin(), cache.begin(), cache.begin()];
    // A change committed after these requests began but before their read is sent: they see it.
    generation = 4;
    expect(await Promise.all(together)).toEqual([4, 4, 4]);
    expect(cache.stats().generationReads).toBe(1);
    // A request beginning after the read was sent gets a read of its own.
    generation = 5;
    expect(await cache.begin()).toBe(5);
    expect(sent).toEqual([4, 5]);
  });

  it('a request that begins while a shared read is in flight waits for the next one', async () => {
    let generation = 1;
    const release: Array<() => void> = [];
    const cache = new GenerationCache(
      () =>
        new Promise<number>((resolve) => {
          const value = generation;
          release.push(() => resolve(value));
        }),
      { batchReads: true },
    );
    const first = cache.begin();
    while (release.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // The first read is in flight (it read generation 1); a change commits; a new request begins.
    generation = 2;
    const second = cache.begin();
    release.shift()!();
    expect(await first).toBe(1);
    while (release.length === 0) await new Promise((resolve) => setImmediate(resolve));
    release.shift()!();
    expect(await second).toBe(2);
    expect(cache.stats().generationReads).toBe(2);
  });
});
