import { afterAll, expect, it } from 'vitest';
import { pkcs11BenchEnv } from '../../bench/hsm-provider.js';
import { initStore, runCofferCommand } from '../../bench/coffer-process.js';
import { ensureBuilt } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';
import { describeWithSoftHsm } from '../helpers/softhsm.js';

/** The bench's pkcs11 mode (COFFER_BENCH_MASTER_KEY_PROVIDER=pkcs11): a token of its own, the key made in it, a Coffer initialised on it. */
describeWithSoftHsm('bench with the master key in SoftHSM2', () => {
  const temp = tempDir('coffer-bench-hsm-');
  afterAll(() => temp.cleanup());

  it('makes a token and its key, and the CLI initialises and reads a store through it', async () => {
    await ensureBuilt();
    const env = await pkcs11BenchEnv(`${temp.dir}/softhsm`, { COFFER_DATA_DIR: temp.dir });
    expect(env).toMatchObject({ COFFER_MASTER_KEY_PROVIDER: 'pkcs11', COFFER_PKCS11_TOKEN_LABEL: 'coffer-bench' });
    const init = await initStore(env);
    expect(init.access_secret.length).toBeGreaterThan(20);
    // Creating an access secret needs the secret-hash key: unwrapped by the HSM.
    const created = JSON.parse(await runCofferCommand(['access-secrets', 'create', '--organization', init.organization_token, '--json'], env)) as { access_secret: string };
    expect(created.access_secret.length).toBeGreaterThan(20);
    // The key exists once: a second run of the setup would be refused.
    await expect(runCofferCommand(['master-key', 'create-hsm-key'], env)).rejects.toThrow(/already exists/);
  }, 240_000);
});
