import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MasterKeyCheck, MasterKeyChecksRepository } from '../../src/store/interfaces/master-key-checks.js';
import { CipherError } from '../../src/vault/cipher.js';
import { InProcessMasterKey } from '../../src/vault/master-key-providers/in-process.js';
import { Pkcs11MasterKey } from '../../src/vault/master-key-providers/pkcs11.js';
import { pkcs11MasterKeyId, type Pkcs11Settings } from '../../src/vault/master-key-providers/pkcs11-settings.js';
import { MasterKeyUnavailableError, VaultSealedError } from '../../src/vault/master-key-providers/provider.js';
import { SharesMasterKey, UnsealError } from '../../src/vault/master-key-providers/shares.js';
import { SOFTHSM_MODULE, startSoftHsm, type SoftHsm, describeWithSoftHsm } from '../helpers/softhsm.js';

/** Master key providers one by one (docs/key-custody.md): each wraps and unwraps, and each refusal is its own error. */

class MemoryChecks implements MasterKeyChecksRepository {
  readonly rows: MasterKeyCheck[] = [];
  newest() {
    return Promise.resolve(this.rows.at(-1));
  }
  find(id: string) {
    return Promise.resolve(this.rows.find((row) => row.masterKeyId === id));
  }
  insert(check: MasterKeyCheck) {
    if (this.rows.some((row) => row.masterKeyId === check.masterKeyId)) return Promise.resolve(false);
    this.rows.push(check);
    return Promise.resolve(true);
  }
}

describe('in-process provider (file, env)', () => {
  it('unwraps what it wrapped, refuses another place or another key', async () => {
    const provider = new InProcessMasterKey('file', randomBytes(32));
    const key = randomBytes(32);
    const wrapped = await provider.wrap(key, 'wrapped-key:d-x-1');
    expect(wrapped.startsWith(`c1.${provider.id}.`)).toBe(true);
    expect(await provider.unwrap(wrapped, 'wrapped-key:d-x-1')).toEqual(key);
    await expect(provider.unwrap(wrapped, 'wrapped-key:d-x-2')).rejects.toBeInstanceOf(CipherError);
    await expect(new InProcessMasterKey('file', randomBytes(32)).unwrap(wrapped, 'wrapped-key:d-x-1')).rejects.toBeInstanceOf(CipherError);
  });

  it('zeroes its key on close', async () => {
    const provider = new InProcessMasterKey('env', randomBytes(32));
    await provider.close();
    expect(((provider as unknown as { key: Buffer }).key).every((byte) => byte === 0)).toBe(true);
  });
});

