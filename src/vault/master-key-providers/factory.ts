import type { MasterKeyChecksRepository } from '../../store/interfaces/master-key-checks.js';
import { resolveMasterKey } from '../master-key.js';
import { InProcessMasterKey } from './in-process.js';
import { Pkcs11MasterKey, type Pkcs11Options } from './pkcs11.js';
import type { Pkcs11Settings } from './pkcs11-settings.js';
import type { MasterKeyProvider, MasterKeyProviderKind } from './provider.js';
import { SharesMasterKey } from './shares.js';

/** What the providers are built from (the parts of the configuration that name key material). */
export interface ProviderSources {
  dataDir: string;
  /** COFFER_MASTER_KEY, or null. */
  masterKey: Buffer | null;
  pkcs11: Pkcs11Settings | null;
  /** The split keys' check values (shares). */
  checks: MasterKeyChecksRepository;
  now?: () => Date;
  pkcs11Options?: Pkcs11Options;
}

export interface OpenedProvider {
  provider: MasterKeyProvider;
  /** Set when the file provider generated `<dataDir>/master.key` on this call. */
  generatedFile: string | null;
}

/**
 * The provider of `kind` (docs/key-custody.md). `file` reads `<dataDir>/master.key` and makes one
 * when there is none; `env` takes COFFER_MASTER_KEY; `pkcs11` opens its session on first use;
 * `shares` starts sealed.
 */
export async function openMasterKeyProvider(kind: MasterKeyProviderKind, sources: ProviderSources): Promise<OpenedProvider> {
  switch (kind) {
    case 'file': {
      const local = resolveMasterKey(null, sources.dataDir);
      const provider = new InProcessMasterKey('file', local.key);
      local.key.fill(0);
      return { provider, generatedFile: local.created ? local.localFile : null };
    }
    case 'env':
      if (sources.masterKey === null) throw new Error('COFFER_MASTER_KEY is not set (the env master key provider reads it)');
      return { provider: new InProcessMasterKey('env', sources.masterKey), generatedFile: null };
    case 'pkcs11':
      if (sources.pkcs11 === null) throw new Error('COFFER_PKCS11_PIN_FILE (or COFFER_PKCS11_PIN) is not set (the pkcs11 master key provider logs in with it)');
      return { provider: new Pkcs11MasterKey(sources.pkcs11, sources.pkcs11Options), generatedFile: null };
    case 'shares':
      return { provider: await SharesMasterKey.open(sources.checks, sources.now), generatedFile: null };
  }
}
