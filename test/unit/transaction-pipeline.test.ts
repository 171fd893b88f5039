import type { RequestMeta } from '../../src/domain/request.js';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import type { ChangeEvent } from '../../src/domain/event.js';
import type { Environment } from '../../src/domain/environment.js';
import type { PaymentMethod, PaymentMethodPatch } from '../../src/domain/payment-method.js';
import type { NewTransaction, Transaction, TransactionPatch, TransactionState } from '../../src/domain/transaction.js';
import { blankResponse, type AdapterPaymentMethod, type GatewayRequest, type GatewayResponse } from '../../src/gateways/kit/index.js';
import type { GatewayRecord } from '../../src/services/gateway.service.js';
import { newTransaction } from '../../src/services/transaction-records.js';
import type { CallOutcome, CallPermit } from '../../src/services/transactions/gateway-caller.js';
import { runGatewayTransaction, type GatewayTransactionPlan } from '../../src/services/transactions/pipeline/pipeline.js';
import type { PipelineDeps, PipelineRepos } from '../../src/services/transactions/pipeline/pipeline-types.js';
import { REDACTED_METHOD } from '../../src/services/transactions/pipeline/refusals.js';
import {
  authorizeRequest,
  claimPending,
  outcomeOf,
  persistProcessing,
  persistRefusal,
  reservePaymentMethod,
  reserveReference,
  statusFor,
} from '../../src/services/transactions/pipeline/steps.js';
import { ManualClock } from '../helpers/manual-clock.js';

const API_REQUEST: RequestMeta = { id: 'req-pipeline' };

/*
 * The gateway transaction pipeline over fakes: an in-memory unit of work (its writes land when the
 * work returns, none when it throws), a caller whose permits are counted, no database.
 */

const ENV = 'env-1';
const environment = { key: ENV } as Environment;
const gateway = { token: 'gw-1', gatewayType: 'test', sandbox: true, settings: {}, definition: { name: 'Test', test: true, capturesAreFinal: false } } as unknown as GatewayRecord;

function card(token: string, storageState: string, singleUse = false): PaymentMethod {
  const sealed = { number: 'sealed-number', cvv: 'sealed', routingNumber: null, accountNumber: null };
  return { token, environmentKey: ENV, storageState, singleUse, sealed, cvvLength: 3, cvvExpiresAt: 'later', email: null, test: true } as unknown as PaymentMethod;
}

const OPENED = { type: 'credit_card' } as unknown as AdapterPaymentMethod;

/** The store: transactions, payment methods, events and locks, committed per unit of work. */
class FakeStore {
  transactions = new Map<string, Transaction>();
  methods = new Map<string, PaymentMethod>();
  events: ChangeEvent[] = [];
  locks: string[] = [];
  commits = 0;
  rollbacks = 0;
  private position = 0;

  /** The request each unit of work was opened for (its events carry that request's id). */
  requestIds: (string | null | undefined)[] = [];

  unitOfWork: PipelineDeps['unitOfWork'] = async (work, scope) => {
    this.requestIds.push(scope?.request?.id);
    const saved = { transactions: new Map(this.transactions), methods: new Map(this.methods), events: [...this.events] };
    try {
      const result = await work(this.repos());
      this.commits += 1;
      return result;
    } catch (error) {
      Object.assign(this, saved);
      this.rollbacks += 1;
      throw error;
    }
  };

