import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe } from 'vitest';
import { tempDir } from './temp.js';

/**
 * SoftHSM2 for tests (docs/key-custody.md): a token directory and configuration of the suite's
 * own, named by SOFTHSM2_CONF in this process (the library reads it once, at its first use, so
 * every token of a suite is made before any provider opens a session). Like the other local
 * servers (README, "Development"): suites that need SoftHSM2 are not defined on a machine without
 * it, and where the run asks for it (COFFER_TEST_SOFTHSM=1, set by `.ci/run`, which installs it;
 * or CI=true) its absence fails the run.
 */
export const SOFTHSM_MODULE = process.env.COFFER_TEST_PKCS11_MODULE ?? '/usr/lib/softhsm/libsofthsm2.so';

const installed = fs.existsSync(SOFTHSM_MODULE);

if (!installed && (process.env.COFFER_TEST_SOFTHSM === '1' || process.env.CI === 'true')) {
  throw new Error(`CI must have SoftHSM2 (${SOFTHSM_MODULE}) so the pkcs11 suites run (see .ci/run)`);
}

/** `describe`, defined only when SoftHSM2 is installed (see the module comment). */
export function describeWithSoftHsm(name: string, body: () => void): void {
  if (installed) describe(name, body);
}

export interface SoftHsm {
  /** The SOFTHSM2_CONF file (pass it to child processes). */
  conf: string;
  /** Writes `pin` to a 0600 file under the suite's directory; its path. */
  pinFile(pin: string): string;
  cleanup(): void;
}

export function startSoftHsm(tokens: Array<{ label: string; pin: string }>): SoftHsm {
  if (!fs.existsSync(SOFTHSM_MODULE)) throw new Error(`SoftHSM2 is not installed (${SOFTHSM_MODULE} missing): apt-get install softhsm2, or run .ci/run`);
  const temp = tempDir('coffer-softhsm-');
  const tokenDir = path.join(temp.dir, 'tokens');
  fs.mkdirSync(tokenDir, { mode: 0o700 });
  const conf = path.join(temp.dir, 'softhsm2.conf');
  fs.writeFileSync(conf, `directories.tokendir = ${tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`);
  for (const token of tokens) {
    execFileSync('softhsm2-util', ['--init-token', '--free', '--label', token.label, '--pin', token.pin, '--so-pin', `${token.pin}-so`], {
      env: { ...process.env, SOFTHSM2_CONF: conf },
      stdio: 'pipe',
    });
  }
  process.env.SOFTHSM2_CONF = conf;
  let pins = 0;
  return {
    conf,
    pinFile: (pin) => {
      pins += 1;
      const file = path.join(temp.dir, `pin-${pins}`);
      fs.writeFileSync(file, `${pin}\n`, { mode: 0o600 });
      return file;
    },
    cleanup: temp.cleanup,
  };
}
