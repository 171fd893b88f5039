import * as openpgp from 'openpgp';
import { describe, expect, it } from 'vitest';
import { readRecipientKey } from '../../src/services/portability/export-recipient.js';

/** The recipient key of an export request (docs/portability.md, "Exporting"): each refusal says why. */
describe('an export recipient key', () => {
  const refusal = async (armored: unknown) => {
    try {
      await readRecipientKey(armored);
    } catch (error) {
      return (error as { entries: Array<{ key: string; attribute: string; message: string }> }).entries[0];
    }
    throw new Error('accepted');
  };

  it('is read, re-armored as the public half only, with its fingerprint and user ids', async () => {
    const { publicKey } = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'Ops', email: 'ops@example.com' }], format: 'object' });
    const read = await readRecipientKey(publicKey.armor());
    expect(read.fingerprint).toBe(publicKey.getFingerprint());
    expect(read.userIds).toEqual(['Ops <ops@example.com>']);
    expect(read.armored).toContain('BEGIN PGP PUBLIC KEY BLOCK');
  });

  it('refuses a blank, an oversized, a garbled, a private and an expired key, naming the field', async () => {
    expect(await refusal(undefined)).toMatchObject({ key: 'errors.blank', attribute: 'recipient_public_key' });
    expect(await refusal('   ')).toMatchObject({ key: 'errors.blank' });
    expect(await refusal(42)).toMatchObject({ key: 'errors.blank' });
    expect(await refusal('x'.repeat(70_000))).toMatchObject({ key: 'errors.too_long', attribute: 'recipient_public_key' });
    expect(await refusal('-----BEGIN PGP PUBLIC KEY BLOCK-----\nnonsense\n-----END PGP PUBLIC KEY BLOCK-----')).toMatchObject({ key: 'errors.invalid', message: expect.stringContaining('not an armored OpenPGP public key') });
    const { privateKey } = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'P' }] });
    const secret = await refusal(privateKey);
    expect(secret).toMatchObject({ key: 'errors.invalid', message: expect.stringContaining('is a private key') });
    expect(secret?.message).not.toContain('BEGIN');
    const expired = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'E' }], keyExpirationTime: 1, date: new Date(Date.now() - 60_000), format: 'object' });
    expect(await refusal(expired.publicKey.armor())).toMatchObject({ key: 'errors.invalid', message: expect.stringContaining('cannot encrypt') });
  });
});
