// Copies the files src/ reads at run time that tsc does not emit into dist/ (run by `npm run build`
// and the bench scripts after tsc): the wallet roots Coffer ships (docs/wallets.md, "The root").
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Folders of src/ whose files are copied as they are, to the same place under dist/. */
export const ASSET_DIRS = ['vault/wallets/roots'];

// dist/ is `npm run build`'s tree; dist/tools/src/ is the copy of src/ that tsconfig.bench.json
// compiles for the scripts that import src/ directly (bench/import.ts builds a core in process).
for (const dir of ASSET_DIRS) {
  const from = path.join(root, 'src', dir);
  for (const to of [path.join(root, 'dist', dir), path.join(root, 'dist', 'tools', 'src', dir)]) {
    fs.mkdirSync(to, { recursive: true });
    for (const file of fs.readdirSync(from)) fs.copyFileSync(path.join(from, file), path.join(to, file));
  }
}
