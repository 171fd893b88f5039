import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, killAllServed, repoRoot, runCoffer, startServe } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The wallet roots Coffer ships (Apple Root CA - G3, Google's test key set) are files tsc does not
 * emit: `npm run build` copies them into dist/ (scripts/copy-assets.mjs). The built server must
 * find them, or it would not start (the roots are read at start-up, fingerprint checked).
 */

const ROOTS = ['apple-root-ca-g3.pem', 'google-pay-test-keys.json'];

describe('wallet roots in the build', () => {
  beforeAll(async () => {
    await ensureBuilt();
  }, 300_000);

  afterEach(async () => {
    await killAllServed();
  });

  it('copies every shipped root into dist/, byte for byte', () => {
    for (const file of ROOTS) {
      const built = path.join(repoRoot, 'dist', 'vault', 'wallets', 'roots', file);
      expect(fs.existsSync(built), file).toBe(true);
      expect(fs.readFileSync(built).equals(fs.readFileSync(path.join(repoRoot, 'src', 'vault', 'wallets', 'roots', file))), file).toBe(true);
    }
  });

  it('serves from dist/ with the shipped roots (no override)', async () => {
    const temp = tempDir();
    try {
      const served = await startServe({ COFFER_DATA_DIR: temp.dir });
      expect(served.url).toMatch(/^https:\/\//);
      served.kill();
      await served.exited;
    } finally {
      temp.cleanup();
    }
  }, 60_000);

  it('refuses to start when COFFER_APPLE_PAY_ROOT_CA names a file that is not a certificate, saying which', async () => {
    const temp = tempDir();
    try {
      const notPem = path.join(temp.dir, 'root.pem');
      fs.writeFileSync(notPem, 'not a certificate');
      const result = await runCoffer(['serve'], { COFFER_DATA_DIR: temp.dir, COFFER_PORT: '0', COFFER_APPLE_PAY_ROOT_CA: notPem });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('Apple Pay root CA file is not a PEM certificate');
    } finally {
      temp.cleanup();
    }
  }, 60_000);
});
