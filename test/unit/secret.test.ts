import { Writable } from 'node:stream';
import util from 'node:util';
import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/domain/secret.js';
import { createLogger } from '../../src/logger.js';

const PAN = '4111111111111111';

/** A pino destination that keeps every line written. */
function captureStream(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  return { stream, lines };
}

describe('Secret', () => {
  it('JSON.stringify shows [FILTERED] and not one digit of the value', () => {
    const s = new Secret(PAN);
    const json = JSON.stringify({ s });
    expect(json).toBe('{"s":"[FILTERED]"}');
    expect(json).not.toMatch(/\d/);
    expect(JSON.stringify([s, { nested: { s } }])).toBe('["[FILTERED]",{"nested":{"s":"[FILTERED]"}}]');
  });

  it('template strings, String() and concatenation give [FILTERED]', () => {
    const s = new Secret(PAN);
    expect(`${s}`).toBe('[FILTERED]');
    expect(String(s)).toBe('[FILTERED]');
    expect('card: ' + s).toBe('card: [FILTERED]');
  });

  it('util.inspect, util.format and console-style formatting never show the value', () => {
    const s = new Secret(PAN);
    for (const text of [
      util.inspect(s),
      util.inspect(s, { showHidden: true, depth: Infinity }),
      util.inspect({ card: { number: s } }),
      util.format('%o', s),
      util.format('%O', s),
      util.format('%s', s),
      util.format('%j', { s }),
      util.format(s),
    ]) {
      expect(text).not.toContain(PAN);
      expect(text).toContain('[FILTERED]');
    }
    expect(util.inspect(s)).toBe('Secret([FILTERED])');
  });

  it('has no enumerable trace of the value', () => {
    const s = new Secret(PAN);
    expect(Object.keys(s)).toEqual([]);
    expect(Object.getOwnPropertyNames(s)).toEqual([]);
    expect({ ...s }).toEqual({});
    expect(s.length).toBe(16);
  });

  it('pino logging { card: s } writes no PAN', () => {
    const { stream, lines } = captureStream();
    const logger = createLogger('info', stream);
    const s = new Secret(PAN);
    logger.info({ card: s }, 'card received');
    logger.info({ payment_method: { number: s, verification_value: new Secret('737') } }, 'nested');
    logger.info(`template ${s}`);
    logger.info('format %s %o', s, s);
    logger.flush();
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line).not.toContain(PAN);
    // The log time is left out: four millisecond timestamps hold '737' in about 4 % of runs.
    const withoutTime = lines.map((line) => JSON.stringify({ ...JSON.parse(line), time: undefined }));
    expect(withoutTime.join('\n')).not.toContain('737');
    expect(JSON.parse(lines[0] as string)).toMatchObject({ card: '[FILTERED]', msg: 'card received' });
    expect(JSON.parse(lines[2] as string).msg).toBe('template [FILTERED]');
  });

  it('reveal() returns the value', () => {
    const s = new Secret(PAN);
    expect(s.reveal()).toBe(PAN);
    expect(new Secret('').reveal()).toBe('');
  });
});
