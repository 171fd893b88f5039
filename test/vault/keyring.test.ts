import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateStore, openStore, type StoreHandle } from '../../src/store/database.js';
import { blobKeyId, CipherError } from '../../src/vault/cipher.js';
import { WrappedKeysRepo } from '../../src/store/repositories/wrapped-keys.repo.js';
import { Keyring, MasterKeyMismatchError, masterKeyId } from '../../src/vault/keyring.js';
import { resolveMasterKey } from '../../src/vault/master-key.js';
import { tempDir } from '../helpers/temp.js';

const cleanups: Array<() => Promise<void> | void> = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function scratchDir(): string {
  const temp = tempDir('coffer-vault-');
  cleanups.push(() => temp.cleanup());
  return temp.dir;
}

async function sqliteStore(): Promise<StoreHandle> {
  const store = openStore({ kind: 'sqlite', path: path.join(scratchDir(), 'coffer.sqlite') });
  cleanups.push(() => store.close());
  await migrateStore(store);
  return store;
}

async function wrappedKeys(store: StoreHandle) {
  return store.db.selectFrom('wrapped_keys').selectAll().orderBy('id').execute();
}

describe('Keyring', () => {
  it('creates a data key once and reuses it, across Keyring instances on the same database', async () => {
    const store = await sqliteStore();
    const master = randomBytes(32);
    const first = new Keyring(new WrappedKeysRepo(store.db), master);
    const blob = await first.sealFor('ENV1', Buffer.from('secret value'), 'aad');
    expect(blobKeyId(blob)).toBe('d-ENV1-1');
    await first.sealFor('ENV1', Buffer.from('another'), 'aad');

    const afterFirst = await wrappedKeys(store);
    expect(afterFirst).toHaveLength(1);
    expect(afterFirst[0]).toMatchObject({ id: 'd-ENV1-1', purpose: 'data', environment_key: 'ENV1', master_key_id: masterKeyId(master) });
    expect(afterFirst[0]?.wrapped).toMatch(/^c1\./);

    // A new process: empty cache, same master key.
    const second = new Keyring(new WrappedKeysRepo(store.db), Buffer.from(master));
    await second.verifyMasterKey();
    expect((await second.openFor('ENV1', blob, 'aad')).toString()).toBe('secret value');
    const blob2 = await second.sealFor('ENV1', Buffer.from('from second'), 'aad');
    expect((await first.openFor('ENV1', blob2, 'aad')).toString()).toBe('from second');
    expect(await wrappedKeys(store)).toEqual(afterFirst);

    // Another environment gets its own key.
    await second.sealFor('ENV2', Buffer.from('x'), 'aad');
    expect((await wrappedKeys(store)).map((k) => k.id)).toEqual(['d-ENV1-1', 'd-ENV2-1']);
  });

  it('creates one key when several instances race for it', async () => {
    const store = await sqliteStore();
    const master = randomBytes(32);
    const rings = Array.from({ length: 5 }, () => new Keyring(new WrappedKeysRepo(store.db), master));
    const blobs = await Promise.all(rings.map((ring, i) => ring.sealFor('RACE', Buffer.from(`v${i}`), 'aad')));
    expect(await wrappedKeys(store)).toHaveLength(1);
    for (const [i, blob] of blobs.entries()) expect((await rings[(i + 1) % rings.length]?.openFor('RACE', blob, 'aad'))?.toString()).toBe(`v${i}`);
  });

  it('a different master key fails verifyMasterKey, naming COFFER_MASTER_KEY, and cannot use the keys', async () => {
    const store = await sqliteStore();
    const master = randomBytes(32);
    const right = new Keyring(new WrappedKeysRepo(store.db), master);
    // An empty database accepts any master key.
    await new Keyring(new WrappedKeysRepo(store.db), randomBytes(32)).verifyMasterKey();
    const blob = await right.sealFor('ENV1', Buffer.from('secret value'), 'aad');
    const hash = await right.hashSecret('s3cret');

    const wrong = new Keyring(new WrappedKeysRepo(store.db), randomBytes(32));
    const error = await wrong.verifyMasterKey().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MasterKeyMismatchError);
    expect((error as Error).message).toContain('COFFER_MASTER_KEY');
    expect((error as Error).message).not.toContain(master.toString('base64'));
    await expect(wrong.openFor('ENV1', blob, 'aad')).rejects.toBeInstanceOf(MasterKeyMismatchError);
    await expect(wrong.hashSecret('s3cret')).rejects.toBeInstanceOf(MasterKeyMismatchError);

    await right.verifyMasterKey();
    expect(await right.hashSecret('s3cret')).toBe(hash);
  });

  it('openFor refuses a blob of another environment, and a blob relabelled for it', async () => {
    const store = await sqliteStore();
    const ring = new Keyring(new WrappedKeysRepo(store.db), randomBytes(32));
    const blob = await ring.sealFor('ENVA', Buffer.from('for A'), 'aad');
    await ring.sealFor('ENVB', Buffer.from('for B'), 'aad');

    await expect(ring.openFor('ENVB', blob, 'aad')).rejects.toThrow(/another environment/);
    // Prefix confusion: environment keys that extend one another.
    await expect(ring.openFor('ENV', blob, 'aad')).rejects.toThrow(/another environment/);
    // Relabelled to B's key id: passes the label check, fails authentication under B's key.
    const relabelled = blob.replace('.d-ENVA-1.', '.d-ENVB-1.');
    await expect(ring.openFor('ENVB', relabelled, 'aad')).rejects.toBeInstanceOf(CipherError);
    // The right environment with the wrong associated data.
    await expect(ring.openFor('ENVA', blob, 'other')).rejects.toBeInstanceOf(CipherError);
    expect((await ring.openFor('ENVA', blob, 'aad')).toString()).toBe('for A');
    // Refusals created no keys.
    expect((await wrappedKeys(store)).map((k) => k.id)).toEqual(['d-ENVA-1', 'd-ENVB-1']);
  });

  it('hashSecret is deterministic per database and differs between databases', async () => {
    const master = randomBytes(32);
    const storeA = await sqliteStore();
    const storeB = await sqliteStore();
    const a1 = new Keyring(new WrappedKeysRepo(storeA.db), master);
    const a2 = new Keyring(new WrappedKeysRepo(storeA.db), master);
    const b = new Keyring(new WrappedKeysRepo(storeB.db), master);

    const hash = await a1.hashSecret('the secret');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await a1.hashSecret('the secret')).toBe(hash);
    expect(await a2.hashSecret('the secret')).toBe(hash);
    expect(await a1.hashSecret('the secret ')).not.toBe(hash);
    // Same master key, another database: another secret-hash key.
    expect(await b.hashSecret('the secret')).not.toBe(hash);

    const keys = await wrappedKeys(storeA);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ id: 'secret-hash-1', purpose: 'secret_hash', environment_key: null });
  });

  it('sameHash compares hex hashes', async () => {
    const store = await sqliteStore();
    const ring = new Keyring(new WrappedKeysRepo(store.db), randomBytes(32));
    const a = await ring.hashSecret('a');
    const b = await ring.hashSecret('b');
    expect(Keyring.sameHash(a, a)).toBe(true);
    expect(Keyring.sameHash(a, `${a}`.toUpperCase())).toBe(true);
    expect(Keyring.sameHash(a, b)).toBe(false);
    expect(Keyring.sameHash(a, a.slice(0, 62))).toBe(false);
    expect(Keyring.sameHash(a, `${a}00`)).toBe(false);
    expect(Keyring.sameHash(a, '')).toBe(false);
    // Non-hex input is never equal, even to itself (Buffer.from(x, 'hex') would stop early).
    expect(Keyring.sameHash('zz', 'zz')).toBe(false);
    expect(Keyring.sameHash('', '')).toBe(false);
    expect(Keyring.sameHash(`${a.slice(0, 62)}zz`, `${a.slice(0, 62)}qq`)).toBe(false);
  });

  it('masterKeyId is stable and reveals nothing of the key', () => {
    const master = randomBytes(32);
    expect(masterKeyId(master)).toBe(masterKeyId(Buffer.from(master)));
    expect(masterKeyId(master)).toMatch(/^[0-9a-f]{16}$/);
    expect(masterKeyId(master)).not.toBe(masterKeyId(randomBytes(32)));
    expect(master.toString('hex')).not.toContain(masterKeyId(master));
  });
});

