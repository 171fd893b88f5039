/**
 * A map that holds at most `capacity` entries, dropping the least recently used one to make room.
 * A Map iterates in insertion order, so re-inserting on each hit keeps the oldest use first.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`a bounded map needs a capacity of at least 1, not ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, value);
  }

  clear(): void {
    this.entries.clear();
  }
}