  private repos(): PipelineRepos {
    const patch = (current: Transaction, change: TransactionPatch): Transaction => {
      const next: Record<string, unknown> = { ...current };
      for (const [field, value] of Object.entries(change)) if (value !== undefined) next[field] = value;
      this.transactions.set(current.token, next as unknown as Transaction);
      return next as unknown as Transaction;
    };
    const transactions = {
      insert: async (created: NewTransaction): Promise<Transaction> => {
        this.position += 1;
        const stored = {
          receiverToken: null,
          callbackUrl: null,
          callbackFormat: null,
          firstAttemptToken: null,
          ...created,
          transcript: null,
          orderId: null,
          reconcileNextAt: null,
          reconcileAttempts: 0,
          reconciledAt: null,
          routedBy: null,
          position: this.position,
        } as Transaction;
        this.transactions.set(created.token, stored);
        return stored;
      },
      finish: async (current: Transaction, change: TransactionPatch) => patch(current, change),
      update: async (_environmentKey: string, token: string, change: TransactionPatch) => {
        const current = this.transactions.get(token);
        return current === undefined ? undefined : patch(current, change);
      },
      updateIfState: async (_environmentKey: string, token: string, from: TransactionState, change: TransactionPatch) => {
        const current = this.transactions.get(token);
        return current === undefined || current.state !== from ? undefined : patch(current, change);
      },
      children: async (_environmentKey: string, reference: string) => [...this.transactions.values()].filter((child) => child.referenceToken === reference),
    };
    const methodWrite = async (token: string, states: readonly string[], change: PaymentMethodPatch) => {
      const current = this.methods.get(token);
      if (current === undefined || !states.includes(current.storageState)) return undefined;
      const next = { ...current, ...change, sealed: { ...current.sealed, ...change.sealed } } as PaymentMethod;
      this.methods.set(token, next);
      return next;
    };
    const paymentMethods = {
      find: async (_environmentKey: string, token: string) => this.methods.get(token),
      updateIfStateReturning: async (_environmentKey: string, token: string, states: readonly string[], change: PaymentMethodPatch) => methodWrite(token, states, change),
      updateIfState: async (_environmentKey: string, token: string, states: readonly string[], change: PaymentMethodPatch) => (await methodWrite(token, states, change)) !== undefined,
      insert: async (row: PaymentMethod) => void this.methods.set(row.token, row),
    };
    return {
      transactions,
      paymentMethods,
      locks: { serialize: async (name: string) => void this.locks.push(name) },
      journal: { record: async (change: ChangeEvent) => void this.events.push(change) },
    } as unknown as PipelineRepos;
  }

  eventTypes(): string[] {
    return this.events.map((event) => event.eventType);
  }
}

/** A caller that grants (or refuses) permits and answers with `outcome`; it counts what it was asked. */
class FakeCaller {
  granted = 0;
  released = 0;
  calls: GatewayRequest[] = [];
  refuse: AppError | null = null;
  failCall: Error | null = null;

  constructor(public outcome: CallOutcome) {}

  permit = async (): Promise<CallPermit> => {
    if (this.refuse !== null) throw this.refuse;
    this.granted += 1;
    let released = false;
    return {
      gatewayToken: 'gw-1',
      probe: false,
      reported: false,
      release: () => {
        if (released) return;
        released = true;
        this.released += 1;
      },
    };
  };

  timeoutMs = (): number => 1_000;

  call = async (_permit: CallPermit, _gateway: unknown, request: GatewayRequest, transcript: Array<{ text: string }>): Promise<CallOutcome> => {
    this.calls.push(request);
    if (this.failCall !== null) throw this.failCall;
    transcript.push({ text: '[fake] called' });
    return this.outcome;
  };
}

function answered(response: Partial<GatewayResponse> = {}): CallOutcome {
  return { kind: 'answered', response: { ...blankResponse(true, 'Successful purchase'), gatewayTransactionId: 'g-1', ...response }, latencyMs: 5 };
}

function setup(outcome: CallOutcome = answered(), opened: AdapterPaymentMethod | null = OPENED) {
  const store = new FakeStore();
  const caller = new FakeCaller(outcome);
  const clock = new ManualClock(Date.parse('2026-05-01T10:00:00.000Z'));
  const deps: PipelineDeps = {
    unitOfWork: store.unitOfWork,
    caller: caller as unknown as PipelineDeps['caller'],
    credentials: { openCredentials: async () => ({ login: 'secret-login' }) },
    sealer: { open: async () => opened },
    clock,
  };
  return { store, caller, clock, deps };
}

const DETAILS = { on_test_gateway: true, gateway_type: 'test', response: null, shipping_address: {} };

