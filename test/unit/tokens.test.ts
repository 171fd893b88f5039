import { describe, expect, it } from 'vitest';
import { orderedToken, randomToken } from '../../src/domain/tokens.js';

describe('orderedToken (rows of tables that grow with traffic)', () => {
  it('has the shape of every other token: 29 base-62 characters by default, or the length asked for', () => {
    expect(orderedToken()).toMatch(/^[A-Za-z0-9]{29}$/);
    expect(orderedToken(40)).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(randomToken()).toMatch(/^[A-Za-z0-9]{29}$/);
  });

  it('sorts by creation time in byte order and in a locale collation alike, down to the millisecond', () => {
    const times = [0, 1, 35, 36, 999, Date.UTC(2026, 10, 24), Date.UTC(2026, 10, 24) + 1, Date.UTC(2100, 0, 1), 36 ** 9 - 1];
    const tokens = times.map((time) => orderedToken(29, time));
    const byBytes = [...tokens].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const byLocale = [...tokens].sort((a, b) => a.localeCompare(b, 'en-US'));
    // The random part never decides between different milliseconds: the time prefix alone does.
    expect(byBytes.map((token) => token.slice(0, 9))).toEqual(tokens.map((token) => token.slice(0, 9)));
    expect(byLocale.map((token) => token.slice(0, 9))).toEqual(tokens.map((token) => token.slice(0, 9)));
    expect(tokens[5]?.slice(0, 9)).toBe(Date.UTC(2026, 10, 24).toString(36).padStart(9, '0'));
  });

  it('keeps 20 random characters after the time: tokens of one millisecond differ and cover the alphabet', () => {
    const now = Date.now();
    const tokens = Array.from({ length: 2000 }, () => orderedToken(29, now));
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(new Set(tokens.map((token) => token.slice(0, 9))).size).toBe(1);
    const seen = new Set(tokens.flatMap((token) => [...token.slice(9)]));
    expect(seen.size).toBe(62);
  });
});
