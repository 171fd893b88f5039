// Builds the card form's browser files into dist/iframe/ with esbuild (run by `npm run build`,
// hence by `npm ci` through `prepare`): the iFrame-compatible script, minified and not, and
// the frames' script and stylesheet. Targets browsers from 2020 on (ES2019, no modules).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'src', 'card-capture', 'client');
const out = path.join(root, 'dist', 'iframe');
fs.mkdirSync(out, { recursive: true });

const common = { bundle: true, format: 'iife', target: ['es2019'], platform: 'browser', legalComments: 'none', logLevel: 'warning' };
await Promise.all([
  build({ ...common, entryPoints: [path.join(source, 'spreedly.ts')], outfile: path.join(out, 'iframe-v1.js'), minify: false }),
  build({ ...common, entryPoints: [path.join(source, 'spreedly.ts')], outfile: path.join(out, 'iframe-v1.min.js'), minify: true }),
  build({ ...common, entryPoints: [path.join(source, 'frame.ts')], outfile: path.join(out, 'frame.js'), minify: true }),
]);
fs.copyFileSync(path.join(source, 'frame.css'), path.join(out, 'frame.css'));
for (const file of fs.readdirSync(out)) console.log(`dist/iframe/${file}: ${fs.statSync(path.join(out, file)).size} bytes`);
