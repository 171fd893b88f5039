import { createHash, createPrivateKey } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { decryptGooglePayToken, type GooglePayDecryptOptions } from '../../src/vault/wallets/google-pay.js';
import { GOOGLE_PAY_PRODUCTION_ROOT_KEYS, GOOGLE_PAY_TEST_ROOT_KEYS, loadGooglePayRootKeys, parseGooglePayRootKeys } from '../../src/vault/wallets/google-pay-root-keys.js';
import { WalletTokenError } from '../../src/vault/wallets/wallet-errors.js';
import { createGooglePayTestRoot, googlePayMessage, googlePayToken, merchantKeyPair, type GooglePayTestRoot } from '../helpers/wallet-tokens.js';

const MERCHANT_ID = '12345678901234567890';
const RECIPIENT = `merchant:${MERCHANT_ID}`;
const DPAN = '4895370012003478';
const CRYPTOGRAM = 'AgAAAAAABk4DWZ4C28yUQAAAAAA=';

let root: GooglePayTestRoot;
let merchant: ReturnType<typeof merchantKeyPair>;

beforeAll(() => {
  root = createGooglePayTestRoot();
  merchant = merchantKeyPair();
});

function options(overrides: Partial<GooglePayDecryptOptions> = {}): GooglePayDecryptOptions {
  return { merchantKeys: [merchant.privateKey], rootKeys: parseGooglePayRootKeys(root.keysJson), merchantId: MERCHANT_ID, now: new Date(), ...overrides };
}

function token(overrides: Partial<Parameters<typeof googlePayToken>[0]> = {}): Record<string, unknown> {
  return googlePayToken({ root, merchantPublicKey: merchant.publicKey, recipientId: RECIPIENT, ...overrides });
}

/** The refusal `fn` throws, checked to reveal nothing of the decrypted message. */
function refusal(fn: () => unknown): WalletTokenError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(WalletTokenError);
  const error = caught as WalletTokenError;
  const printed = `${error.message}\n${error.stack ?? ''}\n${JSON.stringify(error)}\n${String(error.cause ?? '')}`;
  for (const secret of [DPAN, CRYPTOGRAM, '"pan":', '"cryptogram":']) expect(printed).not.toContain(secret);
  return error;
}

describe('Google Pay ECv2 token', () => {
  it('decrypts a valid CRYPTOGRAM_3DS token to the DPAN, cryptogram and ECI', () => {
    const result = decryptGooglePayToken(token(), options());
    expect(result.accountNumber.reveal()).toBe(DPAN);
    expect(result.cryptogram?.reveal()).toBe(CRYPTOGRAM);
    expect(result).toMatchObject({ authMethod: 'CRYPTOGRAM_3DS', eciIndicator: '05', expirationMonth: 12, expirationYear: 2030 });
    expect(JSON.stringify(result)).not.toContain(DPAN);
    expect(JSON.stringify(result)).not.toContain(CRYPTOGRAM);
  });

  it('decrypts a PAN_ONLY token given as JSON text, trying several merchant keys', () => {
    const message = googlePayMessage({ paymentMethodDetails: { pan: '4111111111111111', expirationMonth: 1, expirationYear: 2031, authMethod: 'PAN_ONLY' } });
    const other = merchantKeyPair();
    const result = decryptGooglePayToken(JSON.stringify(token({ message })), options({ merchantKeys: [other.privateKey, merchant.privateKey] }));
    expect(result.authMethod).toBe('PAN_ONLY');
    expect(result.accountNumber.reveal()).toBe('4111111111111111');
    expect(result.cryptogram).toBeNull();
  });

  it('refuses a tampered ciphertext: the signature covers it', () => {
    const tampered = token();
    const signed = JSON.parse(tampered['signedMessage'] as string) as Record<string, string>;
    const bytes = Buffer.from(signed['encryptedMessage'] as string, 'base64');
    bytes[0] = (bytes[0] ?? 0) ^ 0x01;
    tampered['signedMessage'] = JSON.stringify({ ...signed, encryptedMessage: bytes.toString('base64') });
    expect(refusal(() => decryptGooglePayToken(tampered, options())).code).toBe('bad_signature');
  });

  it('refuses a signed ciphertext whose tag does not check', () => {
    expect(refusal(() => decryptGooglePayToken(token({ alterCiphertextBeforeSigning: true }), options())).code).toBe('decryption_failed');
  });

  it('refuses a token for another merchant key', () => {
    const other = merchantKeyPair();
    expect(refusal(() => decryptGooglePayToken(token(), options({ merchantKeys: [other.privateKey] }))).code).toBe('decryption_failed');
  });

  it('refuses an intermediate key signed by another root', () => {
    const stranger = createGooglePayTestRoot();
    expect(refusal(() => decryptGooglePayToken(token({ root: stranger }), options())).code).toBe('bad_signature');
  });

  it('refuses an intermediate key signed by an expired root', () => {
    const expiredRoot = createGooglePayTestRoot(Date.now() - 1000);
    const forged = token({ root: expiredRoot });
    expect(refusal(() => decryptGooglePayToken(forged, options({ rootKeys: parseGooglePayRootKeys(expiredRoot.keysJson) }))).code).toBe('bad_signature');
  });

  it('refuses a wrong recipient', () => {
    expect(refusal(() => decryptGooglePayToken(token({ recipientId: 'merchant:09876543210987654321' }), options())).code).toBe('wrong_recipient');
  });

  it('refuses an expired intermediate signing key', () => {
    expect(refusal(() => decryptGooglePayToken(token({ intermediateKeyExpiration: Date.now() - 1000 }), options())).code).toBe('expired');
  });

  it('refuses an expired message', () => {
    const message = googlePayMessage({ messageExpiration: String(Date.now() - 1000) });
    expect(refusal(() => decryptGooglePayToken(token({ message }), options())).code).toBe('expired');
  });

  it('refuses malformed tokens and messages without quoting them', () => {
    for (const bad of ['not json', {}, { ...token(), protocolVersion: 'ECv1' }, { ...token(), signedMessage: '{}' }, { ...token(), intermediateSigningKey: { signedKey: '{}', signatures: [] } }]) {
      expect(refusal(() => decryptGooglePayToken(bad, options())).code).toBe('malformed');
    }
    const message = googlePayMessage({ paymentMethodDetails: { pan: `${DPAN}x`, authMethod: 'PAN_ONLY', expirationMonth: 1, expirationYear: 2031 } });
    expect(refusal(() => decryptGooglePayToken(token({ message }), options())).code).toBe('malformed');
  });
});

