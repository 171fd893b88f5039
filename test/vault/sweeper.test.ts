import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCore, type Core } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import type { PaymentMethodCreateInput } from '../../src/domain/payment-method.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { bankAccountInput, creditCardInput } from '../helpers/payment-method-inputs.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import type { Environment } from '../../src/domain/environment.js';
import type { PaymentMethodRow } from '../../src/store/mappers/payment-method.js';

/**
 * The cache sweeper: caching windows end on time. With a manual clock and COFFER_CACHE_TTL=60,
 * expired cached methods are redacted, expired CVVs of retained ones dropped, each exactly once,
 * also when several sweepers (separate Core instances on one database) run at the same time.
 */

const TTL_SECONDS = 60;
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

const HOPPER = { first_name: 'Grace', last_name: 'Hopper' };

function cardInput(retained: boolean, cvv: string | null, number = '4111111111111111'): PaymentMethodCreateInput {
  return creditCardInput(HOPPER, { number, month: 10, year: 2040, cvv }, retained);
}

function bankInput(retained: boolean): PaymentMethodCreateInput {
  return bankAccountInput(HOPPER, '9876543210', retained);
}

describe.each(storeKinds)('cache sweeper (%s)', (store) => {
  const masterKey = randomBytes(32).toString('base64');
  const clock = new ManualClock(T0);
  let server: TestServer;
  let environment: Environment;
  const extraCores: Core[] = [];

  beforeAll(async () => {
    server = await startServer({ store, clock, env: { COFFER_CACHE_TTL: String(TTL_SECONDS), COFFER_MASTER_KEY: masterKey } });
    environment = await server.core.tenancy.requireEnvironment(server.init.environment_key);
  });
  afterAll(async () => {
    for (const core of extraCores) await core.close();
    await server.close();
  });

  /** Another Coffer node on the same database (same master key, same manual clock). */
  async function secondCore(): Promise<Core> {
    const url = server.core.config.store.kind === 'postgres' ? server.core.config.store.url : null;
    const core = await buildCore(
      loadConfig({
        COFFER_DATA_DIR: server.dataDir,
        COFFER_MASTER_KEY: masterKey,
        COFFER_CACHE_TTL: String(TTL_SECONDS),
        ...(url === null ? {} : { COFFER_DATABASE_URL: url }),
      }),
      clock,
    );
    extraCores.push(core);
    return core;
  }

  /** The two counts this suite is about (the result may carry more, e.g. other housekeeping). */
  async function sweep(core: Core): Promise<{ redacted: number; cvvsDropped: number }> {
    const { redacted, cvvsDropped } = await core.sweeper.sweepOnce();
    return { redacted, cvvsDropped };
  }

  async function row(token: string): Promise<PaymentMethodRow> {
    return server.core.store.db.selectFrom('payment_methods').selectAll().where('token', '=', token).executeTakeFirstOrThrow();
  }

  async function create(input: PaymentMethodCreateInput): Promise<string> {
    return (await server.core.paymentMethods.create(environment, input)).paymentMethod.token;
  }

  it('redacts exactly the expired cached methods, drops expired CVVs of retained ones, and returns the counts', async () => {
    const start = clock.now().getTime();
    const cachedWithCvv = [await create(cardInput(false, '123')), await create(cardInput(false, '4567', '5555555555554444'))];
    const cachedWithoutCvv = [await create(cardInput(false, null, '378282246310005'))];
    const cachedBank = [await create(bankInput(false))];
    const retainedWithCvv = [await create(cardInput(true, '321')), await create(cardInput(true, '999', '6011111111111117')), await create(cardInput(true, '1234', '378282246310005'))];
    const retainedWithoutCvv = [await create(cardInput(true, null)), await create(bankInput(true))];
    // Created 30 s later: its windows end 30 s after the others'.
    clock.set(start + 30_000);
    const later = [await create(cardInput(false, '777')), await create(cardInput(true, '888'))];
    // Retained over HTTP as well (the server uses the same clock).
    const overHttp = await server.client.sendJson('POST', '/v1/payment_methods.json', {
      payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: '4111111111111111', verification_value: '246', month: 1, year: 2041 }, retained: true },
    });
    expect(overHttp.status, overHttp.text).toBe(201);
    const laterHttp = overHttp.json().transaction.payment_method.token as string;

    const expiredCached = [...cachedWithCvv, ...cachedWithoutCvv, ...cachedBank];
    // Just before the end of the first windows: nothing to do.
    clock.set(start + TTL_SECONDS * 1000 - 1);
    expect(await sweep(server.core)).toEqual({ redacted: 0, cvvsDropped: 0 });

    // At the end exactly (the window is [created, created + TTL)).
    clock.set(start + TTL_SECONDS * 1000);
    expect(await sweep(server.core)).toEqual({ redacted: expiredCached.length, cvvsDropped: retainedWithCvv.length });

    for (const token of expiredCached) {
      expect(await row(token), token).toMatchObject({
        storage_state: 'redacted',
        sealed_number: null,
        sealed_cvv: null,
        cvv_length: null,
        cvv_expires_at: null,
        fingerprint: null,
        sealed_routing_number: null,
        sealed_account_number: null,
        cache_expires_at: null,
      });
    }
    for (const token of retainedWithCvv) {
      const kept = await row(token);
      expect(kept).toMatchObject({ storage_state: 'retained', sealed_cvv: null, cvv_length: null, cvv_expires_at: null });
      expect(kept.sealed_number).toMatch(/^c1\./);
      expect(kept.fingerprint).toMatch(/^[0-9a-f]{36}$/);
    }
    for (const token of retainedWithoutCvv) expect((await row(token)).storage_state).toBe('retained');
    // The later ones are untouched.
    for (const token of [...later, laterHttp]) {
      const untouched = await row(token);
      expect(untouched.storage_state).not.toBe('redacted');
      expect(untouched.sealed_cvv).toMatch(/^c1\./);
    }

    // A second sweep has nothing left to do.
    expect(await sweep(server.core)).toEqual({ redacted: 0, cvvsDropped: 0 });

    // Over HTTP, the swept methods show as such.
    const shown = await server.client.get(`/v1/payment_methods/${cachedWithCvv[0]}.json`);
    expect(shown.json().payment_method).toMatchObject({ storage_state: 'redacted', number: '', verification_value: '', fingerprint: null });
    const retainedShown = await server.client.get(`/v1/payment_methods/${retainedWithCvv[0]}.json`);
    expect(retainedShown.json().payment_method).toMatchObject({ storage_state: 'retained', verification_value: '', number: 'XXXX-XXXX-XXXX-1111' });

    // 30 s on, the later windows end: one cached redacted, two CVVs (the later retained and the HTTP one) dropped.
    clock.set(start + 30_000 + TTL_SECONDS * 1000);
    expect(await sweep(server.core)).toEqual({ redacted: 1, cvvsDropped: 2 });
    expect((await row(later[0]!)).storage_state).toBe('redacted');
    expect((await row(later[1]!)).sealed_cvv).toBeNull();
    expect((await row(laterHttp)).sealed_cvv).toBeNull();
    expect(await sweep(server.core)).toEqual({ redacted: 0, cvvsDropped: 0 });
  });

  it('does not count a method a read already settled (the read path enforces the window too)', async () => {
    const start = clock.now().getTime();
    const cached = await create(cardInput(false, '135'));
    const retained = await create(cardInput(true, '246'));
    clock.set(start + TTL_SECONDS * 1000 + 1);
    const shown = await server.client.get(`/v1/payment_methods/${cached}.json`);
    expect(shown.json().payment_method.storage_state).toBe('redacted');
    expect((await server.client.get(`/v1/payment_methods/${retained}.json`)).json().payment_method.verification_value).toBe('');
    expect(await sweep(server.core)).toEqual({ redacted: 0, cvvsDropped: 0 });
  });

  it('several sweepers on separate Core instances redact each method exactly once', async () => {
    const start = clock.now().getTime();
    const cached: string[] = [];
    const retained: string[] = [];
    const pans = ['4111111111111111', '5555555555554444', '6011111111111117', '3569990010030400'];
    for (let i = 0; i < 160; i += 1) cached.push(await create(cardInput(false, i % 2 === 0 ? '123' : null, pans[i % pans.length])));
    for (let i = 0; i < 40; i += 1) retained.push(await create(cardInput(true, '9876', pans[i % pans.length])));
    for (let i = 0; i < 20; i += 1) cached.push(await create(bankInput(false)));
    clock.set(start + TTL_SECONDS * 1000);

    const others = [await secondCore(), await secondCore()];
    const results = await Promise.all([server.core, ...others].map((core) => sweep(core)));
    const redacted = results.reduce((sum, result) => sum + result.redacted, 0);
    const dropped = results.reduce((sum, result) => sum + result.cvvsDropped, 0);
    expect({ redacted, dropped, results }).toMatchObject({ redacted: cached.length, dropped: retained.length });

    const rows = await server.core.store.db
      .selectFrom('payment_methods')
      .select(['token', 'storage_state', 'sealed_number', 'sealed_cvv', 'sealed_account_number'])
      .where('token', 'in', [...cached, ...retained])
      .execute();
    const byToken = new Map(rows.map((r) => [r.token, r]));
    for (const token of cached) expect(byToken.get(token)).toMatchObject({ storage_state: 'redacted', sealed_number: null, sealed_cvv: null, sealed_account_number: null });
    for (const token of retained) {
      expect(byToken.get(token)).toMatchObject({ storage_state: 'retained', sealed_cvv: null });
      expect(byToken.get(token)?.sealed_number).toMatch(/^c1\./);
    }
    // Nobody finds anything more.
    const again = await Promise.all([server.core, ...others].map((core) => sweep(core)));
    expect(again).toEqual([0, 1, 2].map(() => ({ redacted: 0, cvvsDropped: 0 })));
  });
});
