import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The browser files of the card form, built by `npm run build` (esbuild, see
 * scripts/build-card-capture.mjs) into `dist/iframe/` of the package. They are read once and
 * kept in memory: a few kilobytes, served on every checkout page.
 */
export const CARD_CAPTURE_ASSETS = {
  '/iframe/iframe-v1.min.js': { file: 'iframe-v1.min.js', type: 'application/javascript; charset=utf-8' },
  '/iframe/iframe-v1.js': { file: 'iframe-v1.js', type: 'application/javascript; charset=utf-8' },
  '/iframe/v1/frame.js': { file: 'frame.js', type: 'application/javascript; charset=utf-8' },
  '/iframe/v1/frame.css': { file: 'frame.css', type: 'text/css; charset=utf-8' },
} as const;

export type AssetPath = keyof typeof CARD_CAPTURE_ASSETS;

/** The package root: the nearest folder above this module holding package.json (src/ or dist/ alike). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('card capture: package.json not found above the module');
    dir = parent;
  }
  return dir;
}

export const ASSET_DIR = path.join(packageRoot(), 'dist', 'iframe');

const cache = new Map<string, Buffer>();

/** An asset's bytes; throws (a 500 naming no path) when the build has not produced it. */
export function readAsset(assetPath: AssetPath): Buffer {
  const cached = cache.get(assetPath);
  if (cached !== undefined) return cached;
  const bytes = fs.readFileSync(path.join(ASSET_DIR, CARD_CAPTURE_ASSETS[assetPath].file));
  cache.set(assetPath, bytes);
  return bytes;
}
