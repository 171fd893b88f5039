import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ApiClient, type ApiCredentials } from '../../bench/api-client.js';
import { initStore, newMasterKey, runCofferCommand, startCoffer, type RunningCoffer } from '../../bench/coffer-process.js';
import { createScratchDatabase, type ScratchDatabase } from '../../bench/postgres-database.js';
import type { StoreKind } from '../../bench/summary.js';
import type { DrillReport } from '../drill-report.js';

export interface CallbackAvailabilityOptions {
  store: StoreKind;
  /** Admin URL of the PostgreSQL server (store `postgres`). */
  postgresUrl: string | null;
  /** `coffer serve` nodes on the one store: 2 needs PostgreSQL. */
  nodes: 1 | 2;
  logDir: string;
  /** Callbacks the attacking tenant queues to its never-answering URL (default 50, docs/reliability.md). */
  stuckCallbacks?: number;
  /** COFFER_RECEIVER_TIMEOUT, seconds (default 20, docs/reliability.md). */
  timeoutSeconds?: number;
  /** The victim's callbacks measured while the attacker's are stuck. */
  samples?: number;
}

/** The victim's callback must arrive within this of its event (docs/events.md, "One tenant cannot hold another's callbacks"). */
const TARGET_MS = 2000;
/** How long the drill waits for one victim callback before calling it lost. */
const GIVE_UP_MS = 60_000;

