import fs from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, storeKinds } from '../helpers/postgres.js';
import { killAllServed, startServe, useCofferProcesses, type ServedCoffer } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/**
 * A write acknowledged with 2xx survives `kill -9`: concurrent gateway creations against a
 * real `coffer serve`, SIGKILL mid-flight, restart, and every acknowledged token is there.
 */

const IN_FLIGHT = 8;
const LOAD_MS = 1500;

const defer = useCofferProcesses();

afterAll(async () => {
  await killAllServed();
});

interface Credentials {
  environment_key: string;
  access_secret: string;
}

function client(served: ServedCoffer, ca: string, credentials: Credentials) {
  const agent = new Agent({ connect: { ca }, connections: IN_FLIGHT * 2 });
  const authorization = `Basic ${Buffer.from(`${credentials.environment_key}:${credentials.access_secret}`).toString('base64')}`;
  return {
    agent,
    async call(method: 'GET' | 'POST', urlPath: string, body?: unknown): Promise<{ status: number; json: any }> {
      const response = await request(`${served.url}${urlPath}`, {
        method,
        dispatcher: agent,
        headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.body.text();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        // left null; the caller asserts on status first
      }
      return { status: response.statusCode, json };
    },
  };
}

describe.each(storeKinds)('durability on %s', (kind) => {
  it('keeps every write acknowledged with 201 across kill -9', async () => {
    const temp = tempDir('coffer-durability-');
    defer(temp.cleanup);
    const env: Record<string, string> = { COFFER_DATA_DIR: temp.dir, COFFER_LOG_LEVEL: 'warn' };
    if (kind === 'postgres') {
      const database = await createPostgresDatabase();
      defer(database.drop);
      env.COFFER_DATABASE_URL = database.url;
    }

    const first = await startServe(env);
    expect(first.init, first.stderr()).not.toBeNull();
    expect(fs.existsSync(path.join(temp.dir, 'coffer.sqlite'))).toBe(kind === 'sqlite');
    const credentials = first.init!;
    const ca = fs.readFileSync(path.join(temp.dir, 'tls', 'ca.pem'), 'utf8');
    const writer = client(first, ca, credentials);

    // token → description, for every 201 whose body was fully received.
    const acknowledged = new Map<string, string>();
    let attempted = 0;
    let failed = 0;
    let unexpected: string | null = null;
    let killed = false;
    const loadEnds = Date.now() + LOAD_MS;
    let next = 0;
    const worker = async () => {
      // Keep going after the deadline until the kill lands, so requests are in flight when it does.
      while (!killed) {
        const description = `n${next++}`;
        attempted += 1;
        try {
          const response = await writer.call('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', description } });
          if (response.status === 201 && response.json?.gateway?.description === description) {
            acknowledged.set(response.json.gateway.token, description);
          } else {
            unexpected ??= `status ${response.status}: ${JSON.stringify(response.json)}`;
          }
        } catch {
          // The kill cuts connections; those requests were never acknowledged.
          failed += 1;
          if (killed) return;
        }
      }
    };
    const workers = Array.from({ length: IN_FLIGHT }, () => worker());
    while (Date.now() < loadEnds) await new Promise((resolve) => setTimeout(resolve, 25));
    const acknowledgedBeforeKill = acknowledged.size;
    killed = first.kill('SIGKILL');
    expect(killed).toBe(true);
    await Promise.all(workers);
    expect(await first.exited).toBeNull();
    expect(first.child.signalCode).toBe('SIGKILL');
    await writer.agent.destroy();
    expect(unexpected).toBeNull();
    // Enough load to mean something.
    expect(acknowledgedBeforeKill).toBeGreaterThan(20);
    // The kill landed while requests were in flight (each worker loops without pause).
    expect(failed).toBeGreaterThan(0);

    const second = await startServe(env);
    expect(second.init).toBeNull();
    const reader = client(second, ca, credentials);
    try {
      // Each acknowledged gateway, by token.
      const tokens = [...acknowledged.keys()];
      let checked = 0;
      const readers = Array.from({ length: IN_FLIGHT }, async () => {
        for (let token = tokens.pop(); token !== undefined; token = tokens.pop()) {
          const response = await reader.call('GET', `/v1/gateways/${token}.json`);
          expect(response.status, `GET ${token}`).toBe(200);
          expect(response.json.gateway.token).toBe(token);
          expect(response.json.gateway.description).toBe(acknowledged.get(token));
          checked += 1;
        }
      });
      await Promise.all(readers);
      expect(checked).toBe(acknowledged.size);

      // And all of them through the list, page by page.
      const listed = new Map<string, string>();
      let since: string | null = null;
      let pages = 0;
      for (;;) {
        const query = `count=100${since === null ? '' : `&since_token=${encodeURIComponent(since)}`}`;
        const page = await reader.call('GET', `/v1/gateways.json?${query}`);
        expect(page.status).toBe(200);
        const gateways = page.json.gateways as Array<{ token: string; description: string }>;
        pages += 1;
        for (const gateway of gateways) {
          expect(listed.has(gateway.token), `${gateway.token} listed twice`).toBe(false);
          listed.set(gateway.token, gateway.description);
        }
        if (gateways.length < 100) break;
        since = gateways[gateways.length - 1]!.token;
        expect(pages).toBeLessThan(10_000);
      }
      for (const [token, description] of acknowledged) expect(listed.get(token), `${token} in the list`).toBe(description);
      // Only writes that were attempted can exist: a commit may precede its lost response, never the reverse.
      expect(listed.size).toBeGreaterThanOrEqual(acknowledged.size);
      expect(listed.size).toBeLessThanOrEqual(attempted);

      console.info(
        `[durability ${kind}] attempted ${attempted}, acknowledged ${acknowledged.size} (${acknowledgedBeforeKill} before the kill), ` +
          `failed by the kill ${failed}, stored ${listed.size}, checked ${checked} by token and via ${pages} list pages`,
      );
    } finally {
      await reader.agent.close();
    }
    second.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 90_000);
});
