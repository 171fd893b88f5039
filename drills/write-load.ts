import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient, type ApiCredentials } from '../bench/api-client.js';
import { cardFields, purchaseJson } from '../bench/bench-tenant.js';

/** A gateway and the card the load vaults for it (a production gateway needs a real card). */
export interface LoadLane {
  credentials: ApiCredentials;
  gateway: string;
  pan: string;
}

/** What the load was told 2xx about: the tokens that must survive whatever happens next. */
export interface Acknowledged {
  /** Payment method token → its environment and the last four digits of its card. */
  paymentMethods: Map<string, { environment: string; lastFour: string }>;
  /** Transaction token → its environment and the payment method it charged. */
  transactions: Map<string, { environment: string; paymentMethod: string }>;
}

/** What the load tried and what came back, by outcome. */
export interface LoadTally {
  attempted: number;
  acknowledged: number;
  /** Requests cut off without a response (the kill, the database restart). */
  noResponse: number;
  /** Answers that were not 2xx, by status and error key (e.g. `500 errors.internal`). */
  refused: Map<string, number>;
  /** Requests that got no answer within the client's timeout. */
  hung: number;
}

export function emptyAcknowledged(): Acknowledged {
  return { paymentMethods: new Map(), transactions: new Map() };
}

export function emptyTally(): LoadTally {
  return { attempted: 0, acknowledged: 0, noResponse: 0, refused: new Map(), hung: 0 };
}

const HUNG_MS = 15_000;

/**
 * Concurrent writers, each looping tokenize → purchase with that token, in turn over `lanes`,
 * until `stop()` says so. Every 2xx is recorded in `acknowledged`; every other outcome counted
 * in `tally`. Nothing here waits between requests: the point is to be mid-write at any moment.
 */
export async function runWriteLoad(
  baseUrl: () => string,
  lanes: LoadLane[],
  options: { workers: number; stop: () => boolean; acknowledged: Acknowledged; tally: LoadTally; onOutcome?: (ok: boolean) => void },
): Promise<void> {
  const clients = new Map<string, ApiClient>();
  const clientFor = (lane: LoadLane) => {
    const key = `${baseUrl()} ${lane.credentials.environment_key}`;
    let client = clients.get(key);
    if (client === undefined) {
      client = new ApiClient(baseUrl(), lane.credentials, options.workers);
      clients.set(key, client);
    }
    return client;
  };
  const { acknowledged, tally } = options;
  const attempt = async (work: () => Promise<{ status: number; json: any }>, expected: number): Promise<any> => { // eslint-disable-line @typescript-eslint/no-explicit-any -- API bodies
    tally.attempted += 1;
    try {
      const reply = await work();
      if (reply.status === expected) {
        tally.acknowledged += 1;
        options.onOutcome?.(true);
        return reply.json;
      }
      const key = `${reply.status} ${reply.json?.errors?.[0]?.key ?? reply.json?.transaction?.state ?? 'no error key'}`;
      tally.refused.set(key, (tally.refused.get(key) ?? 0) + 1);
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') tally.hung += 1;
      else {
        tally.noResponse += 1;
        // Nobody is listening (the server was killed): do not spin on refused connections.
        await sleep(20);
      }
    }
    options.onOutcome?.(false);
    return null;
  };
  const worker = async (index: number) => {
    for (let turn = index; !options.stop(); turn += 1) {
      const lane = lanes[turn % lanes.length] as LoadLane;
      const client = clientFor(lane);
      const tokenized = await attempt(
        () => client.send('POST', '/v1/payment_methods.json', { json: { payment_method: { credit_card: cardFields(lane.pan) } }, timeoutMs: HUNG_MS }),
        201,
      );
      const paymentMethod = tokenized?.transaction?.payment_method?.token as string | undefined;
      if (paymentMethod === undefined) continue;
      const environment = lane.credentials.environment_key;
      acknowledged.paymentMethods.set(paymentMethod, { environment, lastFour: lane.pan.slice(-4) });
      if (options.stop()) break;
      const purchased = await attempt(
        () => client.send('POST', `/v1/gateways/${lane.gateway}/purchase.json`, { json: JSON.parse(purchaseJson(paymentMethod)), timeoutMs: HUNG_MS }),
        200,
      );
      const transaction = purchased?.transaction?.token as string | undefined;
      if (transaction !== undefined) acknowledged.transactions.set(transaction, { environment, paymentMethod });
    }
  };
  try {
    await Promise.all(Array.from({ length: options.workers }, (_, index) => worker(index)));
  } finally {
    await Promise.all([...clients.values()].map((client) => client.close().catch(() => undefined)));
  }
}
