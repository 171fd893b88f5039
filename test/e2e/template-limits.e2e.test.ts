import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingReceiver } from '../fakes/recording-receiver.js';
import { addPaymentMethod } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import type { ApiClient } from '../helpers/client.js';

/** `depth` sections over the payment methods, one inside the other, around a card variable. */
function nested(depth: number, inner = '{{credit_card_number}}'): string {
  return `${'{{#payment_methods}}'.repeat(depth)}${inner}${'{{/payment_methods}}'.repeat(depth)}`;
}

/**
 * Templates that used to kill the process or freeze every tenant are refused with
 * 422 before any work, /healthz keeps answering, and deliver and export are rate limited.
 */
describe('receiver template limits: refused before any work, the server keeps answering', () => {
  let server: TestServer;
  let receiver: RecordingReceiver;
  let live: ApiClient;
  let sftp: string;
  let http: string;
  let cards: string[];

  beforeAll(async () => {
    receiver = await RecordingReceiver.start();
    server = await startServer({ env: { COFFER_EGRESS_ALLOW: '127.0.0.1', COFFER_RECEIVER_TIMEOUT: '2' } });
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
    // Port 9 on loopback: nothing listens, so an export that got past the checks could only fail.
    const created = await live.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'sftp', hostnames: 'sftp://127.0.0.1:9', protocol: { user: 'u', password: 'p' } } });
    expect(created.status, created.text).toBe(201);
    sftp = created.json().receiver.token;
    const deliverTo = await live.sendJson('POST', '/v1/receivers.json', {
      receiver: { receiver_type: 'test', hostnames: receiver.url, credentials: [{ name: 'long', value: 'L'.repeat(10_000), safe: true }] },
    });
    expect(deliverTo.status, deliverTo.text).toBe(201);
    http = deliverTo.json().receiver.token;
    cards = [];
    for (let i = 0; i < 20; i += 1) {
      const added = await addPaymentMethod(live, { credit_card: { first_name: 'A', last_name: 'B', number: '4111111111111111', month: 1, year: 2035 }, retained: true });
      cards.push(added.payment_method.token);
    }
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  const exportJson = (body: string, tokens: string[]) => live.sendJson('POST', `/v1/receivers/${sftp}/export.json`, { export: { payment_method_tokens: tokens, url: 'sftp://127.0.0.1:9/out.csv', body } });

  async function exportCount(): Promise<number> {
    const rows = await server.core.store.db.selectFrom('transactions').select(({ fn }) => fn.countAll<number>().as('n')).where('transaction_type', '=', 'ExportPaymentMethods').executeTakeFirstOrThrow();
    return Number(rows.n);
  }

  async function healthy(): Promise<void> {
    expect((await server.client.get('/healthz', { auth: null })).status).toBe(200);
  }

  it('20 payment methods and 7 nested sections: 422 on body, nothing recorded, /healthz answers', async () => {
    const before = await exportCount();
    const res = await exportJson(nested(7), cards);
    expect(res.status, res.text).toBe(422);
    expect(res.json().errors).toEqual([{ attribute: 'body', key: 'errors.invalid', message: 'Body is over a template limit: sections are nested more than 4 deep' }]);
    expect(await exportCount()).toBe(before);
    await healthy();
  });

  it('2 payment methods and 24 nested sections in a 961-byte body: 422, in XML too', async () => {
    const body = nested(24, 'x');
    expect(body.length).toBe(961);
    const json = await exportJson(body, cards.slice(0, 2));
    expect(json.status).toBe(422);
    const xml = await live.sendXml(
      'POST',
      `/v1/receivers/${sftp}/export.xml`,
      `<export><payment_method_tokens><payment_method_token>${cards[0]}</payment_method_token><payment_method_token>${cards[1]}</payment_method_token></payment_method_tokens><url>sftp://127.0.0.1:9/x</url><body><![CDATA[${body}]]></body></export>`,
    );
    expect(xml.status).toBe(422);
    expect(xml.text).toContain('<error key="errors.invalid" attribute="body">Body is over a template limit: sections are nested more than 4 deep</error>');
    await healthy();
  });

  it('within the nesting cap, sections whose repetitions would exceed the budget are refused before any work', async () => {
    // 10,000 tokens (the most an export takes) and 4 nested sections: 10^16 repetitions.
    const tokens = Array.from({ length: 10_000 }, (_, i) => `token${String(i).padStart(5, '0')}`);
    const res = await exportJson(nested(4, 'x'), tokens);
    expect(res.status).toBe(422);
    expect(res.json().errors[0].message).toMatch(/^Body is over a template limit: its sections would repeat too often \(\d+ steps, at most 2000000 for an export file\)$/);
    const tooMany = await exportJson('x', [...tokens, 'one-more']);
    expect(tooMany.json().errors).toEqual([{ attribute: 'payment_method_tokens', key: 'errors.invalid', message: 'Payment method tokens cannot hold more than 10000 tokens in one export' }]);
  });

  it('refuses a template longer than 64 KiB with errors.too_long', async () => {
    const res = await exportJson('x'.repeat(64 * 1024 + 1), cards.slice(0, 1));
    expect(res.status).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ key: 'errors.too_long', attribute: 'body' });
  });

  it('an export within the limits runs off the request, and /healthz answers while it renders', async () => {
    // 20^3 = 8000 repetitions of a 1 KiB line: about 8 MiB rendered a few milliseconds at a time.
    const res = await exportJson(nested(3, 'y'.repeat(1024)), cards);
    expect(res.status, res.text).toBe(202);
    const token = res.json().transaction.token;
    let answered = 0;
    for (let i = 0; i < 200; i += 1) {
      await healthy();
      answered += 1;
      const shown = (await live.get(`/v1/transactions/${token}.json`)).json().transaction;
      if (shown.state !== 'pending') {
        // Rendered, then the upload to a closed port failed: the render did not kill anything.
        expect(shown.state).toBe('failed');
        expect(shown.message).not.toMatch(/template limit/);
        break;
      }
    }
    expect(answered).toBeGreaterThan(0);
  });

  it('an export whose variables make the file larger than 10 MiB fails with a clear message', async () => {
    // 20 x 20 x 20 lines of ~1.4 KiB: the literal text alone fits (checked before), the rendered file does not.
    const res = await exportJson(nested(3, `${'z'.repeat(1300)}{{credit_card_full_name}}{{credit_card_token}}`), cards);
    expect(res.status, res.text).toBe(202);
    const token = res.json().transaction.token;
    let shown: any = null;
    for (let i = 0; i < 200 && (shown === null || shown.state === 'pending'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      shown = (await live.get(`/v1/transactions/${token}.json`)).json().transaction;
    }
    expect(shown).toMatchObject({ state: 'failed', message: 'The body is over a template limit: it renders more than 10 MiB for an export file.' });
  });

  it('deliver: nesting over 4 is 422 before the payment method is even looked up; a body over 1 MiB is 422', async () => {
    const deep = await live.sendJson('POST', `/v1/receivers/${http}/deliver.json`, { delivery: { payment_method_token: 'unknownToken', url: receiver.url, body: '{{#a}}{{#b}}{{#c}}{{#d}}{{#e}}x{{/e}}{{/d}}{{/c}}{{/b}}{{/a}}' } });
    expect(deep.status).toBe(422);
    expect(deep.json().errors).toEqual([{ attribute: 'body', key: 'errors.invalid', message: 'Body is over a template limit: sections are nested more than 4 deep' }]);
    const big = await live.sendJson('POST', `/v1/receivers/${http}/deliver.json`, { delivery: { payment_method_token: cards[0], url: receiver.url, body: '{{long}}'.repeat(200) } });
    expect(big.status).toBe(422);
    expect(big.json().errors).toEqual([{ attribute: 'body', key: 'errors.invalid', message: 'Body is over a template limit: it renders more than 1 MiB for a delivery' }]);
    expect(receiver.received).toHaveLength(0);
  });
});
