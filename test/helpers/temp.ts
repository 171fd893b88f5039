import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh private directory under the OS temp dir; removed by `cleanup`. */
export function tempDir(prefix = 'coffer-test-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
