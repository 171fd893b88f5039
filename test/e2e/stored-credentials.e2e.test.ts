import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeStripe, type FakeStripe } from '../fakes/fake-stripe.js';
import { FakeAdyen } from '../fakes/fake-adyen.js';
import { jsonOf, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { addPaymentMethod, createTestGateway } from '../helpers/fixtures.js';
import { errorKeys, FORMATS, startGatewayE2e, transact, type Format, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * Stored credentials (docs/test-gateway-flows.md). `stored_credential_initiator` and `stored_credential_reason_type`
 * are accepted on purchase, authorize and verify and echoed; only both together reach the gateway.
 * The network transaction id a cardholder-initiated transaction returns is kept with the payment
 * method and sent on later merchant-initiated ones, through whichever gateway: the test gateway
 * (its transcript shows what it was sent) and Stripe (the fake records the form).
 */

const VISA = '4111111111111111';
const LIVE_KEY = 'sk_live_CofferStoredCredKey000000001';
const ADYEN_MERCHANT = 'CofferECOM';
const ADYEN_KEY = 'AQEyhmfxStoredCredentialsE2eKey==-tail';

describe.each(storeKinds)('stored credentials on the test gateway (%s)', (store) => {
  let server: TestServer;
  let gateway: string;
  let otherGateway: string;

  beforeAll(async () => {
    server = await startServer({ store });
    gateway = await createTestGateway(server.client);
    otherGateway = await createTestGateway(server.client);
  });

  afterAll(async () => {
    await server?.close();
  });

  async function retainedCard(): Promise<string> {
    return (await addPaymentMethod(server.client, { credit_card: { first_name: 'Joe', last_name: 'Jones', number: VISA, month: 3, year: 2035 }, retained: true })).payment_method.token;
  }

  async function transcriptOf(token: string): Promise<string> {
    const res = await server.client.get(`/v1/transactions/${token}/transcript`);
    expect(res.status).toBe(200);
    return res.text;
  }

  describe.each(FORMATS)('%s', (format: Format) => {
    const on = (operation: string, pm: string, extra: Record<string, unknown>, via = gateway) =>
      transact(server.client, format, `gateways/${via}/${operation}`, { payment_method_token: pm, amount: 100, currency_code: 'USD', ...extra });

    it('echoes both fields, returns the deterministic network transaction id, and sends it on the next MIT through another gateway', async () => {
      const pm = await retainedCard();
      const cit = await on('purchase', pm, { stored_credential_initiator: 'cardholder', stored_credential_reason_type: 'recurring' });
      expect(cit.status).toBe(200);
      expect(cit.t).toMatchObject({ stored_credential_initiator: 'cardholder', stored_credential_reason_type: 'recurring', network_transaction_id: `test_nti_${cit.t.token}` });
      expect(await transcriptOf(cit.t.token)).toContain('stored credential: cardholder recurring, network transaction id none');

      for (const operation of ['purchase', 'authorize', 'verify']) {
        const mit = await on(operation, pm, { stored_credential_initiator: 'merchant', stored_credential_reason_type: 'unscheduled' }, otherGateway);
        expect(mit.status, operation).toBe(200);
        expect(mit.t).toMatchObject({ stored_credential_initiator: 'merchant', stored_credential_reason_type: 'unscheduled' });
        expect(await transcriptOf(mit.t.token)).toContain(`stored credential: merchant unscheduled, network transaction id test_nti_${cit.t.token}`);
      }
    });

    it('proceeds without stored-credential data when only one field is sent (echoing what was sent)', async () => {
      const pm = await retainedCard();
      const one = await on('purchase', pm, { stored_credential_initiator: 'cardholder' });
      expect(one.status).toBe(200);
      expect(one.t).toMatchObject({ stored_credential_initiator: 'cardholder', stored_credential_reason_type: null });
      expect(await transcriptOf(one.t.token)).not.toContain('stored credential');
      // Not a stored-credential CIT: nothing is kept, so a MIT has no network transaction id to send.
      const mit = await on('purchase', pm, { stored_credential_initiator: 'merchant', stored_credential_reason_type: 'installment' });
      expect(await transcriptOf(mit.t.token)).toContain('stored credential: merchant installment, network transaction id none');

      const none = await on('authorize', pm, {});
      expect(none.t).toMatchObject({ stored_credential_initiator: null, stored_credential_reason_type: null });
    });

    it('refuses values outside Spreedly lists with 422 errors.inclusion', async () => {
      const pm = await retainedCard();
      const bad = await on('purchase', pm, { stored_credential_initiator: 'robot', stored_credential_reason_type: 'weekly' });
      expect(bad.status).toBe(422);
      expect(errorKeys(format, bad.res)).toEqual(['errors.inclusion', 'errors.inclusion']);
    });
  });

  it('advertises supports_populate_mit_fields on the test gateway', async () => {
    const res = await server.client.get(`/v1/gateways/${gateway}.json`);
    expect(res.json().gateway.characteristics.supports_populate_mit_fields).toBe(true);
  });
});

describe.each(storeKinds)('stored credentials through Stripe and Adyen (%s)', (store) => {
  let fake: FakeStripe;
  let adyen: FakeAdyen;
  let e2e: GatewayE2e;
  let first: string;
  let second: string;
  let adyenGateway: string;

  beforeAll(async () => {
    fake = await startFakeStripe([LIVE_KEY]);
    adyen = await FakeAdyen.start({ merchantAccount: ADYEN_MERCHANT, apiKeys: [ADYEN_KEY] });
    e2e = await startGatewayE2e('stripe', fake.url, store, {
      COFFER_GATEWAY_ENDPOINTS: JSON.stringify({ stripe: fake.url, adyen: adyen.url }),
      COFFER_GATEWAY_TIMEOUTS: JSON.stringify({ stripe: 2, adyen: 2 }),
    });
    first = await e2e.createGateway({ login: LIVE_KEY });
    second = await e2e.createGateway({ login: LIVE_KEY });
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'adyen', merchant_account: ADYEN_MERCHANT, api_key: ADYEN_KEY, sandbox: true } });
    expect(created.status, created.text).toBe(201);
    adyenGateway = created.json().gateway.token;
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
    await adyen?.close();
  });

  it.each(FORMATS)('%s: the network transaction id of a Stripe CIT goes to Adyen on the MIT (ContAuth, networkTxReference); an Adyen CIT returns its own', async (format) => {
    const pm = await e2e.vault('4242424242424242');
    const cit = await transact(e2e.live, format, `gateways/${first}/purchase`, {
      payment_method_token: pm, amount: 1000, currency_code: 'EUR', stored_credential_initiator: 'cardholder', stored_credential_reason_type: 'unscheduled',
    });
    expect(cit.status, cit.res.text).toBe(200);
    const mit = await transact(e2e.live, format, `gateways/${adyenGateway}/purchase`, {
      payment_method_token: pm, amount: 700, currency_code: 'EUR', stored_credential_initiator: 'merchant', stored_credential_reason_type: 'unscheduled',
    });
    expect(mit.status, mit.res.text).toBe(200);
    const sent = adyen.server.requestsWith('idempotency-key', mit.t.token);
    expect(sent).toHaveLength(1);
    expect(jsonOf(sent[0] as FakeRequest)).toMatchObject({
      shopperInteraction: 'ContAuth', recurringProcessingModel: 'UnscheduledCardOnFile', additionalData: { networkTxReference: cit.t.network_transaction_id },
    });

    const adyenCit = await transact(e2e.live, format, `gateways/${adyenGateway}/purchase`, {
      payment_method_token: await e2e.vault('4242424242424242'), amount: 900, currency_code: 'EUR', stored_credential_initiator: 'cardholder', stored_credential_reason_type: 'recurring',
    });
    expect(adyenCit.t.network_transaction_id).toBe(`nti_${adyenCit.t.gateway_transaction_id}`);
    const citSent = jsonOf(adyen.server.requestsWith('idempotency-key', adyenCit.t.token)[0] as FakeRequest);
    expect(citSent).toMatchObject({ shopperInteraction: 'Ecommerce', recurringProcessingModel: 'Subscription' });
  });

  it.each(FORMATS)('%s: a CIT keeps the charge network transaction id; the MIT on another Stripe gateway sends it off_session', async (format) => {
    const pm = await e2e.vault('4242424242424242');
    const cit = await transact(e2e.live, format, `gateways/${first}/purchase`, {
      payment_method_token: pm, amount: 1000, currency_code: 'USD', stored_credential_initiator: 'cardholder', stored_credential_reason_type: 'recurring',
    });
    expect(cit.status, cit.res.text).toBe(200);
    const charge = fake.intents.get(cit.t.gateway_transaction_id)?.json.latest_charge as string;
    expect(cit.t.network_transaction_id).toBe(`nti_${charge}`);
    expect(fake.requestsWithKey(cit.t.token)[0]?.form.off_session).toBeUndefined();

    const mit = await transact(e2e.live, format, `gateways/${second}/purchase`, {
      payment_method_token: pm, amount: 500, currency_code: 'USD', stored_credential_initiator: 'merchant', stored_credential_reason_type: 'recurring',
    });
    expect(mit.status, mit.res.text).toBe(200);
    const sent = fake.requestsWithKey(mit.t.token)[0];
    expect(sent?.form).toMatchObject({ off_session: 'true', 'payment_method_options[card][mit_exemption][network_transaction_id]': `nti_${charge}` });
  });
});
