import { describe, expect, it } from 'vitest';
import {
  assertInitialState,
  assertTransition,
  canMove,
  INITIAL_STATES,
  STATE_EVENTS,
  TRANSACTION_STATES,
  TRANSACTION_TRANSITIONS,
  TransactionState,
  type TransactionState as State,
} from '../../src/domain/transaction.js';

/** Every move the model allows, spelt out once more: a change to the table must change this list too. */
const ALLOWED: ReadonlyArray<[State, State]> = [
  ['processing', 'pending'],
  ['processing', 'succeeded'],
  ['processing', 'failed'],
  ['processing', 'gateway_processing_failed'],
  ['processing', 'gateway_processing_result_unknown'],
  ['pending', 'processing'],
  ['pending', 'succeeded'],
  ['pending', 'failed'],
  ['pending', 'gateway_processing_result_unknown'],
  ['gateway_processing_result_unknown', 'succeeded'],
  ['gateway_processing_result_unknown', 'gateway_processing_failed'],
];

describe('transaction states', () => {
  it('the constants name exactly the states of the union, once each', () => {
    expect(new Set(Object.values(TransactionState))).toEqual(new Set(TRANSACTION_STATES));
    expect(TRANSACTION_STATES).toHaveLength(6);
    expect(Object.keys(TRANSACTION_TRANSITIONS).sort()).toEqual([...TRANSACTION_STATES].sort());
  });

  const pairs = TRANSACTION_STATES.flatMap((from) => TRANSACTION_STATES.map((to) => [from, to] as [State, State]));
  const allowed = new Set(ALLOWED.map(([from, to]) => `${from}→${to}`));

  it.each(pairs)('%s → %s is allowed exactly when the table lists it', (from, to) => {
    const expected = allowed.has(`${from}→${to}`);
    expect(canMove(from, to)).toBe(expected);
    if (expected) expect(() => assertTransition(from, to)).not.toThrow();
    else expect(() => assertTransition(from, to)).toThrow(`a transaction cannot move from ${from} to ${to}`);
  });

  it('succeeded, failed and gateway_processing_failed are final; nothing moves to itself', () => {
    for (const state of ['succeeded', 'failed', 'gateway_processing_failed'] as const) expect(TRANSACTION_TRANSITIONS[state]).toEqual([]);
    for (const state of TRANSACTION_STATES) expect(canMove(state, state)).toBe(false);
  });

  it('a transaction is created processing, pending, succeeded or failed, never with a gateway outcome', () => {
    expect([...INITIAL_STATES].sort()).toEqual(['failed', 'pending', 'processing', 'succeeded']);
    expect(() => assertInitialState('gateway_processing_failed')).toThrow();
    expect(() => assertInitialState('gateway_processing_result_unknown')).toThrow();
    expect(() => assertInitialState('processing')).not.toThrow();
  });

  it('each state records its event (docs/events.md); processing records none', () => {
    expect(STATE_EVENTS).toEqual({
      processing: null,
      pending: 'TransactionPending',
      succeeded: 'TransactionSucceeded',
      failed: 'TransactionFailed',
      gateway_processing_failed: 'TransactionFailed',
      gateway_processing_result_unknown: 'TransactionResultUnknown',
    });
  });
});
