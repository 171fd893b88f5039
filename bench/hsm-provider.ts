import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cofferBin, runCofferCommand } from './coffer-process.js';

/** The master key providers the bench can run Coffer with (COFFER_BENCH_MASTER_KEY_PROVIDER; docs/key-custody.md). */
export type BenchMasterKeyProvider = 'env' | 'pkcs11';

const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';
const TOKEN_LABEL = 'coffer-bench';

/**
 * A SoftHSM2 token of the run's own under `dir`, with the master key created inside it by
 * `coffer master-key create-hsm-key`; the COFFER_* settings (and SOFTHSM2_CONF) a Coffer then runs with.
 */
export async function pkcs11BenchEnv(dir: string, base: Record<string, string>, bin = cofferBin): Promise<Record<string, string>> {
  if (!fs.existsSync(SOFTHSM_MODULE)) throw new Error(`COFFER_BENCH_MASTER_KEY_PROVIDER=pkcs11 needs SoftHSM2 (${SOFTHSM_MODULE}): apt-get install softhsm2`);
  const tokens = path.join(dir, 'tokens');
  fs.mkdirSync(tokens, { recursive: true, mode: 0o700 });
  const conf = path.join(dir, 'softhsm2.conf');
  fs.writeFileSync(conf, `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  const pin = '1234';
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', TOKEN_LABEL, '--pin', pin, '--so-pin', '5678'], { env: { ...process.env, SOFTHSM2_CONF: conf }, stdio: 'pipe' });
  const pinFile = path.join(dir, 'pin');
  fs.writeFileSync(pinFile, `${pin}\n`, { mode: 0o600 });
  const env: Record<string, string> = {
    ...base,
    COFFER_MASTER_KEY_PROVIDER: 'pkcs11',
    COFFER_PKCS11_MODULE: SOFTHSM_MODULE,
    COFFER_PKCS11_TOKEN_LABEL: TOKEN_LABEL,
    COFFER_PKCS11_PIN_FILE: pinFile,
    SOFTHSM2_CONF: conf,
  };
  await runCofferCommand(['master-key', 'create-hsm-key', '--json'], env, bin);
  return env;
}
