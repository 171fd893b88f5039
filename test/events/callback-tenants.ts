import { storeAccess } from '../../src/store/store-access.js';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { buildCallbacks } from '../../src/callbacks-wiring.js';
import { systemClock, type Clock } from '../../src/domain/clock.js';
import type { CallbackDispatcher, DispatcherSettings } from '../../src/services/callbacks/callback-dispatcher.js';
import type { StoreHandle } from '../../src/store/database.js';
import type { ApiClient } from '../helpers/client.js';
import { createTestGateway } from '../helpers/fixtures.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Tenants with callback subscriptions and dispatchers over a test server's store, for the tests
 * of fair delivery (docs/events.md, "Delivery"): each tenant is an environment subscribed to
 * AddGateway in JSON, so creating a gateway queues exactly one callback to its URL.
 */

export interface Tenant {
  key: string;
  api: ApiClient;
}

/** A fresh environment whose subscription sends AddGateway to `url`. */
export async function subscribedTenant(server: TestServer, name: string, url: string): Promise<Tenant> {
  const row = await server.core.tenancy.createEnvironment(server.init.organization_token, name, false);
  const res = await server.client.sendJson('PUT', `/v1/environments/${row.key}/callback.json`, { callback: { url, format: 'json', event_types: ['AddGateway'] } });
  expect(res.status, res.text).toBe(200);
  return { key: row.key, api: server.client.withAuth({ user: row.key, password: server.init.access_secret }) };
}

/** Queues `count` callbacks for the tenant (one gateway each). */
export async function queueCallbacks(tenant: Tenant, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) await createTestGateway(tenant.api);
}

/** A dispatcher (one "node") over `store`, with the server's keyring, views and delivery client. */
export function dispatcherOn(server: TestServer, store: StoreHandle, settings: Partial<DispatcherSettings> & { timeoutMs: number }, clock: Clock = systemClock): CallbackDispatcher {
  const { timeoutMs, ...dispatch } = settings;
  return buildCallbacks({
    access: storeAccess(store),
    keyring: server.core.keyring,
    clock,
    client: server.core.deliveryClient,
    transactionQuery: server.core.transactionQuery,
    events: server.core.events,
    timeoutMs,
    dispatch,
  }).callbacks;
}

/** The tenant's deliveries as stored. */
export function deliveriesOf(server: TestServer, tenant: Tenant) {
  return server.core.store.db.selectFrom('callback_deliveries').selectAll().where('environment_key', '=', tenant.key).orderBy('seq').execute();
}

/** How many attempts were recorded for the tenant's deliveries. */
export async function attemptsRecorded(server: TestServer, tenant: Tenant): Promise<number> {
  const row = await server.core.store.db
    .selectFrom('callback_attempts')
    .innerJoin('callback_deliveries', 'callback_deliveries.token', 'callback_attempts.delivery_token')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('callback_deliveries.environment_key', '=', tenant.key)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Polls `condition` until it holds. `guardMs` only keeps a broken build from hanging the run;
 * tests assert what held when the condition was met, never how long it took.
 */
export async function until(condition: () => boolean | Promise<boolean>, guardMs = 60_000): Promise<void> {
  const deadline = Date.now() + guardMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${guardMs} ms`);
    await sleep(20);
  }
}

/**
 * A callback receiver on 127.0.0.1 that records each delivery's path and X-Coffer-Delivery-Id and
 * answers as told: `pass` (200 at once), `fail` (500 at once) or `hold` (keeps the request open
 * until `release()` answers it 200). `holding` is how many attempts are waiting for it right now.
 */
export class GateReceiver {
  mode: 'pass' | 'fail' | 'hold' = 'pass';
  readonly received: Array<{ target: string; deliveryId: string }> = [];
  private readonly held: http.ServerResponse[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: http.Server) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
      request.resume();
      request.on('end', () => {
        this.received.push({ target: request.url ?? '', deliveryId: String(request.headers['x-coffer-delivery-id']) });
        if (this.mode === 'hold') this.held.push(response);
        else response.writeHead(this.mode === 'pass' ? 200 : 500).end();
      });
    });
  }

  static async start(): Promise<GateReceiver> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new GateReceiver(server);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get holding(): number {
    return this.held.length;
  }

  /** Answers every held request 200, and the next ones at once. */
  release(): void {
    this.mode = 'pass';
    for (const response of this.held.splice(0)) response.writeHead(200).end();
  }

  /** How many times each delivery arrived. */
  arrivals(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const { deliveryId } of this.received) counts.set(deliveryId, (counts.get(deliveryId) ?? 0) + 1);
    return counts;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