describe('resolveMasterKey', () => {
  it('returns the configured key untouched and writes nothing', () => {
    const dataDir = path.join(scratchDir(), 'data');
    const configured = randomBytes(32);
    const source = resolveMasterKey(configured, dataDir);
    expect(source.key).toBe(configured);
    expect(source).toEqual({ key: configured, localFile: null, created: false });
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('generates a 0600 key file on first call and reuses it after', () => {
    const dataDir = path.join(scratchDir(), 'nested', 'data');
    const first = resolveMasterKey(null, dataDir);
    const file = path.join(dataDir, 'master.key');
    expect(first.created).toBe(true);
    expect(first.localFile).toBe(file);
    expect(first.key).toHaveLength(32);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dataDir).mode & 0o077).toBe(0);
    expect(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64').equals(first.key)).toBe(true);

    const second = resolveMasterKey(null, dataDir);
    expect(second.created).toBe(false);
    expect(second.localFile).toBe(file);
    expect(second.key.equals(first.key)).toBe(true);

    // Another data directory gets another key.
    expect(resolveMasterKey(null, path.join(scratchDir(), 'data')).key.equals(first.key)).toBe(false);
  });

  it('rejects a corrupt key file with a message naming the file, and leaves it alone', () => {
    for (const content of ['not a key at all', '', Buffer.alloc(16).toString('base64'), Buffer.alloc(33).toString('base64')]) {
      const dataDir = scratchDir();
      const file = path.join(dataDir, 'master.key');
      fs.writeFileSync(file, content, { mode: 0o600 });
      expect(() => resolveMasterKey(null, dataDir)).toThrow(file);
      expect(fs.readFileSync(file, 'utf8')).toBe(content);
    }
  });
});
