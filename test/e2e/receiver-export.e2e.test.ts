import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RecordingReceiver } from '../fakes/recording-receiver.js';
import { addPaymentMethod, paymentMethodRow } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { describeWithSshd, startSshd, type TestSshd } from '../helpers/sshd.js';
import { asList } from '../helpers/xml.js';
import type { ApiClient } from '../helpers/client.js';

const CARDS = ['4111111111111111', '5555555555554444'];

/**
 * POST receivers/<t>/export against a real OpenSSH server on 127.0.0.1 (API.md §4, wire-reference
 * §2.6): 202 and a pending ExportPaymentMethods, then the file lands, the transaction records
 * what was included and excluded, and the result is POSTed to callback_url.
 */
for (const store of storeKinds) {
  describeWithSshd(`export to SFTP receivers (${store})`, () => {
    let server: TestServer;
    let sshd: TestSshd;
    let callbacks: RecordingReceiver;
    let live: ApiClient;

    beforeAll(async () => {
      sshd = await startSshd();
      callbacks = await RecordingReceiver.start();
      server = await startServer({ store, env: { COFFER_EGRESS_ALLOW: '127.0.0.1', COFFER_RECEIVER_TIMEOUT: '10' } });
      const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
      live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
    });
    afterAll(async () => {
      await server?.close();
      await callbacks?.close();
      await sshd?.stop();
    });
    beforeEach(() => {
      callbacks.received.length = 0;
    });

    async function sftpReceiver(protocol: Record<string, unknown>): Promise<string> {
      const res = await live.sendJson('POST', '/v1/receivers.json', {
        receiver: { receiver_type: 'sftp', hostnames: `sftp://127.0.0.1:${sshd.port}`, protocol: { user: sshd.user, ...protocol } },
      });
      expect(res.status, res.text).toBe(201);
      return res.json().receiver.token;
    }

    async function cards(): Promise<string[]> {
      const tokens: string[] = [];
      for (const [index, number] of CARDS.entries()) {
        const transaction = await addPaymentMethod(live, {
          credit_card: { first_name: `Card${index}`, last_name: 'Holder', number, verification_value: '123', month: 5, year: 2034 },
          retained: true,
        });
        tokens.push(transaction.payment_method.token);
      }
      return tokens;
    }

    async function waitForCallback(): Promise<any> {
      for (let i = 0; i < 200 && callbacks.received.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(callbacks.received, 'no callback arrived').toHaveLength(1);
      return JSON.parse(callbacks.received[0]?.body ?? '{}').transaction;
    }

    it('uploads the rendered file, records included/excluded and calls back (JSON, password login, pinned host key)', async () => {
      const receiver = await sftpReceiver({ password: sshd.password, host_key: sshd.hostKeyLine });
      const [a, b] = await cards();
      const redacted = (await addPaymentMethod(live, { credit_card: { first_name: 'R', last_name: 'X', number: '4111111111111111', month: 1, year: 2034 } })).payment_method.token;
      await live.request('PUT', `/v1/payment_methods/${redacted}/redact.json`);
      const res = await live.sendJson('POST', `/v1/receivers/${receiver}/export.json`, {
        export: {
          payment_method_tokens: [a, b, redacted, 'unknownToken'],
          url: sshd.url('export.csv'),
          body: 'token,number,name\n{{#payment_methods}}{{credit_card_token}},{{credit_card_number}},{{credit_card_full_name}}\n{{/payment_methods}}',
          callback_url: `${callbacks.url}/done`,
        },
      });
      expect(res.status, res.text).toBe(202);
      const pending = res.json().transaction;
      expect(pending).toMatchObject({ transaction_type: 'ExportPaymentMethods', state: 'pending', succeeded: false });

      const called = await waitForCallback();
      expect(callbacks.received[0]?.target).toBe('/done');
      expect(called).toMatchObject({ token: pending.token, state: 'succeeded', payment_methods_included: [a, b], payment_methods_excluded: { [redacted]: 'redacted', unknownToken: 'not_found' } });
      expect(sshd.readFile('export.csv').toString('utf8')).toBe(`token,number,name\n${a},${CARDS[0]},Card0 Holder\n${b},${CARDS[1]},Card1 Holder\n`);
      // Written under a temporary name and renamed: no partial file is left behind.
      expect(sshd.files().filter((file) => file.includes('export.csv'))).toEqual(['export.csv']);

      const shown = await live.get(`/v1/transactions/${pending.token}.xml`);
      const transaction = shown.xml().transaction;
      expect(transaction.state).toBe('succeeded');
      expect(asList(transaction.payment_methods_included.payment_method_token)).toEqual([a, b]);
      // The CVVs went out in the export's window and are gone now.
      expect((await paymentMethodRow(server, a as string)).sealed_cvv).toBeNull();
    });

    it('exports in XML with a private key login', async () => {
      const receiver = await sftpReceiver({ private_key: sshd.privateKey });
      const [a] = await cards();
      const res = await live.sendXml(
        'POST',
        `/v1/receivers/${receiver}/export.xml`,
        `<export><payment_method_tokens><payment_method_token>${a}</payment_method_token></payment_method_tokens><url>${sshd.url('xml-export.txt')}</url><body><![CDATA[{{#payment_methods}}{{credit_card_last_four_digits}}{{/payment_methods}}]]></body><callback_url>${callbacks.url}/xml</callback_url></export>`,
      );
      expect(res.status, res.text).toBe(202);
      expect(res.xml().transaction.state).toBe('pending');
      expect((await waitForCallback()).state).toBe('succeeded');
      expect(sshd.readFile('xml-export.txt').toString('utf8')).toBe('1111');
    });

    it('records a failed export for a wrong password and for a host key that does not match', async () => {
      const [a] = await cards();
      for (const protocol of [{ password: 'wrong-password' }, { password: sshd.password, host_key: `SHA256:${'B'.repeat(43)}` }]) {
        const receiver = await sftpReceiver(protocol);
        callbacks.received.length = 0;
        const res = await live.sendJson('POST', `/v1/receivers/${receiver}/export.json`, {
          export: { payment_method_tokens: [a], url: sshd.url('never.csv'), body: '{{#payment_methods}}{{credit_card_number}}{{/payment_methods}}', callback_url: callbacks.url },
        });
        expect(res.status).toBe(202);
        const called = await waitForCallback();
        expect(called).toMatchObject({ state: 'failed', succeeded: false, payment_methods_included: [] });
        expect(called.message).not.toContain(sshd.password);
      }
      expect(sshd.files()).not.toContain('never.csv');
    });

    it('refuses bad exports with 422 before anything runs', async () => {
      const receiver = await sftpReceiver({ password: sshd.password });
      const blank = await live.sendJson('POST', `/v1/receivers/${receiver}/export.json`, { export: {} });
      expect(blank.status).toBe(422);
      expect(blank.json().errors.map((e: any) => e.attribute)).toEqual(['payment_method_tokens', 'url', 'body']);
      const elsewhere = await live.sendJson('POST', `/v1/receivers/${receiver}/export.json`, { export: { payment_method_tokens: ['x'], url: 'sftp://other.example.com/x', body: 'x' } });
      expect(elsewhere.json().errors[0]).toMatchObject({ key: 'errors.url_not_allowed', attribute: 'url' });
      const noFile = await live.sendJson('POST', `/v1/receivers/${receiver}/export.json`, { export: { payment_method_tokens: ['x'], url: `sftp://127.0.0.1:${sshd.port}/dir/`, body: 'x' } });
      expect(noFile.status).toBe(422);
      expect(noFile.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'url' });
      const badTemplate = await live.sendJson('POST', `/v1/receivers/${receiver}/export.json`, { export: { payment_method_tokens: ['x'], url: sshd.url('x'), body: '{{#open}}' } });
      expect(badTemplate.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'body' });
      const deliver = await live.sendJson('POST', `/v1/receivers/${receiver}/deliver.json`, { delivery: { payment_method_token: 'x', url: sshd.url('x'), body: 'x' } });
      expect(deliver.status).toBe(422);
      expect(deliver.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'receiver_type' });
    });
  });
}