describe('Google Pay root keys', () => {
  it('keeps only ECv2 keys of the shipped test set', () => {
    const keys = loadGooglePayRootKeys(GOOGLE_PAY_TEST_ROOT_KEYS);
    expect(keys).toHaveLength(1);
    expect(keys[0]?.expiration).toBe(2154841200000);
  });

  it('ships the production ECv2 key whose fingerprint docs/wallets.md publishes', () => {
    const keys = loadGooglePayRootKeys(GOOGLE_PAY_PRODUCTION_ROOT_KEYS);
    expect(keys).toHaveLength(1);
    const spki = keys[0]!.key.export({ format: 'der', type: 'spki' });
    expect(keys[0]!.key.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect(createHash('sha256').update(spki).digest('hex')).toBe('610402bef1670005b87be6147dff436b1876c03c8265e8ae0bce1dadd12e3180');
    expect(keys[0]?.expiration).toBe(32506264800000);
  });
});

describe('a token made by Google\'s test environment', () => {
  // A PAN_ONLY token Google's test environment issued in February 2022 for recipient
  // merchant:12345678901234567890, with the merchant's test key, as published in the tests of
  // github.com/moovfinancial/google-pay-decryptor. Its intermediate key is signed by the ECv2 key
  // of the test set Coffer ships, so this checks the wire format and the shipped keys together.
  it('verifies under the shipped test root keys and decrypts, at the time it was made', () => {
    const token = {
      protocolVersion: 'ECv2',
      signature: 'MEQCICgayPPjbzuvzFN/2/7gPxIYHIROaouYd0aegk5xuVmRAiB7X5ksxyhmGi1tx+nnrlAPnlqpX0fy/vlFfexxd1s1tA==',
      intermediateSigningKey: {
        signedKey: '{"keyValue":"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE8vPzuDtvMbegr5qCTN6IRYaigyr6A+heGx1xdEoWHQPNnyIIHXjrsua/6FPjbLLldLM3646GaO+CnlkkGUfeLQ\\u003d\\u003d","keyExpiration":"1645569858115"}',
        signatures: ['MEYCIQDJvRet0TswS+0+QGdLE+qhDC6PtYDk+lvws8PzPCfygQIhAOeIkYEzK+lhVbrhYDdlx1NVZApOM4j5tONm/dDJjhQX'],
      },
      signedMessage: '{"encryptedMessage":"5RB8tx7IeHATogErh29B44USzvUAeDdjlDspWP9uQAzH1qiefn2p/WTFjk429sQvUT7oLts+bTAqVXihEnV69zWyNqW0a0oFeIjCC5YqdBMqOsHdo1dWYuDWXJOQNgOnUghFRJSLGnb4KRvQMiF06GRGqxHgJoS+IiaxXX98Zcsa/ljBtvkqQ3Pug91E9+FJmzWDgrUDf3mDXAac4cZf/hW1mUt+XhWAI1Q0etwpW7DwdeDyt5GFOXqBhsF6a6qVtwNIxltd0NaGz2Yj+NhrinCb0aiyXELn9Hw6vkRssRPXUqygbkBDffU+XP9LjbBweS1usODcSb8IJ/uP1QO3tYlj9Qd44OMxuXaEjM2B2RrNZKuNd7uUByZ1B7OyL3NEvwY5ebMYkDJx51JfPATIzcGzU9/7rrR3mny9pZvJmEwY3y7rO7jDrcZYBQ3452GRlDTC67gRZopx4OJlj0pWX7aaO7ZtRowqkynANL0mdrz4wZihR5AFPOiVFKPh3iWv2EzszAceY4xqqoawmqyGFS4L24TiQ0WX","ephemeralPublicKey":"BIG60+zjF3baoQRqNiZ7ZRQFzKnzITgUu9e4sS3MJ0JSxRk4MTUj9Z+rMeJQogXeSUfSlRVTfDELv1X9got3yeg\\u003d","tag":"3Q7cmZwn/hk2xVZ+sSbHYa0bOAQQSWFr0ehpPf94wlg\\u003d"}',
    };
    const key = createPrivateKey({ key: Buffer.from('MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgVXmgr0TkF+YKxR9Hqk1oN/YrBHoHIY+fvPEnrdS1fb+hRANCAATLt+0tx4HUcMrQkq/D45PNREgAS9+zUP8iUbCl9dt4sQhaZyGmt47TcyJaFLwSUwcSxrYQ9MW7BiU9z1e2NkCB', 'base64'), format: 'der', type: 'pkcs8' });
    const result = decryptGooglePayToken(token, {
      merchantKeys: [key],
      rootKeys: loadGooglePayRootKeys(GOOGLE_PAY_TEST_ROOT_KEYS),
      merchantId: '12345678901234567890',
      now: new Date(1645500000000),
    });
    expect(result.authMethod).toBe('PAN_ONLY');
    expect(result.accountNumber.reveal()).toBe('4111111111111111');
    expect(result).toMatchObject({ expirationMonth: 12, expirationYear: 2027 });
    // A day later the message (and then the intermediate key) has expired.
    expect(refusal(() => decryptGooglePayToken(token, { merchantKeys: [key], rootKeys: loadGooglePayRootKeys(GOOGLE_PAY_TEST_ROOT_KEYS), merchantId: '12345678901234567890', now: new Date(1645590000000) })).code).toBe('expired');
  });
});

describe('Google Pay token fuzzing', () => {
  it('refuses any single altered byte of a signed field with a WalletTokenError, never another exception', () => {
    const valid = token();
    const intermediate = valid['intermediateSigningKey'] as { signedKey: string; signatures: string[] };
    const signed = JSON.parse(valid['signedMessage'] as string) as Record<string, string>;
    const fields: [() => string, (value: string) => Record<string, unknown>][] = [
      [() => valid['signature'] as string, (value) => ({ ...valid, signature: value })],
      [() => intermediate.signatures[0] as string, (value) => ({ ...valid, intermediateSigningKey: { ...intermediate, signatures: [value] } })],
      [() => signed['ephemeralPublicKey'] as string, (value) => ({ ...valid, signedMessage: JSON.stringify({ ...signed, ephemeralPublicKey: value }) })],
      [() => signed['tag'] as string, (value) => ({ ...valid, signedMessage: JSON.stringify({ ...signed, tag: value }) })],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.nat(), fc.integer({ min: 1, max: 255 }), ([read, write], position, mask) => {
        const bytes = Buffer.from(read(), 'base64');
        const index = position % bytes.length;
        bytes[index] = (bytes[index] ?? 0) ^ mask;
        refusal(() => decryptGooglePayToken(write(bytes.toString('base64')), options()));
      }),
      { numRuns: 150 },
    );
  });
});