/** A local server that accepts every connection, reads the request and never answers. */
async function neverAnswering(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const sockets = new Set<Socket>();
  const server = http.createServer((request) => {
    request.resume();
    requests += 1;
  });
  server.requestTimeout = 0;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/a`,
    requests: () => requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A local server that answers 200 at once and tells when the next callback arrives. */
async function answering(): Promise<{ url: string; next: () => Promise<number>; close: () => Promise<void> }> {
  const waiting: Array<(at: number) => void> = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200).end();
      waiting.shift()?.(performance.now());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/b`,
    next: () =>
      new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no callback')), GIVE_UP_MS);
        waiting.push((at) => {
          clearTimeout(timer);
          resolve(at);
        });
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Creates an environment (CLI) subscribed to AddGateway at `url`; a client on it. */
async function subscribedTenant(coffer: RunningCoffer, env: Record<string, string>, admin: ApiCredentials & { organization_token: string }, name: string, url: string): Promise<ApiClient> {
  const created = JSON.parse(await runCofferCommand(['environments', 'create', '--organization', admin.organization_token, '--name', name, '--json'], env)) as { environment_key: string };
  await new ApiClient(coffer.url, admin).expect(200, 'PUT', `/v1/environments/${created.environment_key}/callback.json`, {
    json: { callback: { url, format: 'json', event_types: ['AddGateway'] } },
  });
  return new ApiClient(coffer.url, { environment_key: created.environment_key, access_secret: admin.access_secret });
}

/** Queues one callback (a gateway's AddGateway event); resolves once the API answered, i.e. the event and its callback are committed. */
async function queueOne(tenant: ApiClient): Promise<number> {
  await tenant.expect(201, 'POST', '/v1/gateways.json', { json: { gateway: { gateway_type: 'test' } } });
  return performance.now();
}

/** The victim's callback delay: from its event's commit to its arrival. */
async function victimDelay(victim: ApiClient, receiver: Awaited<ReturnType<typeof answering>>): Promise<number> {
  const arrival = receiver.next();
  const committed = await queueOne(victim);
  return Math.max(0, Math.round((await arrival) - committed));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * One tenant's never-answering callback URL against another tenant's callbacks (docs/events.md):
 * real `coffer serve` nodes (one, or two sharing PostgreSQL), the attacker's `stuckCallbacks`
 * callbacks queued to a server that never answers (each attempt held for the whole timeout), and
 * the victim's callback delay, idle and then while the attacker's attempts are stuck. Passes when
 * every victim callback arrives within 2 s of its event. Latency on a loaded machine is noisy.
 */
export async function callbackAvailabilityDrill(options: CallbackAvailabilityOptions): Promise<DrillReport> {
  const stuckCallbacks = options.stuckCallbacks ?? 50;
  const timeoutSeconds = options.timeoutSeconds ?? 20;
  const samples = options.samples ?? 5;
  const name = `one tenant's never-answering callback URL against another's callbacks (${options.store}, ${options.nodes} node${options.nodes === 1 ? '' : 's'})`;
  if (options.nodes === 2 && options.store !== 'postgres') throw new Error('two nodes share a PostgreSQL store');
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-drill-callbacks-'));
    dirs.push(dir);
    return dir;
  };
  let database: ScratchDatabase | null = null;
  const nodes: RunningCoffer[] = [];
  const stuck = await neverAnswering();
  const victimReceiver = await answering();
  const logFiles: string[] = [];
  try {
    if (options.store === 'postgres') {
      if (options.postgresUrl === null) throw new Error('the postgres store needs a PostgreSQL URL');
      database = await createScratchDatabase(options.postgresUrl, 'coffer_drill');
    }
    const env: Record<string, string> = {
      COFFER_DATA_DIR: tempDir(),
      COFFER_MASTER_KEY: newMasterKey(),
      COFFER_EGRESS_ALLOW: '127.0.0.1',
      COFFER_RECEIVER_TIMEOUT: String(timeoutSeconds),
      ...(database === null ? {} : { COFFER_DATABASE_URL: database.url }),
    };
    const init = await initStore(env);
    fs.mkdirSync(options.logDir, { recursive: true });
    for (let index = 0; index < options.nodes; index += 1) {
      const logFile = path.join(options.logDir, `callbacks-${options.store}-node${index + 1}.log`);
      logFiles.push(logFile, `${logFile}.stderr`);
      // Each node its own data directory (TLS material, key files); the store is the shared one.
      nodes.push(await startCoffer({ env: { ...env, ...(index === 0 ? {} : { COFFER_DATA_DIR: tempDir() }) }, logFile }));
    }
    const admin = { environment_key: init.environment_key, access_secret: init.access_secret, organization_token: init.organization_token };
    const first = nodes[0] as RunningCoffer;
    const attacker = await subscribedTenant(first, env, admin, 'attacker', stuck.url);
    const victim = await subscribedTenant(nodes[nodes.length - 1] as RunningCoffer, env, admin, 'victim', victimReceiver.url);

    const idle: number[] = [];
    for (let index = 0; index < 3; index += 1) idle.push(await victimDelay(victim, victimReceiver));

    for (let index = 0; index < stuckCallbacks; index += 1) await queueOne(attacker);
    const attackStarted = performance.now();
    while (stuck.requests() === 0 && performance.now() - attackStarted < GIVE_UP_MS) await new Promise((resolve) => setTimeout(resolve, 20));
    const underAttack: number[] = [];
    const lost: string[] = [];
    for (let index = 0; index < samples; index += 1) {
      try {
        underAttack.push(await victimDelay(victim, victimReceiver));
      } catch {
        lost.push(`the victim's callback did not arrive within ${GIVE_UP_MS / 1000} s`);
      }
    }
    const worst = Math.max(0, ...underAttack);
    if (worst >= TARGET_MS) lost.push(`the victim's callback took ${worst} ms with the attacker's callbacks stuck (target < ${TARGET_MS} ms)`);
    if (stuck.requests() === 0) lost.push('the attacker’s callbacks were never attempted: the drill measured nothing');
    return {
      name,
      ok: lost.length === 0,
      tried: [
        `attacker: ${stuckCallbacks} callbacks queued to a local URL that accepts and never answers (COFFER_RECEIVER_TIMEOUT ${timeoutSeconds} s)`,
        `victim: ${samples} callback${samples === 1 ? '' : 's'}, one after another, to a local URL that answers 200 at once, while the attacker's attempts hang`,
      ],
      lost,
      figures: {
        'victim callback delay idle, median ms': median(idle),
        'victim callback delay under attack, median ms': median(underAttack),
        'victim callback delay under attack, max ms': worst,
        'attacker attempts started at the never-answering server': stuck.requests(),
      },
      logFiles,
    };
  } finally {
    // The hanging attempts end at once when their server goes, so the nodes stop without waiting the timeout.
    await stuck.close();
    for (const node of nodes) await node.stop();
    await victimReceiver.close();
    await database?.drop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}