/**
 * What an export checks before anything is recorded or any server is contacted. Runs on every
 * machine, sshd or not (a fresh clone's `npm test` must pass everywhere): the receiver names a loopback
 * port nothing listens on.
 */
describe.each(storeKinds)('export requests refused before any work (%s)', (store) => {
  let server: TestServer;
  let live: ApiClient;
  let receiver: string;

  beforeAll(async () => {
    server = await startServer({ store, env: { COFFER_EGRESS_ALLOW: '127.0.0.1' } });
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
    const res = await live.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'sftp', hostnames: 'sftp://127.0.0.1:9', protocol: { user: 'u', password: 'p' } } });
    expect(res.status, res.text).toBe(201);
    receiver = res.json().receiver.token;
  });
  afterAll(() => server?.close());

  it('answers 422 for missing fields, a url outside the hostnames and a template that cannot render, and records nothing', async () => {
    const send = (fields: Record<string, unknown>) => live.sendJson('POST', `/v1/receivers/${receiver}/export.json`, { export: fields });
    expect((await send({})).json().errors.map((e: any) => e.attribute)).toEqual(['payment_method_tokens', 'url', 'body']);
    expect((await send({ payment_method_tokens: ['x'], url: 'sftp://other.example.com/x', body: 'x' })).json().errors[0]).toMatchObject({ key: 'errors.url_not_allowed', attribute: 'url' });
    expect((await send({ payment_method_tokens: ['x'], url: 'sftp://127.0.0.1:9/x', body: '{{#open}}' })).json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'body' });
    const list = await live.get('/v1/transactions.json');
    expect(list.json().transactions).toEqual([]);
  });
});
