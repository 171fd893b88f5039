import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { normalizeOrigin, originAllowed } from '../../src/domain/origins.js';
import { decodeForm } from '../../src/http/format/form-codec.js';
import { freshTimestamp, signatureMatches } from '../../src/card-capture/signature.js';
import { brandOfPrefix, maxPanLength } from '../../src/vault/card-rules.js';

describe('origins', () => {
  it('normalises exactly one http(s) origin and refuses anything else', () => {
    expect(normalizeOrigin('HTTPS://Shop.Example:443/')).toBe('https://shop.example');
    expect(normalizeOrigin('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    for (const bad of ['https://shop.example/x', 'https://u:p@shop.example', 'https://shop.example?x=1', 'ftp://shop.example', 'null', '*', '']) {
      expect(normalizeOrigin(bad), bad).toBeNull();
    }
  });

  it('an empty list allows every origin; a list only its members', () => {
    expect(originAllowed([], null)).toBe(true);
    expect(originAllowed(['https://shop.example'], 'https://SHOP.example')).toBe(true);
    expect(originAllowed(['https://shop.example'], 'https://shop.example.evil.example')).toBe(false);
    expect(originAllowed(['https://shop.example'], null)).toBe(false);
  });
});

describe('form decoding', () => {
  it('reads one level of brackets and drops prototype keys', () => {
    const decoded = decodeForm('environment_key=k&credit_card%5Bnumber%5D=4111111111111111&credit_card[month]=3&__proto__[x]=1&constructor=y&a[b][c]=z');
    expect(decoded.root).toBe('payment_method');
    expect(decoded.fields).toEqual({ environment_key: 'k', credit_card: { number: '4111111111111111', month: '3' } });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('signatures', () => {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const keys = { privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
  const sec1 = privateKey.export({ type: 'sec1', format: 'pem' }).toString();

  it('HMAC keyed by either PEM spelling, or an ECDSA signature, matches; anything else does not', () => {
    const text = 'nonce1700000000cert';
    for (const key of [keys.privateKeyPem, sec1, sec1.trimEnd()]) {
      expect(signatureMatches(text, crypto.createHmac('sha256', key).update(text).digest('base64'), keys)).toBe(true);
    }
    expect(signatureMatches(text, crypto.sign('sha256', Buffer.from(text), privateKey).toString('base64'), keys)).toBe(true);
    expect(signatureMatches(`${text}x`, crypto.createHmac('sha256', sec1).update(text).digest('base64'), keys)).toBe(false);
    expect(signatureMatches(text, 'not base64!', keys)).toBe(false);
    expect(signatureMatches(text, '', keys)).toBe(false);
  });

  it('timestamps: 10 minutes back, 60 seconds ahead, decimal seconds only', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const at = now.getTime() / 1000;
    expect(freshTimestamp(String(at - 600), now)).toBe(at - 600);
    expect(freshTimestamp(String(at - 601), now)).toBeNull();
    expect(freshTimestamp(String(at + 60), now)).toBe(at + 60);
    expect(freshTimestamp(String(at + 61), now)).toBeNull();
    expect(freshTimestamp('1e9', now)).toBeNull();
  });
});

describe('brand while typing', () => {
  it('names the brand once its prefix is typed, and caps the length', () => {
    expect(brandOfPrefix('4')).toBe('visa');
    expect(brandOfPrefix('37')).toBe('american_express');
    expect(brandOfPrefix('5')).toBeNull();
    expect(brandOfPrefix('2221')).toBeNull();
    expect(brandOfPrefix('222100')).toBe('master');
    expect(maxPanLength('american_express')).toBe(15);
    expect(maxPanLength(null)).toBe(19);
  });
});
