import { BoundedMap } from './bounded-map.js';

/** Counters of one region, for tests and the benchmark (never keys or values). */
export interface RegionStats {
  hits: number;
  misses: number;
  size: number;
  capacity: number;
}

export interface CacheStats {
  /** Reads of the store's generation (one query each). */
  generationReads: number;
  /** The highest generation this node has seen; -1 before the first read. */
  generation: number;
  regions: Record<string, RegionStats>;
}

/**
 * Rows kept in this node's memory, trusted exactly as long as the store's cache generation
 * (migration 015) has not moved since they were read. The protocol (docs/caching.md):
 *
 * - a request reads the generation first (`begin`, one query); a generation higher than any
 *   seen before empties every region;
 * - a region serves what it holds: everything in it was loaded after a read of the generation
 *   it holds now, so it is at least as new as the request needs;
 * - a loaded value is stored only when the generation read before loading it is still the
 *   newest seen: a load that raced a newer generation is used once, never kept.
 *
 * Values handed out are frozen (they are shared by concurrent requests) and stamped with the
 * generation they were read under, so lookups later in the same request (its gateway, say)
 * reuse the request's generation instead of reading it again.
 */
export class GenerationCache {
  private newest = -1;
  private reads = 0;
  private readonly regions = new Map<string, CacheRegion<object>>();
  private readonly stamps = new WeakMap<object, number>();
  /** The read the requests of this event-loop turn share, not yet sent (batched reads only). */
  private nextRead: Promise<number> | null = null;

  /**
   * With `batchReads`, the requests that begin in one event-loop turn share one read, sent after
   * all of them began (so it is as exact for each as a read of its own): worth it where a read is
   * a network round trip (PostgreSQL), not where it takes microseconds (SQLite).
   */
  constructor(
    private readonly readGeneration: () => Promise<number>,
    private readonly options: { batchReads: boolean } = { batchReads: false },
  ) {}

  /** A named region of at most `capacity` entries. */
  region<V extends object>(name: string, capacity: number): CacheRegion<V> {
    if (this.regions.has(name)) throw new Error(`cache region ${name} exists already`);
    const region = new CacheRegion<V>(this, capacity);
    this.regions.set(name, region as unknown as CacheRegion<object>);
    return region;
  }

  /** Reads the store's generation (one query); a new one empties every region. */
  async begin(): Promise<number> {
    const generation = await (this.options.batchReads ? this.sharedRead() : this.read());
    if (generation > this.newest) {
      this.newest = generation;
      for (const region of this.regions.values()) region.clear();
    }
    return generation;
  }

  private read(): Promise<number> {
    this.reads += 1;
    return this.readGeneration();
  }

  /** Joins the read of this turn, or schedules it; it is sent once this turn's callbacks ran. */
  private sharedRead(): Promise<number> {
    if (this.nextRead === null) {
      this.nextRead = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        // Whoever begins from now on waits for the next read: this one may precede them.
        this.nextRead = null;
        return this.read();
      });
    }
    return this.nextRead;
  }

  /**
   * The generation to look related rows up with: the one `value` was handed out under when it
   * came from this cache (read at the start of the same request), else a fresh read.
   */
  generationFor(value: object): Promise<number> {
    const stamp = this.stamps.get(value);
    return stamp === undefined ? this.begin() : Promise.resolve(stamp);
  }

  stats(): CacheStats {
    const regions: Record<string, RegionStats> = {};
    for (const [name, region] of this.regions) regions[name] = region.stats();
    return { generationReads: this.reads, generation: this.newest, regions };
  }

  /** @internal Whether a value read under `generation` may be kept. */
  isNewest(generation: number): boolean {
    return generation === this.newest;
  }

  /** @internal Freezes a value (and the rows it bundles) and records its generation. */
  seal<V extends object>(value: V, generation: number): V {
    for (const part of [value, ...Object.values(value)]) {
      if (typeof part !== 'object' || part === null) continue;
      Object.freeze(part);
      this.stamps.set(part, generation);
    }
    return value;
  }
}

/** One kind of cached value (auth contexts, gateways, …), keyed by a string. */
export class CacheRegion<V extends object> {
  private hits = 0;
  private misses = 0;
  private readonly entries: BoundedMap<string, V>;

  constructor(
    private readonly cache: GenerationCache,
    capacity: number,
  ) {
    this.entries = new BoundedMap(capacity);
  }

  /**
   * The value under `key`: the cached one, else `load()`'s (kept when `generation` is still the
   * newest). `generation` must come from `begin` or `generationFor` of this request. Absent
   * values (undefined) are not cached: a miss costs the same as without a cache.
   */
  async read(generation: number, key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const cached = this.entries.get(key);
    if (cached !== undefined) {
      this.hits += 1;
      return cached;
    }
    this.misses += 1;
    const value = await load();
    if (value === undefined) return undefined;
    this.cache.seal(value, generation);
    if (this.cache.isNewest(generation)) this.entries.set(key, value);
    return value;
  }

  /** @internal */
  clear(): void {
    this.entries.clear();
  }

  stats(): RegionStats {
    return { hits: this.hits, misses: this.misses, size: this.entries.size, capacity: this.entries.capacity };
  }
}