describe('shares provider', () => {
  async function split(shares = 5, threshold = 3) {
    const checks = new MemoryChecks();
    const first = await SharesMasterKey.open(checks);
    const printed = await first.initialise(shares, threshold);
    const wrapped = await first.wrap(Buffer.alloc(32, 9), 'wrapped-key:x');
    const node = await SharesMasterKey.open(checks);
    return { checks, printed, wrapped, node, first };
  }

  it('splits into N shares, stores a check value and digests, never the key or a share', async () => {
    const { checks, printed } = await split();
    expect(printed).toHaveLength(5);
    for (const share of printed) expect(share).toMatch(/^[0-9a-f]{66}$/);
    const row = JSON.stringify(checks.rows);
    for (const share of printed) expect(row).not.toContain(share);
    expect(checks.rows[0]).toMatchObject({ threshold: 3, shares: 5, provider: 'shares' });
  });

  it('starts sealed: wrap and unwrap refuse until M shares are in', async () => {
    const { node, printed, wrapped } = await split();
    expect(node.sealed()).toBe(true);
    await expect(node.unwrap(wrapped, 'wrapped-key:x')).rejects.toBeInstanceOf(VaultSealedError);
    await expect(node.wrap(Buffer.alloc(32), 'wrapped-key:y')).rejects.toBeInstanceOf(VaultSealedError);
    expect(await node.submit(printed[4]!)).toMatchObject({ sealed: true, submitted: 1, threshold: 3 });
    expect(await node.submit(printed[1]!)).toMatchObject({ sealed: true, submitted: 2 });
    expect(await node.submit(printed[2]!)).toMatchObject({ sealed: false, submitted: 0 });
    expect(await node.unwrap(wrapped, 'wrapped-key:x')).toEqual(Buffer.alloc(32, 9));
  });

  it('tells waiting work once unsealed (serve starts its sweeper and callbacks then), and at once when already', async () => {
    const { node, printed } = await split(3, 2);
    const calls: string[] = [];
    node.whenUnsealed(() => calls.push('waiting'));
    await node.submit(printed[0]!);
    expect(calls).toEqual([]);
    await node.submit(printed[2]!);
    expect(calls).toEqual(['waiting']);
    node.whenUnsealed(() => calls.push('late'));
    expect(calls).toEqual(['waiting', 'late']);
  });

  it('zeroes the submitted shares once combined', async () => {
    const { node, printed } = await split(3, 2);
    await node.submit(printed[0]!);
    const held = [...(node as unknown as { submitted: Buffer[] }).submitted];
    await node.submit(printed[1]!);
    expect(held[0]!.every((byte) => byte === 0)).toBe(true);
    expect((node as unknown as { submitted: Buffer[] }).submitted).toHaveLength(0);
  });

  it('refuses a share of another key, a malformed one and a repeated one, and says which without the share', async () => {
    const { node, printed } = await split();
    const other = await split();
    const refusal = async (share: string) => {
      try {
        await node.submit(share);
      } catch (error) {
        expect(error).toBeInstanceOf(UnsealError);
        expect((error as Error).message).not.toContain(share);
        return (error as UnsealError).refusal;
      }
      throw new Error('accepted');
    };
    expect(await refusal(other.printed[0]!)).toBe('unknown_share');
    expect(await refusal('zz')).toBe('malformed_share');
    // One flipped bit of a real share.
    const flipped = (parseInt(printed[0]!.slice(0, 1), 16) ^ 1).toString(16) + printed[0]!.slice(1);
    expect(await refusal(flipped)).toBe('unknown_share');
    await node.submit(printed[0]!);
    expect(await refusal(printed[0]!)).toBe('duplicate_share');
    expect(node.status()).toMatchObject({ sealed: true, submitted: 1 });
  });

  it('refuses combined shares that miss the key-check value', async () => {
    const { node, printed, checks } = await split(3, 2);
    // A tampered check value: the digests pass, the rebuilt key does not.
    checks.rows[0]!.checkValue = '00'.repeat(32);
    await node.submit(printed[0]!);
    await expect(node.submit(printed[1]!)).rejects.toMatchObject({ refusal: 'check_failed' });
    expect(node.sealed()).toBe(true);
    expect(node.status().submitted).toBe(0);
  });

  it('says so when no key was ever split', async () => {
    const node = await SharesMasterKey.open(new MemoryChecks());
    expect(node.status()).toMatchObject({ initialised: false, sealed: true });
    await expect(node.submit('00'.repeat(33))).rejects.toMatchObject({ refusal: 'not_initialised' });
  });

  it('refuses a threshold under 2 or above the share count', async () => {
    const node = await SharesMasterKey.open(new MemoryChecks());
    await expect(node.initialise(3, 1)).rejects.toThrow(/threshold/);
    await expect(node.initialise(2, 3)).rejects.toThrow(/threshold/);
  });
});

