import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { probeDisk } from '../../bench/disk-probe.js';
import { tempDir } from '../helpers/temp.js';

describe('bench disk probe (the fdatasync floor under every durable commit)', () => {
  let cleanup: (() => void) | null = null;
  afterEach(() => {
    cleanup?.();
    cleanup = null;
  });

  it('times real fdatasync calls in the given directory and leaves nothing behind', () => {
    const temp = tempDir('disk-probe-');
    cleanup = temp.cleanup;
    const dir = temp.dir;
    const probe = probeDisk(20, dir);
    expect(probe.directory).toBe(dir);
    expect(probe.p50_ms).toBeGreaterThan(0);
    expect(probe.p99_ms).toBeGreaterThanOrEqual(probe.p50_ms);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('fails loudly when the directory cannot be written, rather than reporting a floor of nothing', () => {
    expect(() => probeDisk(5, '/nonexistent-directory-for-the-probe')).toThrow(/ENOENT/);
  });
});
