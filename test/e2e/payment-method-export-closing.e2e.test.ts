import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/client.js';
import { exportParties } from '../helpers/export-parties.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * Ending an export that waits for approval (docs/portability.md, "Exporting"), on SQLite and
 * PostgreSQL, in JSON and XML: its requester cancels it, a different admin rejects it (the same
 * dual-control identities as approval); the wrong person is refused (403, audited), a closed export
 * can be neither approved nor downloaded afterwards (409 errors.export_closed), an approved or
 * expired one can no longer be cancelled, an unknown id is 404, other roles are 401; each step is
 * in the audit log with who did it.
 */

const HOUR = 3600_000;

describe.each(storeKinds)('cancelling and rejecting exports (%s)', (store) => {
  let server: TestServer;
  let second: ApiClient;
  let transact: ApiClient;
  let recipientKey: string;
  const clock = new ManualClock();

  beforeAll(async () => {
    server = await startServer({ store, clock });
    ({ second, transact, recipient: { publicKey: recipientKey } } = await exportParties(server));
  });
  afterAll(async () => {
    await server.close();
  });

  const requested = async (): Promise<string> => {
    const answer = await server.client.sendJson('POST', '/v1/payment_methods/exports.json', { payment_method_export: { recipient_public_key: recipientKey } });
    expect(answer.status, answer.text).toBe(201);
    return answer.json().payment_method_export.token as string;
  };
  const post = (client: ApiClient, token: string, step: string, suffix = 'json') => client.request('POST', `/v1/payment_methods/exports/${token}/${step}.${suffix}`);
  const auditOf = async (token: string) =>
    (await server.client.get('/v1/audit_events.json?count=100')).json().audit_events.filter((event: { object_id: string }) => event.object_id === token) as { action: string; actor_id?: string; details: Record<string, unknown> }[];

  it('the requester cancels a pending export; it can then be neither approved, downloaded, nor cancelled again', async () => {
    const token = await requested();
    const refused = await post(second, token, 'cancel');
    expect(refused.status).toBe(403);
    expect(refused.json().errors[0]).toMatchObject({ key: 'errors.forbidden', message: expect.stringContaining('Only the person who requested an export can cancel it') });
    expect((await server.client.get(`/v1/payment_methods/exports/${token}.json`)).json().payment_method_export.state).toBe('pending');

    const cancelled = await post(server.client, token, 'cancel');
    expect(cancelled.status, cancelled.text).toBe(200);
    const job = cancelled.json().payment_method_export;
    expect(job).toMatchObject({ state: 'cancelled', closed_by: { type: 'access_secret', id: job.requested_by.id }, closed_at: clock.now().toISOString(), approved_by: null });

    const approve = await post(second, token, 'approve');
    expect(approve.status).toBe(409);
    expect(approve.json().errors[0]).toMatchObject({ key: 'errors.export_closed', message: expect.stringContaining('This export was cancelled by API secret') });
    const download = await server.client.get(`/v1/payment_methods/exports/${token}/download.json`);
    expect(download.status).toBe(409);
    expect(download.json().errors[0].key).toBe('errors.export_closed');
    expect((await post(server.client, token, 'cancel')).json().errors[0].key).toBe('errors.export_closed');
    expect((await post(second, token, 'reject')).json().errors[0].key).toBe('errors.export_closed');
    expect((await server.client.get(`/v1/payment_methods/exports/${token}.json`)).json().payment_method_export.state).toBe('cancelled');

    const audit = await auditOf(token);
    expect(audit.map((event) => event.action).sort()).toEqual(['payment_method_export.cancel', 'payment_method_export.cancel_refused', 'payment_method_export.request']);
    expect(audit.find((event) => event.action === 'payment_method_export.cancel')?.details).toMatchObject({ requested_by: job.requested_by.id, closed_at: job.closed_at });
  });

  it('another admin rejects a pending export; its requester cannot, and it never runs afterwards', async () => {
    const token = await requested();
    const own = await post(server.client, token, 'reject');
    expect(own.status).toBe(403);
    expect(own.json().errors[0]).toMatchObject({ key: 'errors.forbidden', message: expect.stringContaining('someone other than the person who requested it') });

    const rejected = await post(second, token, 'reject');
    expect(rejected.status, rejected.text).toBe(200);
    const job = rejected.json().payment_method_export;
    expect(job.state).toBe('rejected');
    expect(job.closed_by.type).toBe('access_secret');
    expect(job.closed_by.id).not.toBe(job.requested_by.id);

    const approve = await post(second, token, 'approve');
    expect(approve.status).toBe(409);
    expect(approve.json().errors[0]).toMatchObject({ key: 'errors.export_closed', message: expect.stringContaining('This export was rejected') });
    expect((await server.client.get(`/v1/payment_methods/exports/${token}/download.json`)).status).toBe(409);
    expect((await post(server.client, token, 'cancel')).status).toBe(409);

    const audit = await auditOf(token);
    expect(audit.map((event) => event.action).sort()).toEqual(['payment_method_export.reject', 'payment_method_export.reject_refused', 'payment_method_export.request']);
  });

  it('speaks XML: the closed export, and the errors', async () => {
    const token = await requested();
    const wrong = await post(second, token, 'cancel', 'xml');
    expect(wrong.status).toBe(403);
    expect(wrong.xml().errors.error['@_key']).toBe('errors.forbidden');
    const rejected = await post(second, token, 'reject', 'xml');
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.headers['content-type']).toContain('xml');
    expect(rejected.xml().payment_method_export.state).toBe('rejected');
    const again = await post(second, token, 'approve', 'xml');
    expect(again.status).toBe(409);
    expect(again.xml().errors.error['@_key']).toBe('errors.export_closed');
    const unknown = await post(second, 'NoSuchExport', 'reject', 'xml');
    expect(unknown.status).toBe(404);
    expect(unknown.xml().errors.error['@_key']).toBe('errors.export_not_found');
  });

  it('cannot cancel or reject an approved, downloaded or expired export, nor an unknown one; other roles are refused', async () => {
    const approvedOne = await requested();
    expect((await post(second, approvedOne, 'approve')).status).toBe(200);
    const cancelApproved = await post(server.client, approvedOne, 'cancel');
    expect(cancelApproved.status).toBe(409);
    expect(cancelApproved.json().errors[0]).toMatchObject({ key: 'errors.export_not_pending', message: expect.stringContaining('no longer pending') });
    expect((await post(second, approvedOne, 'reject')).json().errors[0].key).toBe('errors.export_not_pending');
    expect((await server.client.get(`/v1/payment_methods/exports/${approvedOne}.json`)).json().payment_method_export.state).toBe('approved');

    const downloaded = await requested();
    expect((await post(second, downloaded, 'approve')).status).toBe(200);
    expect((await server.client.get(`/v1/payment_methods/exports/${downloaded}/download.json`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await post(server.client, downloaded, 'cancel')).json().errors[0].key).toBe('errors.export_gone');

    const unknownCancel = await post(server.client, 'NoSuchExport', 'cancel');
    expect(unknownCancel.status).toBe(404);
    expect(unknownCancel.json().errors[0].key).toBe('errors.export_not_found');
    expect((await post(second, 'NoSuchExport', 'reject')).status).toBe(404);

    const pending = await requested();
    for (const step of ['cancel', 'reject']) {
      const refused = await post(transact, pending, step);
      expect(refused.status, step).toBe(401);
      expect(refused.json().errors[0].message).toContain('role (transact)');
    }
    clock.advance(25 * HOUR);
    const late = await post(server.client, pending, 'cancel');
    expect(late.status).toBe(410);
    expect(late.json().errors[0].key).toBe('errors.export_expired');
    expect((await post(second, pending, 'reject')).status).toBe(410);
  });
});