describeWithSoftHsm('pkcs11 provider (SoftHSM2)', () => {
  let hsm: SoftHsm;
  let settings: Pkcs11Settings;
  const PIN = '4321';

  beforeAll(() => {
    hsm = startSoftHsm([{ label: 'coffer-unit', pin: PIN }, { label: 'coffer-empty', pin: PIN }]);
    settings = { modulePath: SOFTHSM_MODULE, token: { label: 'coffer-unit' }, pin: { file: hsm.pinFile(PIN) }, keyLabel: 'unit-master' };
  });
  afterAll(() => hsm.cleanup());

  it('creates an AES-256 key in the token that is sensitive and not extractable, once', async () => {
    expect(Pkcs11MasterKey.createKey(settings)).toBe(pkcs11MasterKeyId(settings));
    expect(() => Pkcs11MasterKey.createKey(settings)).toThrow(/already exists/);
    // Read the key's attributes through the same library: its value is refused.
    const pkcs11js = (await import('pkcs11js')).default;
    const lib = new pkcs11js.PKCS11();
    lib.load(SOFTHSM_MODULE);
    try {
      lib.C_Initialize();
    } catch {
      // Initialised by the provider already.
    }
    const slot = lib.C_GetSlotList(true).find((candidate) => lib.C_GetTokenInfo(candidate).label.trimEnd() === 'coffer-unit')!;
    const session = lib.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION);
    try {
      lib.C_Login(session, pkcs11js.CKU_USER, PIN);
    } catch (error) {
      if (!String((error as Error).message).startsWith('CKR_USER_ALREADY_LOGGED_IN')) throw error;
    }
    lib.C_FindObjectsInit(session, [{ type: pkcs11js.CKA_LABEL, value: 'unit-master' }]);
    const key = lib.C_FindObjects(session)!;
    lib.C_FindObjectsFinal(session);
    const [sensitive, extractable, length] = lib.C_GetAttributeValue(session, key, [{ type: pkcs11js.CKA_SENSITIVE }, { type: pkcs11js.CKA_EXTRACTABLE }, { type: pkcs11js.CKA_VALUE_LEN }]);
    expect(sensitive!.value).toEqual(Buffer.from([1]));
    expect(extractable!.value).toEqual(Buffer.from([0]));
    expect((length!.value as Buffer).readUInt32LE(0)).toBe(32);
    expect(() => lib.C_GetAttributeValue(session, key, [{ type: pkcs11js.CKA_VALUE }])).toThrow(/CKR_ATTRIBUTE_SENSITIVE/);
    lib.C_CloseSession(session);
  });

  it('wraps and unwraps inside the token; a blob moved to another place does not open', async () => {
    const provider = new Pkcs11MasterKey(settings);
    const key = randomBytes(32);
    const wrapped = await provider.wrap(key, 'wrapped-key:d-env-1');
    expect(wrapped.startsWith(`c1.${provider.id}.`)).toBe(true);
    expect(wrapped).not.toContain(key.toString('base64'));
    expect(await provider.unwrap(wrapped, 'wrapped-key:d-env-1')).toEqual(key);
    // Two wraps of one key differ (a fresh nonce each).
    expect(await provider.wrap(key, 'wrapped-key:d-env-1')).not.toBe(wrapped);
    await expect(provider.unwrap(wrapped, 'wrapped-key:d-env-2')).rejects.toBeInstanceOf(CipherError);
    // And it still works after a refusal (the session was not spoiled).
    expect(await provider.unwrap(wrapped, 'wrapped-key:d-env-1')).toEqual(key);
    expect(provider.reachable()).toBe(true);
    await provider.close();
  });

  it('opens a new session when the one it held was closed under it', async () => {
    const provider = new Pkcs11MasterKey(settings);
    const wrapped = await provider.wrap(Buffer.alloc(32, 1), 'wrapped-key:a');
    const held = (provider as unknown as { connection: { lib: { C_CloseSession(s: Buffer): void }; session: Buffer } }).connection;
    held.lib.C_CloseSession(held.session);
    expect(await provider.unwrap(wrapped, 'wrapped-key:a')).toEqual(Buffer.alloc(32, 1));
    await provider.close();
  });

  it('a wrong PIN is MasterKeyUnavailableError naming the return code, never the PIN, and is not retried at once', async () => {
    // A token no session of this process logged in to (PKCS#11 login is per application and token).
    const wrong = new Pkcs11MasterKey({ ...settings, token: { label: 'coffer-empty' }, pin: { value: '999999' } }, { retryAfterMs: 60_000 });
    const error = await wrong.wrap(Buffer.alloc(32), 'wrapped-key:a').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MasterKeyUnavailableError);
    expect((error as MasterKeyUnavailableError).reason).toMatch(/CKR_PIN_INCORRECT/);
    expect((error as Error).message).not.toContain('999999');
    // The second call fails from memory: no second login attempt against the token.
    expect(await wrong.wrap(Buffer.alloc(32), 'wrapped-key:a').catch((caught: unknown) => caught)).toBe(error);
    expect(wrong.reachable()).toBe(false);
    expect(wrong.unavailableReason()).toMatch(/CKR_PIN_INCORRECT/);
  });

  it('a missing token, a missing key, an unreadable PIN file and a missing module are each MasterKeyUnavailableError', async () => {
    const cases: Array<[Pkcs11Settings, RegExp]> = [
      [{ ...settings, token: { label: 'no-such-token' } }, /no token labelled "no-such-token"/],
      [{ ...settings, token: { label: 'coffer-empty' } }, /no key labelled "unit-master".*create-hsm-key/],
      [{ ...settings, pin: { file: '/nonexistent/pin' } }, /cannot read the PIN file \/nonexistent\/pin \(ENOENT\)/],
      [{ ...settings, modulePath: '/nonexistent/libpkcs11.so' }, /cannot load the PKCS#11 module/],
    ];
    for (const [broken, reason] of cases) {
      const error = await new Pkcs11MasterKey(broken).unwrap(`c1.${pkcs11MasterKeyId(broken)}.${Buffer.alloc(40).toString('base64')}`, 'x').catch((caught: unknown) => caught);
      expect(error, String(reason)).toBeInstanceOf(MasterKeyUnavailableError);
      expect((error as MasterKeyUnavailableError).reason).toMatch(reason);
    }
  });

  it('refuses a blob another master key wrapped without asking the token', async () => {
    const provider = new Pkcs11MasterKey(settings);
    const other = await new InProcessMasterKey('file', randomBytes(32)).wrap(Buffer.alloc(32), 'wrapped-key:a');
    await expect(provider.unwrap(other, 'wrapped-key:a')).rejects.toBeInstanceOf(CipherError);
    await provider.close();
  });
});
