import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTransaction } from '../../src/services/transaction-records.js';
import { newTransactionRow } from '../../src/store/mappers/transaction.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/**
 * An export whose node stopped between its 202 and its result stays `pending`; the sweep records
 * it as failed once no upload and callback could still be running (3 × COFFER_RECEIVER_TIMEOUT + 60 s).
 */
describe.each(storeKinds)('interrupted exports (%s)', (store) => {
  const clock = new ManualClock();
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ store, clock, env: { COFFER_RECEIVER_TIMEOUT: '10' } });
  });
  afterAll(() => server.close());

  it('fails a stale pending export on the next sweep and leaves a recent one alone', async () => {
    const environmentKey = server.init.environment_key;
    const insert = async () => {
      const row = newTransactionRow(newTransaction({ environmentKey, transactionType: 'ExportPaymentMethods', outcome: 'processing', details: {}, now: clock.now().toISOString() }));
      await server.core.store.db.insertInto('transactions').values({ ...row, state: 'pending' }).execute();
      return row.token;
    };
    const stale = await insert();
    clock.advance(89_000);
    const recent = await insert();
    clock.advance(2_000);
    const result = await server.core.sweeper.sweepOnce();
    expect(result.exportsInterrupted).toBe(1);
    const rows = await server.core.store.db.selectFrom('transactions').select(['token', 'state', 'message_key']).where('token', 'in', [stale, recent]).execute();
    expect(Object.fromEntries(rows.map((row) => [row.token, [row.state, row.message_key]]))).toEqual({
      [stale]: ['failed', 'messages.export_interrupted'],
      [recent]: ['pending', null],
    });
    const shown = await server.client.get(`/v1/transactions/${stale}.json`);
    expect(shown.json().transaction).toMatchObject({ state: 'failed', succeeded: false });
  });
});
