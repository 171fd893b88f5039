// Copies the files src/ reads at run time that tsc does not emit into dist/ (run by `npm run build`
// and the bench scripts after tsc): the wallet roots Coffer ships (docs/wallets.md, "The root").
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Folders of src/ whose files are copied as they are, to the same place under dist/. */
export const ASSET_DIRS = ['vault/wallets/roots'];

/** Where compiled src/ lands: dist/ (the build) and dist/tools/src/ (the bench scripts' build, tsconfig.bench.json). */
const OUT_DIRS = ['dist', 'dist/tools/src'];

for (const dir of ASSET_DIRS) {
  const from = path.join(root, 'src', dir);
  for (const out of OUT_DIRS) {
    const to = path.join(root, out, dir);
    fs.mkdirSync(to, { recursive: true });
    for (const file of fs.readdirSync(from)) fs.copyFileSync(path.join(from, file), path.join(to, file));
  }
}
