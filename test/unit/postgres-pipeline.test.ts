import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PipelinedConnection } from '../../src/store/postgres-pipeline.js';

/**
 * The pipeline's bookkeeping, with the server's answers under the test's control (the behaviour
 * against a real PostgreSQL is in test/store/postgres-pipeline.test.ts): which statements are
 * answered before the server has answered them, and that one turn's statements leave in one write.
 */

const EVENT = 'insert into unit_events (token) values ($1)';
/** EVENT declared deferrable, as a DeferrableQuery reaches the pipeline (deferrable-query.ts). */
const DEFERRABLE = true;

interface Sent {
  text: string;
  answer: (result?: Partial<pg.QueryResult>) => void;
  fail: (error: unknown) => void;
}

function harness() {
  const sent: Sent[] = [];
  const socket = { corks: 0, uncorks: 0, cork() { this.corks += 1; }, uncork() { this.uncorks += 1; } };
  const connection = new PipelinedConnection(socket, (text) => new Promise<pg.QueryResult>((resolve, reject) => {
    sent.push({ text, answer: (result) => resolve({ command: 'OK', rowCount: 0, rows: [], fields: [], oid: 0, ...result } as pg.QueryResult), fail: reject });
  }));
  return { sent, socket, connection };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const settledState = async (promise: Promise<unknown>): Promise<'pending' | 'resolved' | 'rejected'> => {
  let state: 'pending' | 'resolved' | 'rejected' = 'pending';
  promise.then(() => (state = 'resolved'), () => (state = 'rejected'));
  await Promise.resolve();
  await Promise.resolve();
  return state;
};

describe('PipelinedConnection', () => {
  it('answers begin and deferrable statements at once, and the other statements when the server does', async () => {
    const { sent, connection } = harness();
    expect(await settledState(connection.query('begin', undefined))).toBe('resolved');
    expect(await settledState(connection.query(EVENT, ['e1'], DEFERRABLE))).toBe('resolved');
    const select = connection.query('select 1', []);
    expect(await settledState(select)).toBe('pending');
    expect(sent.map((statement) => statement.text)).toEqual(['begin', EVENT, 'select 1']);
    sent[2]?.answer({ rows: [{ one: 1 }] });
    expect((await select).rows).toEqual([{ one: 1 }]);
  });

  it('the same text not declared deferrable is answered when the server answers it', async () => {
    const { sent, connection } = harness();
    await connection.query('begin', undefined);
    const insert = connection.query(EVENT, ['e1']);
    expect(await settledState(insert)).toBe('pending');
    sent[1]?.answer({ command: 'INSERT', rowCount: 1 });
    await expect(insert).resolves.toMatchObject({ command: 'INSERT', rowCount: 1 });
  });

  it('commit resolves only once every deferred statement has answered', async () => {
    const { sent, connection } = harness();
    await connection.query('begin', undefined);
    await connection.query(EVENT, ['e1'], DEFERRABLE);
    const commit = connection.query('commit', undefined);
    sent[2]?.answer(); // the commit's own answer first
    expect(await settledState(commit)).toBe('pending');
    sent[0]?.answer();
    sent[1]?.answer();
    await expect(commit).resolves.toMatchObject({ command: 'OK' });
    expect(connection.idle).toBe(true);
  });

  it("commit throws the first deferred failure, after the server's answer to it", async () => {
    const { sent, connection } = harness();
    await connection.query('begin', undefined);
    await connection.query(EVENT, ['e1'], DEFERRABLE);
    await connection.query(EVENT, ['e2'], DEFERRABLE);
    const commit = connection.query('commit', undefined);
    sent[0]?.answer();
    sent[1]?.fail(Object.assign(new Error('duplicate key'), { code: '23505' }));
    sent[2]?.fail(Object.assign(new Error('current transaction is aborted'), { code: '25P02' }));
    expect(await settledState(commit)).toBe('pending');
    sent[3]?.answer({ command: 'ROLLBACK' });
    await expect(commit).rejects.toMatchObject({ code: '23505' });
  });

  it('a statement after a failed deferred one carries the deferred failure; a failure of its own is its own', async () => {
    const { sent, connection } = harness();
    await connection.query('begin', undefined);
    const alone = connection.query('select 2', []);
    sent[1]?.fail(Object.assign(new Error('syntax'), { code: '42601' }));
    await expect(alone).rejects.toMatchObject({ code: '42601' });
    await connection.query(EVENT, ['e1'], DEFERRABLE);
    const after = connection.query('select 3', []);
    sent[2]?.fail(Object.assign(new Error('duplicate key'), { code: '23505' }));
    await nextTurn();
    sent[3]?.fail(Object.assign(new Error('current transaction is aborted'), { code: '25P02' }));
    await expect(after).rejects.toMatchObject({ code: '23505' });
  });

  it('outside a transaction a deferrable statement waits for its answer', async () => {
    const { sent, connection } = harness();
    const insert = connection.query(EVENT, ['e1'], DEFERRABLE);
    expect(await settledState(insert)).toBe('pending');
    sent[0]?.fail(Object.assign(new Error('duplicate key'), { code: '23505' }));
    await expect(insert).rejects.toMatchObject({ code: '23505' });
  });

  it('corks the socket once per turn when it defers, and uncorks it once the turn has run', async () => {
    const { socket, connection } = harness();
    await connection.query('begin', undefined);
    await connection.query(EVENT, ['e1'], DEFERRABLE);
    void connection.query('select 1', []);
    expect(socket).toMatchObject({ corks: 1, uncorks: 0 });
    await nextTurn();
    expect(socket).toMatchObject({ corks: 1, uncorks: 1 });
    void connection.query(EVENT, ['e2'], DEFERRABLE);
    expect(socket).toMatchObject({ corks: 2, uncorks: 1 });
  });
});
