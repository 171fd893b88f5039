import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { storedBytes } from '../helpers/stored-bytes.js';
import { startFakeStripe, type FakeStripe } from '../fakes/fake-stripe.js';

/**
 * A gateway whose decline text echoes the card (docs/security.md, "Scrubbing"). Whatever the gateway writes goes
 * through the call's scrubber before it is stored or returned: `message`, `response.message`,
 * `gateway_specific_response_fields`, the transcript, the transactions list and the database.
 */

const LIVE_KEY = 'sk_live_CofferScrubFakeKey000000001';
const PAN = '4242424242424242';
const DOTTED = '4242.4242.4242.4242';
const CVV = '531';
const OTHER = '5555 5555 5555 4444';
const SCRUBBED_MESSAGE = 'Your card [FILTERED] (cvc [FILTERED]) was declined. raw=[FILTERED]';

/** Every way the card may show in text; none may be left. */
function assertNoCard(text: string, where: string): void {
  for (const form of [PAN, DOTTED, OTHER, `cvc ${CVV}`, '4242-4242-4242-4242', `${LIVE_KEY}`]) expect(text, `${form} in ${where}`).not.toContain(form);
}

/** A gateway that writes the card it was sent into its decline. */
const echo: FakeStripe['echoingDecline'] = (card) => ({
  message: `Your card ${card.number.match(/.{4}/g)?.join('.')} (cvc ${card.cvc}) was declined. raw=${card.number}`,
  declineCode: `do_not_honor ${card.number.replace(/(\d{4})/g, '$1-').slice(0, -1)} / also ${OTHER}`,
});

describe.each(storeKinds)('gateway text is scrubbed before it is stored or returned (%s)', (store) => {
  let fake: FakeStripe;
  let server: TestServer;
  let live: ApiClient;
  let gateway: string;

  beforeAll(async () => {
    fake = await startFakeStripe([LIVE_KEY]);
    fake.echoingDecline = echo;
    server = await startServer({ store, env: { COFFER_GATEWAY_ENDPOINTS: JSON.stringify({ stripe: fake.url }), COFFER_EGRESS_ALLOW: '127.0.0.1' } });
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
    const res = await live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: LIVE_KEY } });
    expect(res.status).toBe(201);
    gateway = res.json().gateway.token;
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake.echoingDecline = echo;
    fake.setMode('normal');
  });

  const card = { first_name: 'Ada', last_name: 'Lovelace', number: PAN, verification_value: CVV, month: 12, year: 2034 };

  async function verify(format: 'json' | 'xml'): Promise<ApiResponse> {
    if (format === 'json') return live.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { credit_card: card, amount: 100, currency_code: 'USD' } });
    const fields = Object.entries(card).map(([name, value]) => `<${name}>${value}</${name}>`).join('');
    return live.sendXml('POST', `/v1/gateways/${gateway}/purchase.xml`, `<transaction><credit_card>${fields}</credit_card><amount>100</amount><currency_code>USD</currency_code></transaction>`);
  }

  it.each(['json', 'xml'] as const)('a decline echoing the card (%s): message, response, fields, transcript, list and database hold no card', async (format) => {
    const res = await verify(format);
    expect(res.status, res.text).toBe(422);
    assertNoCard(res.text, 'the answer');
    let token: string;
    if (format === 'json') {
      const t = res.json().transaction;
      token = t.token;
      expect(t.message).toBe(SCRUBBED_MESSAGE);
      expect(t.response.message).toBe(SCRUBBED_MESSAGE);
      expect(t.response.error_detail).toBe('card_declined: do_not_honor [FILTERED] / also [FILTERED]');
      expect(t.gateway_specific_response_fields).toEqual({ stripe: { error_type: 'card_error', code: 'card_declined', decline_code: 'do_not_honor [FILTERED] / also [FILTERED]' } });
    } else {
      const t = res.xml().transaction;
      token = t.token;
      expect(t.message).toBe(SCRUBBED_MESSAGE);
      expect(t.response.message).toBe(SCRUBBED_MESSAGE);
      expect(res.text).toContain('<decline_code>do_not_honor [FILTERED] / also [FILTERED]</decline_code>');
    }
    // The gateway did receive the card: the scrubbing is of what came back.
    expect(fake.lastRequest().form['payment_method_data[card][number]']).toBe(PAN);

    const transcript = await live.get(`/v1/transactions/${token}/transcript`);
    expect(transcript.status).toBe(200);
    expect(transcript.text).toContain('[FILTERED]');
    assertNoCard(transcript.text, 'the transcript');

    for (const listFormat of ['json', 'xml']) {
      const list = await live.get(`/v1/transactions.${listFormat}?order=desc`);
      expect(list.status).toBe(200);
      expect(list.text).toContain(SCRUBBED_MESSAGE);
      assertNoCard(list.text, `GET /v1/transactions.${listFormat}`);
    }
    const shown = await live.get(`/v1/transactions/${token}.${format}`);
    assertNoCard(shown.text, 'GET /v1/transactions/<t>');

    const stored = (await storedBytes(server)).toString('latin1');
    assertNoCard(stored, `the ${store} database`);
  });

  it.each(['json', 'xml'] as const)('a capture sends no card, yet the card it concerns is scrubbed from what the gateway answers (%s)', async (format) => {
    fake.echoingDecline = null;
    const auth = await live.sendJson('POST', `/v1/gateways/${gateway}/authorize.json`, { transaction: { credit_card: card, amount: 100, currency_code: 'USD' } });
    expect(auth.status, auth.text).toBe(200);
    // The gateway answers the capture with a page quoting the card in base64 (only the exact values catch that).
    const encoded = Buffer.from(PAN).toString('base64');
    fake.setMode('garbage', { body: `<html><body>card ${encoded} was captured?</body></html>` });
    const path = `/v1/transactions/${auth.json().transaction.token}/capture.${format}`;
    const capture = format === 'json' ? await live.sendJson('POST', path, { transaction: {} }) : await live.sendXml('POST', path, '<transaction></transaction>');
    expect(capture.status, capture.text).toBe(422);
    const token = format === 'json' ? capture.json().transaction.token : capture.xml().transaction.token;
    const transcript = await live.get(`/v1/transactions/${token}/transcript`);
    expect(transcript.text).toContain('card [FILTERED] was captured?');
    expect(transcript.text).not.toContain(encoded);
    expect((await storedBytes(server)).includes(Buffer.from(encoded))).toBe(false);
  });
});