/** A direct purchase as the gateway transaction service plans it, over the real steps. */
function purchasePlan(deps: PipelineDeps, method: PaymentMethod, token = 'tx-1'): GatewayTransactionPlan<{ card: AdapterPaymentMethod }, { processing: Transaction; consumed: PaymentMethod }> {
  const record = (deadline: string | null): NewTransaction => ({
    ...newTransaction({
      token,
      environmentKey: ENV,
      transactionType: 'Purchase',
      outcome: 'processing',
      gatewayToken: 'gw-1',
      paymentMethodToken: method.token,
      amount: 100,
      currencyCode: 'USD',
      details: deadline === null ? DETAILS : { ...DETAILS, call_deadline: deadline },
      now: deps.clock.now().toISOString(),
    }),
    callbackUrl: null,
    callbackFormat: null,
  });
  return {
    environment,
    apiRequest: API_REQUEST,
    gateway,
    prepare: async () => {
      const opened = await deps.sealer.open(method);
      return opened === null ? { refusal: REDACTED_METHOD } : { card: opened };
    },
    reserve: async (repos, _card, deadline) => {
      const reserved = await reservePaymentMethod(repos, environment, method, deps.clock.now().toISOString());
      if ('refusal' in reserved) return reserved;
      return { processing: await persistProcessing(repos, record(deadline), false), consumed: reserved.consumed };
    },
    request: ({ card: opened }) => ({ operation: 'purchase', transactionToken: token, amount: 100, currencyCode: 'USD', paymentMethod: opened, credentials: {} }) as unknown as GatewayRequest,
    effects: (_card, { consumed }) => ({ retainOnSuccess: false, paymentMethod: consumed, paymentMethodIsCurrent: true, keepNetworkTransactionId: false }),
    refuse: (refusal) => persistRefusal(deps, { ...record(null), token: `${token}-refused` }, refusal, API_REQUEST),
  };
}

