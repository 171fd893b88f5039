import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

/** The key custody variables (docs/key-custody.md, README "Configuration"): defaults, and one line naming each mistake. */

const KEY = Buffer.alloc(32, 7).toString('base64');

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('master key provider configuration', () => {
  it('defaults to today: file without COFFER_MASTER_KEY, env with it', () => {
    expect(loadConfig({}).masterKeyProvider).toBe('file');
    expect(loadConfig({ COFFER_MASTER_KEY: KEY }).masterKeyProvider).toBe('env');
    expect(loadConfig({}).pkcs11).toBeNull();
    expect(loadConfig({}).unseal).toEqual({ host: '127.0.0.1', port: 8444 });
    expect(loadConfig({}).previousMasterKeyProvider).toBeNull();
  });

  it('reads the pkcs11 settings, PIN from a file or the environment, token by label or slot', () => {
    const byLabel = loadConfig({ COFFER_MASTER_KEY_PROVIDER: 'pkcs11', COFFER_PKCS11_PIN_FILE: '/run/secrets/pin', COFFER_PKCS11_TOKEN_LABEL: 'vault' });
    expect(byLabel.masterKeyProvider).toBe('pkcs11');
    expect(byLabel.pkcs11).toEqual({ modulePath: '/usr/lib/softhsm/libsofthsm2.so', token: { label: 'vault' }, pin: { file: '/run/secrets/pin' }, keyLabel: 'coffer-master-key' });
    const bySlot = loadConfig({ COFFER_MASTER_KEY_PROVIDER: 'PKCS11', COFFER_PKCS11_PIN: '1234', COFFER_PKCS11_SLOT: '1899550664', COFFER_PKCS11_KEY_LABEL: 'k2', COFFER_PKCS11_MODULE: '/opt/hsm/lib.so' });
    expect(bySlot.pkcs11).toEqual({ modulePath: '/opt/hsm/lib.so', token: { slot: 1899550664n }, pin: { value: '1234' }, keyLabel: 'k2' });
    expect(loadConfig({ COFFER_PKCS11_PIN: '1234' }).pkcs11?.token).toEqual({ label: 'coffer' });
  });

  it('names each mistake in one line, never the PIN', () => {
    expect(refusal({ COFFER_MASTER_KEY_PROVIDER: 'vault' })).toMatch(/^COFFER_MASTER_KEY_PROVIDER: must be one of file, env, pkcs11, shares$/);
    expect(refusal({ COFFER_MASTER_KEY_PROVIDER: 'env' })).toMatch(/^COFFER_MASTER_KEY_PROVIDER: is env but COFFER_MASTER_KEY is not set$/);
    expect(refusal({ COFFER_MASTER_KEY_PROVIDER: 'pkcs11' })).toMatch(/^COFFER_MASTER_KEY_PROVIDER: is pkcs11: set COFFER_PKCS11_PIN_FILE/);
    expect(refusal({ COFFER_PKCS11_PIN: '98765', COFFER_PKCS11_PIN_FILE: '/pin' })).toBe('COFFER_PKCS11_PIN: set COFFER_PKCS11_PIN or COFFER_PKCS11_PIN_FILE, not both');
    expect(refusal({ COFFER_PKCS11_PIN: '98765', COFFER_PKCS11_TOKEN_LABEL: 'a', COFFER_PKCS11_SLOT: '1' })).toMatch(/^COFFER_PKCS11_SLOT: set COFFER_PKCS11_TOKEN_LABEL or COFFER_PKCS11_SLOT, not both$/);
    expect(refusal({ COFFER_PKCS11_SLOT: 'first' })).toMatch(/^COFFER_PKCS11_SLOT: must be a slot id/);
    expect(refusal({ COFFER_PKCS11_TOKEN_LABEL: 'x'.repeat(33) })).toMatch(/^COFFER_PKCS11_TOKEN_LABEL: must be at most 32 characters/);
    expect(refusal({ COFFER_MASTER_KEY_PROVIDER: 'shares', COFFER_MASTER_KEY_PREVIOUS_PROVIDER: 'shares' })).toMatch(/^COFFER_MASTER_KEY_PREVIOUS_PROVIDER: must differ/);
    expect(refusal({ COFFER_MASTER_KEY_PROVIDER: 'shares', COFFER_MASTER_KEY_PREVIOUS_PROVIDER: 'env' })).toMatch(/^COFFER_MASTER_KEY_PREVIOUS_PROVIDER: is env but COFFER_MASTER_KEY is not set$/);
    expect(refusal({ COFFER_MASTER_KEY_PROVIDER: 'file', COFFER_MASTER_KEY_PREVIOUS_PROVIDER: 'pkcs11' })).toMatch(/^COFFER_MASTER_KEY_PREVIOUS_PROVIDER: is pkcs11/);
    expect(refusal({ COFFER_UNSEAL_PORT: '70000' })).toMatch(/^COFFER_UNSEAL_PORT: /);
    expect(refusal({ COFFER_UNSEAL_PORT: '9000', COFFER_PORT: '9000' })).toBe('COFFER_UNSEAL_PORT: must differ from COFFER_PORT');
    for (const env of [{ COFFER_PKCS11_PIN: '98765', COFFER_PKCS11_PIN_FILE: '/pin' }]) expect(refusal(env)).not.toContain('98765');
  });
});
