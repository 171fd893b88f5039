import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../helpers/client.js';
import { startServer, type TestServer } from '../helpers/server.js';

/**
 * Card numbers written with separators are neither echoed nor logged — an
 * X-Request-Id that reads as a card is replaced by a new id, and a card in a path token is
 * [FILTERED] in the 404 message. The rules are the scrubber's (src/domain/scrubbing).
 */

const CARD_FORMS = ['4111-1111-1111-1111', '4111.1111.1111.1111', '5555 5555 5555 4444'.replace(/ /g, '-')];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function errorOf(format: 'json' | 'xml', res: ApiResponse): { key: string; message: string } {
  if (format === 'json') return res.json().errors[0];
  const error = res.xml().errors.error;
  return { key: error['@_key'], message: error['#text'] };
}

describe('card-like values with separators are not echoed or logged', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const logged = (text: string) => server.logs.filter((line) => line.includes(text));

  it.each(['json', 'xml'] as const)('%s: an X-Request-Id that is a card gets a new id, in answers and logs', async (format) => {
    for (const id of CARD_FORMS) {
      for (const path of [`/v1/gateways.${format}`, `/v1/transactions/nope.${format}`]) {
        const res = await server.client.get(path, { headers: { 'x-request-id': id } });
        expect([200, 404]).toContain(res.status);
        expect(res.headers['x-request-id']).toMatch(UUID);
        expect(res.text).not.toContain(id);
      }
      expect(logged(id)).toEqual([]);
    }
    // A harmless id is still echoed and logged as given.
    const kept = await server.client.get(`/v1/gateways.${format}`, { headers: { 'x-request-id': 'order-2024-06-10.1' } });
    expect(kept.headers['x-request-id']).toBe('order-2024-06-10.1');
    expect(logged('order-2024-06-10.1')).not.toEqual([]);
  });

  it.each(['json', 'xml'] as const)('%s: a card in a transaction path token is [FILTERED] in the 404 message and absent from logs', async (format) => {
    for (const token of CARD_FORMS) {
      for (const path of [`/v1/transactions/${token}.${format}`, `/v1/transactions/${token}/transcript`]) {
        const res = await server.client.get(path, { headers: { accept: format === 'json' ? 'application/json' : 'application/xml' } });
        expect(res.status, res.text).toBe(404);
        expect(res.text).not.toContain(token);
        if (path.endsWith(format)) expect(errorOf(format, res)).toEqual({ key: 'errors.transaction_not_found', message: 'Unable to find the transaction [FILTERED].' });
      }
      expect(logged(token)).toEqual([]);
    }
    const plain = await server.client.get(`/v1/transactions/no-such-token.${format}`);
    expect(errorOf(format, plain)).toEqual({ key: 'errors.transaction_not_found', message: 'Unable to find the transaction no-such-token.' });
  });
});
