import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStoreUnavailable } from '../../src/store/unavailable.js';
import { RedisOutage as TcpRelay } from '../limits/redis-proxy.js';
import { createPostgresDatabase, postgresUrl } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

describe('which errors mean the database is unreachable', () => {
  it('network codes, connection-class SQLSTATEs, pool messages and AggregateErrors of those; nothing else', () => {
    const coded = (code: string) => Object.assign(new Error('x'), { code });
    for (const error of [coded('ECONNREFUSED'), coded('ECONNRESET'), coded('08006'), coded('57P01'), coded('53300'), new Error('Connection terminated unexpectedly'), new Error('timeout exceeded when trying to connect'), new AggregateError([coded('ECONNREFUSED')], '')]) {
      expect(isStoreUnavailable(error), error.message).toBe(true);
    }
    for (const error of [coded('23505'), coded('42P01'), new Error('boom'), new TypeError('x is undefined')]) expect(isStoreUnavailable(error)).toBe(false);
  });
});

/**
 * While PostgreSQL is unreachable, requests answer 503 errors.service_unavailable with
 * Retry-After instead of 500 errors.internal (docs/reliability.md). The server reaches its own database through a TCP
 * relay the test cuts (never the shared server itself), then restores.
 */
if (postgresUrl !== null) {
  describe('PostgreSQL unreachable', () => {
    let relay: TcpRelay;
    let server: TestServer;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      const database = await createPostgresDatabase();
      drop = database.drop;
      relay = await TcpRelay.start(database.url);
      const relayed = new URL(database.url);
      relayed.host = `127.0.0.1:${relay.port}`;
      server = await startServer({ env: { COFFER_DATABASE_URL: relayed.toString() } });
    });
    afterAll(async () => {
      await relay?.restore();
      await server?.close();
      await relay?.close();
      await drop?.();
    });

    it('answers 503 errors.service_unavailable with Retry-After, in JSON and XML, and recovers when it is back', async () => {
      expect((await server.client.get('/v1/gateways.json')).status).toBe(200);
      await relay.cut();
      const json = await server.client.get('/v1/gateways.json');
      expect(json.status).toBe(503);
      expect(json.headers['retry-after']).toBe('5');
      expect(json.json()).toEqual({ errors: [{ key: 'errors.service_unavailable', message: 'The service is temporarily unavailable (its database cannot be reached). Try again shortly.' }] });
      const xml = await server.client.sendXml('POST', '/v1/gateways.xml', '<gateway><gateway_type>test</gateway_type></gateway>');
      expect(xml.status).toBe(503);
      expect(xml.text).toContain('<error key="errors.service_unavailable">');
      expect(server.logs.some((line) => line.includes('store unavailable'))).toBe(true);
      await relay.restore();
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt += 1) {
        status = (await server.client.get('/v1/gateways.json')).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(200);
    });
  });
}