describe('the gateway transaction pipeline (fakes, no database)', () => {
  it('happy path: permit, reserve and persist processing in one unit of work, call with the credentials, persist the outcome', async () => {
    const { store, caller, deps } = setup();
    store.methods.set('pm-1', card('pm-1', 'retained'));
    const run = await runGatewayTransaction(deps, purchasePlan(deps, store.methods.get('pm-1') as PaymentMethod));

    expect(run.outcome?.kind).toBe('answered');
    expect(run.result.status).toBe(200);
    expect(run.result.transaction).toMatchObject({ token: 'tx-1', state: 'succeeded', succeeded: true, messageKey: 'messages.transaction_succeeded', transcript: '[fake] called' });
    // The deadline mattered while the call ran; the outcome drops it and records the answer.
    expect(run.result.transaction.details).not.toHaveProperty('call_deadline');
    expect(run.result.transaction.details).toMatchObject({ gateway_transaction_id: 'g-1', gateway_latency_ms: 5, response: { success: true, result_unknown: false } });
    // The method as this transaction's own write left it (CVV consumed), known without a read.
    expect(run.result.paymentMethod).toMatchObject({ token: 'pm-1', sealed: { cvv: null } });
    expect(store.methods.get('pm-1')).toMatchObject({ sealed: { cvv: null }, storageState: 'retained' });
    expect(store.locks).toEqual(['payment_method:pm-1']);
    expect(store.eventTypes()).toEqual(['TransactionCreated', 'TransactionSucceeded']);
    expect(store.events[1]).toMatchObject({ objectKey: 'tx-1', ownCallback: false, at: run.result.transaction.updatedAt });
    expect(store.commits).toBe(2);
    // Both units of work were opened for the API request, passed on the plan (no ambient context).
    expect(store.requestIds).toEqual(['req-pipeline', 'req-pipeline']);
    expect(caller.calls).toHaveLength(1);
    expect(Object.keys(caller.calls[0]?.credentials ?? {})).toEqual(['login']);
    expect([caller.granted, caller.released]).toEqual([1, 1]);
  });

  it('a refusal before the call (the card no longer opens): only the failed record is persisted, nothing is sent', async () => {
    const { store, caller, deps } = setup(answered(), null);
    store.methods.set('pm-1', card('pm-1', 'retained'));
    const run = await runGatewayTransaction(deps, purchasePlan(deps, store.methods.get('pm-1') as PaymentMethod));

    expect(run.outcome).toBeNull();
    expect(run.result.status).toBe(422);
    expect(run.result.transaction).toMatchObject({ token: 'tx-1-refused', state: 'failed', succeeded: false, messageKey: 'messages.payment_method_redacted' });
    expect([...store.transactions.keys()]).toEqual(['tx-1-refused']);
    expect(store.eventTypes()).toEqual(['TransactionCreated', 'TransactionFailed']);
    expect(store.requestIds).toEqual(['req-pipeline']);
    // The method is untouched: its CVV was not consumed by a transaction that never called.
    expect(store.methods.get('pm-1')).toMatchObject({ sealed: { cvv: 'sealed' } });
    expect(caller.calls).toHaveLength(0);
    expect([caller.granted, caller.released]).toEqual([1, 1]);
  });

  it('a reservation that loses a race (the method was used meanwhile): no processing record, the refusal names the state it found', async () => {
    const { store, caller, deps } = setup();
    const planned = card('pm-1', 'cached', true);
    // Planned while usable; another transaction used the single-use method before this one locked it.
    store.methods.set('pm-1', { ...planned, storageState: 'used' } as PaymentMethod);
    const run = await runGatewayTransaction(deps, purchasePlan(deps, planned));

    expect(run.outcome).toBeNull();
    expect(run.result.transaction).toMatchObject({ state: 'failed', messageKey: 'messages.payment_method_used' });
    expect(store.transactions.has('tx-1')).toBe(false);
    expect(store.eventTypes()).toEqual(['TransactionCreated', 'TransactionFailed']);
    expect(store.locks).toEqual(['payment_method:pm-1']);
    expect(caller.calls).toHaveLength(0);
    expect([caller.granted, caller.released]).toEqual([1, 1]);
  });

  it('a single-use method: the reservation uses it and records UsePaymentMethod first (a CVV dropped alone records nothing)', async () => {
    const { store, deps } = setup();
    store.methods.set('pm-1', card('pm-1', 'cached', true));
    const run = await runGatewayTransaction(deps, purchasePlan(deps, store.methods.get('pm-1') as PaymentMethod));

    expect(run.result.status).toBe(200);
    expect(store.methods.get('pm-1')).toMatchObject({ storageState: 'used', singleUse: true, sealed: { cvv: null, number: 'sealed-number' } });
    expect(store.eventTypes()).toEqual(['UsePaymentMethod', 'TransactionCreated', 'TransactionSucceeded']);
    expect(store.events[0]).toMatchObject({ objectType: 'payment_method', objectKey: 'pm-1', at: store.methods.get('pm-1')?.updatedAt });
  });

  it('a breaker refusal: the 503 comes back, nothing is persisted, no permit is held', async () => {
    const { store, caller, deps } = setup();
    store.methods.set('pm-1', card('pm-1', 'retained'));
    caller.refuse = new AppError({ key: 'errors.circuit_breaker_open', message: 'Requests to Test are paused.' }, { 'Retry-After': '30' });
    await expect(runGatewayTransaction(deps, purchasePlan(deps, store.methods.get('pm-1') as PaymentMethod))).rejects.toBe(caller.refuse);
    expect(store.transactions.size).toBe(0);
    expect(store.events).toEqual([]);
    expect(store.commits).toBe(0);
    expect(store.methods.get('pm-1')).toMatchObject({ sealed: { cvv: 'sealed' } });
    expect([caller.granted, caller.released]).toEqual([0, 0]);
    await expect(authorizeRequest(deps, gateway)).rejects.toBe(caller.refuse);
  });

  it('a timeout: the outcome is unknown (408), recorded as such with its event', async () => {
    const { store, caller, deps } = setup({ kind: 'unknown', message: 'The test gateway timed out.', detail: 'simulated timeout', latencyMs: 1_000 });
    store.methods.set('pm-1', card('pm-1', 'retained'));
    const run = await runGatewayTransaction(deps, purchasePlan(deps, store.methods.get('pm-1') as PaymentMethod));

    expect(run.outcome?.kind).toBe('unknown');
    expect(run.result.status).toBe(408);
    expect(run.result.transaction).toMatchObject({ state: 'gateway_processing_result_unknown', succeeded: false, message: 'The test gateway timed out.' });
    expect(run.result.transaction.details).toMatchObject({ response: { success: false, result_unknown: true, error_code: 'processing_error', error_detail: 'simulated timeout' } });
    expect(store.eventTypes()).toEqual(['TransactionCreated', 'TransactionResultUnknown']);
    expect([caller.granted, caller.released]).toEqual([1, 1]);
  });

  it('the permit is released on every path: a call that throws leaves the processing record and releases it', async () => {
    const { store, caller, deps } = setup();
    store.methods.set('pm-1', card('pm-1', 'retained'));
    caller.failCall = new Error('adapter bug');
    await expect(runGatewayTransaction(deps, purchasePlan(deps, store.methods.get('pm-1') as PaymentMethod))).rejects.toThrow('adapter bug');
    // Committed before the call: the abandoned-call sweep settles it later (abandoned-calls.ts).
    expect(store.transactions.get('tx-1')?.state).toBe('processing');
    expect(store.eventTypes()).toEqual(['TransactionCreated']);
    expect([caller.granted, caller.released]).toEqual([1, 1]);
  });

  it('the permit is released on every path: a reservation that throws rolls its unit of work back', async () => {
    const { store, caller, deps } = setup();
    const reference = await store.unitOfWork((repos) =>
      persistProcessing(repos, { ...newTransaction({ token: 'auth-1', environmentKey: ENV, transactionType: 'Authorization', outcome: 'succeeded', amount: 100, now: 'then' }) }, false),
    );
    const plan: GatewayTransactionPlan<object, { processing: Transaction }> = {
      environment,
      apiRequest: API_REQUEST,
      gateway,
      prepare: async () => ({}),
      reserve: async (repos) => {
        await reserveReference(repos, reference, 'capture', 500, false);
        throw new Error('not reached');
      },
      request: () => ({}) as GatewayRequest,
      effects: () => ({ retainOnSuccess: false, paymentMethod: null, paymentMethodIsCurrent: false, keepNetworkTransactionId: false }),
      refuse: () => Promise.reject(new Error('not refused')),
    };
    await expect(runGatewayTransaction(deps, plan)).rejects.toMatchObject({ entries: [{ key: 'errors.invalid_amount' }] });
    expect([...store.transactions.keys()]).toEqual(['auth-1']);
    expect(store.rollbacks).toBe(1);
    expect(caller.calls).toHaveLength(0);
    expect([caller.granted, caller.released]).toEqual([1, 1]);
  });
});

