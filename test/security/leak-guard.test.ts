import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../helpers/client.js';
import { startServer } from '../helpers/server.js';

/** The global leak guard of the helpers fires (and never echoes the PAN it found). */
describe('leak guard of the test helpers', () => {
  it('ApiClient throws on a response carrying a PAN, naming method and path, PAN masked', async () => {
    const upstream = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(req.url === '/clean' ? '{"number":"XXXX-XXXX-XXXX-1111"}' : '{"number":"4111 1111 1111 1111"}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const client = new ApiClient(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, null, null);
    try {
      expect((await client.get('/clean')).status).toBe(200);
      const failure = await client.get('/v1/payment_methods/abc.json').then(
        () => null,
        (error: Error) => error,
      );
      expect(failure?.message).toMatch(/card data in clear in the response to GET \/v1\/payment_methods\/abc\.json/);
      expect(failure?.message).toContain('4111 11** **** 1111');
      expect(failure?.message).not.toMatch(/4111.?1111.?1111.?1111/);
    } finally {
      await client.close();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });

  it('startServer records a log line with a PAN and close() throws; it scans the SQLite files too', async () => {
    const server = await startServer({ leakGuard: 'record' });
    // Coffer never logs a PAN, so the test plants one through the server's own logger.
    server.logger.info({ note: '5555555555554444' }, 'planted');
    expect(server.leaks.join('\n')).toContain('555555******4444');
    expect(server.leaks.join('\n')).not.toContain('5555555555554444');
    // A PAN written into the database in clear (here as an organization name).
    await server.core.tenancy.createOrganization('6011111111111117');
    const closing = await server.close().then(
      () => null,
      (error: Error) => error,
    );
    expect(closing?.message).toContain('a log line');
    expect(closing?.message).toMatch(/in coffer\.sqlite(-wal)?: 601111\*\*\*\*\*\*1117/);
    expect(closing?.message).not.toContain('6011111111111117');
  });
});
