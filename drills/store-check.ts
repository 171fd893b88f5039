import { ApiClient, type ApiCredentials } from '../bench/api-client.js';
import type { Acknowledged } from './write-load.js';

/** States a transaction may be left in: decided, or honestly unknown (never `processing`). */
export const SETTLED_STATES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'gateway_processing_failed', 'gateway_processing_result_unknown', 'pending']);

/** What a check of a store after an incident found. */
export interface StoreCheck {
  paymentMethodsChecked: number;
  /** Acknowledged payment methods that cannot be read back as they were acknowledged. */
  paymentMethodsLost: string[];
  transactionsChecked: number;
  /** Acknowledged purchases that cannot be read back, or not as `succeeded`. */
  transactionsLost: string[];
  /** Every transaction of the environments, by state. */
  states: Record<string, number>;
  /** Transactions in a state that is neither final nor `gateway_processing_result_unknown`. */
  unsettled: string[];
}

/** Reads one page after another until the list ends. */
async function everyTransaction(client: ApiClient): Promise<Array<{ token: string; state: string }>> {
  const all: Array<{ token: string; state: string }> = [];
  let since = '';
  for (;;) {
    const reply = await client.expect(200, 'GET', `/v1/transactions.json?count=100${since === '' ? '' : `&since_token=${since}`}`);
    const page = reply.json.transactions as Array<{ token: string; state: string }>;
    all.push(...page);
    if (page.length < 100) return all;
    since = (page[page.length - 1] as { token: string }).token;
  }
}

/** Every transaction of the environments, counted by state (a snapshot; settles nothing not yet due). */
export async function countStates(baseUrl: string, environments: ApiCredentials[]): Promise<Record<string, number>> {
  const states: Record<string, number> = {};
  for (const credentials of environments) {
    const client = new ApiClient(baseUrl, credentials, 2);
    try {
      for (const transaction of await everyTransaction(client)) states[transaction.state] = (states[transaction.state] ?? 0) + 1;
    } finally {
      await client.close();
    }
  }
  return states;
}

/**
 * After an incident: every acknowledged payment method reads back with its card's last four,
 * every acknowledged purchase reads back `succeeded`, and every transaction of the given
 * environments (acknowledged or not) is settled.
 */
export async function checkStore(baseUrl: string, environments: ApiCredentials[], acknowledged: Acknowledged): Promise<StoreCheck> {
  const clients = new Map(environments.map((credentials) => [credentials.environment_key, new ApiClient(baseUrl, credentials, 8)]));
  const client = (environment: string) => {
    const found = clients.get(environment);
    if (found === undefined) throw new Error(`no credentials for environment ${environment}`);
    return found;
  };
  const check: StoreCheck = { paymentMethodsChecked: 0, paymentMethodsLost: [], transactionsChecked: 0, transactionsLost: [], states: {}, unsettled: [] };
  try {
    const methods = [...acknowledged.paymentMethods.entries()];
    const transactions = [...acknowledged.transactions.entries()];
    // Eight readers at a time: quick, without turning the check into a load test.
    await inParallel(methods, 8, async ([token, expected]) => {
      const reply = await client(expected.environment).send('GET', `/v1/payment_methods/${token}.json`);
      check.paymentMethodsChecked += 1;
      if (reply.status !== 200 || reply.json?.payment_method?.last_four_digits !== expected.lastFour) check.paymentMethodsLost.push(`${token} (${reply.status})`);
    });
    await inParallel(transactions, 8, async ([token, expected]) => {
      const reply = await client(expected.environment).send('GET', `/v1/transactions/${token}.json`);
      check.transactionsChecked += 1;
      const shown = reply.json?.transaction;
      if (reply.status !== 200 || shown?.state !== 'succeeded' || shown?.payment_method?.token !== expected.paymentMethod) {
        check.transactionsLost.push(`${token} (${reply.status} ${shown?.state ?? ''})`.trim());
      }
    });
    for (const environment of environments) {
      for (const transaction of await everyTransaction(client(environment.environment_key))) {
        check.states[transaction.state] = (check.states[transaction.state] ?? 0) + 1;
        if (!SETTLED_STATES.has(transaction.state)) check.unsettled.push(`${transaction.token} (${transaction.state})`);
      }
    }
    return check;
  } finally {
    await Promise.all([...clients.values()].map((one) => one.close()));
  }
}

/** Runs `work` over `items`, at most `width` at a time. */
export async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}