describe('the pipeline steps', () => {
  it('reserveReference: what a capture may take is what other captures leave; a void is refused once one holds', async () => {
    const { store } = setup();
    await store.unitOfWork(async (repos) => {
      const auth = await persistProcessing(repos, newTransaction({ token: 'auth-1', environmentKey: ENV, transactionType: 'Authorization', outcome: 'succeeded', amount: 100, now: 'then' }), false);
      expect(await reserveReference(repos, auth, 'capture', undefined, false)).toBe(100);
      await persistProcessing(repos, newTransaction({ token: 'cap-1', environmentKey: ENV, transactionType: 'Capture', outcome: 'processing', referenceToken: 'auth-1', amount: 60, now: 'then' }), false);
      expect(await reserveReference(repos, auth, 'capture', undefined, false)).toBe(40);
      await expect(reserveReference(repos, auth, 'capture', 41, false)).rejects.toBeInstanceOf(AppError);
      await expect(reserveReference(repos, auth, 'void', undefined, false)).rejects.toMatchObject({ entries: [{ key: 'errors.reference_transaction_already_settled' }] });
    });
    expect(store.locks).toEqual(['transaction:auth-1', 'transaction:auth-1', 'transaction:auth-1', 'transaction:auth-1']);
  });

  it('claimPending: exactly one completion moves pending → processing; the next is a 422 and records nothing', async () => {
    const { store } = setup();
    const pending = await store.unitOfWork((repos) =>
      persistProcessing(repos, { ...newTransaction({ token: 'tx-3ds', environmentKey: ENV, transactionType: 'Purchase', outcome: 'processing', details: DETAILS, now: 'then' }), state: 'pending' }, false),
    );
    const before = store.events.length;
    const claimed = await store.unitOfWork((repos) => claimPending(repos, pending, 'deadline', 'now'));
    expect(claimed).toMatchObject({ state: 'processing', updatedAt: 'now', details: { call_deadline: 'deadline' } });
    await expect(store.unitOfWork((repos) => claimPending(repos, pending, 'deadline', 'now'))).rejects.toMatchObject({ entries: [{ key: 'errors.transaction_not_pending' }] });
    // Entering processing is not an outcome: no event.
    expect(store.events.length).toBe(before);
  });

  it('outcomeOf and statusFor: answers, declines, pending, faults and unknown results', () => {
    expect(outcomeOf(answered()).state).toBe('succeeded');
    expect(outcomeOf(answered({ success: false })).state).toBe('gateway_processing_failed');
    expect(outcomeOf(answered({ pending: true })).state).toBe('pending');
    expect(outcomeOf({ kind: 'fault', message: 'refused', detail: 'ECONNREFUSED', latencyMs: 1, notTaken: true })).toMatchObject({ state: 'gateway_processing_failed', response: { errorCode: 'processing_error', errorDetail: 'ECONNREFUSED' } });
    expect(outcomeOf({ kind: 'unknown', message: 'timeout', detail: 'x', latencyMs: 1 }).state).toBe('gateway_processing_result_unknown');
    expect([statusFor('succeeded'), statusFor('pending'), statusFor('gateway_processing_result_unknown'), statusFor('failed'), statusFor('gateway_processing_failed')]).toEqual([200, 200, 408, 422, 422]);
  });
});
