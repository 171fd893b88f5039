import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../helpers/postgres.js';
import { PortalClient } from '../helpers/portal-client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const VISA = '4111111111111111';

/*
 * The portal's workflow editor over HTTP on both stores. Owners and admins build workflows with the
 * form (gateways picked, a rule per condition, weights, backups, retry mode) or as JSON; developers
 * and viewers read and explain only. A bad form is shown again with the API's messages and stores
 * nothing; a card number typed into any field is never shown back.
 */
describe.each(storeKinds)('portal workflows (%s)', (store) => {
  let server: TestServer;
  let env: string;
  let admin: PortalClient;
  let developer: PortalClient;
  let viewer: PortalClient;
  let gatewayA: string;
  let gatewayB: string;

  const gateway = async (description: string) => (await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test', description } })).json().gateway.token as string;
  const storedWorkflows = async () => (await server.client.get('/v1/workflows.json')).json().workflows as Array<{ key: string }>;

  beforeAll(async () => {
    server = await startServer({ store });
    env = server.init.environment_key;
    for (const [email, role] of [['admin@example.com', 'admin'], ['dev@example.com', 'developer'], ['viewer@example.com', 'viewer']] as const) {
      await server.core.portalUsers.create(server.init.organization_token, { email, role, password: PASSWORD });
    }
    admin = new PortalClient(server.client);
    developer = new PortalClient(server.client);
    viewer = new PortalClient(server.client);
    await admin.signIn('admin@example.com', PASSWORD);
    await developer.signIn('dev@example.com', PASSWORD);
    await viewer.signIn('viewer@example.com', PASSWORD);
    gatewayA = await gateway('Acquirer A');
    gatewayB = await gateway('Acquirer B');
  });
  afterAll(() => server.close());

  /** The builder's fields of one rule. */
  const rule = (i: number, fields: Record<string, string>) => Object.fromEntries(Object.entries(fields).map(([name, value]) => [`rule_${i}_${name}`, value]));

  it('builds a workflow with every condition, a split, a backup and a retry mode, without JSON', async () => {
    const list = await admin.get(`/portal/e/${env}/workflows`);
    expect(list.text).toContain('No workflows yet.');
    // Gateways are picked by the name the merchant gave them, with the type beside it.
    expect(list.text).toContain(`<option value="${gatewayA}">Acquirer A (test, …${gatewayA.slice(-6)})</option>`);
    const created = await admin.post(`/portal/e/${env}/workflows`, {
      key: 'checkout',
      name: 'Checkout',
      rule_count: '2',
      ...rule(0, {
        name: 'euro cards',
        brand_visa: 'on',
        brand_master: 'on',
        currencies: 'eur, GBP',
        amount_min: '100',
        amount_max: '500000',
        bin_prefixes: '4111, 55',
        bin_from: '400000',
        bin_to: '499999',
        pmtype_credit_card: 'on',
        metadata_key: 'tier',
        metadata_value: 'gold',
        gw_0: gatewayA,
        weight_0: '70',
        gw_1: gatewayB,
        weight_1: '30',
      }),
      // The empty block the editor offers adds no rule.
      ...rule(1, { name: '', order: '2' }),
      default_gw_0: gatewayB,
      backup_0: gatewayA,
      retry_mode: 'standard',
      default: 'on',
      action: 'save',
    });
    expect(created.status, created.text).toBe(303);
    expect(created.headers.location).toBe(`/portal/e/${env}/workflows/checkout?done=created`);
    const api = (await server.client.get('/v1/workflows/checkout.json')).json().workflow;
    expect(api).toMatchObject({
      name: 'Checkout',
      default: true,
      retry_mode: 'standard',
      rules: [
        {
          name: 'euro cards',
          condition: {
            card_brands: ['visa', 'master'],
            currencies: ['EUR', 'GBP'],
            amount_min: 100,
            amount_max: 500000,
            bin_prefixes: ['4111', '55'],
            bin_range: { from: '400000', to: '499999' },
            payment_method_types: ['credit_card'],
            metadata: { key: 'tier', value: 'gold' },
          },
          target: { split: [{ gateway_token: gatewayA, weight: 70 }, { gateway_token: gatewayB, weight: 30 }] },
        },
      ],
      default_target: { gateway_token: gatewayB },
      backup_gateway_tokens: [gatewayA],
    });
    const shown = await admin.get(`/portal/e/${env}/workflows/checkout`);
    expect(shown.text).toContain('card brand visa or master; currency EUR or GBP; amount ≥ 100; amount ≤ 500000; BIN starts with 4111 or 55; BIN 400000–499999; payment method credit_card; metadata tier = gold');
    expect(shown.text).toContain(`<option value="${gatewayA}" selected>Acquirer A`);
    expect(shown.text).toContain('Save workflow');
    const actions = (await server.client.get('/v1/audit_events.json?count=100')).json().audit_events.map((event: { action: string }) => event.action);
    expect(actions).toContain('workflow.create');
  });

  it('adds, moves and removes rules; "Add another rule" keeps what was typed and saves nothing', async () => {
    const more = await admin.post(`/portal/e/${env}/workflows/checkout`, { name: 'Checkout', rule_count: '1', ...rule(0, { name: 'amex', brand_american_express: 'on', gw_0: gatewayB }), default_gw_0: gatewayA, action: 'add_rule' });
    expect(more.status).toBe(200);
    expect(more.text).toContain('value="amex"');
    expect(more.text).toContain('name="rule_count" value="2"');
    expect((await server.client.get('/v1/workflows/checkout.json')).json().workflow.rules[0].name).toBe('euro cards');

    const saved = await admin.post(`/portal/e/${env}/workflows/checkout`, {
      name: 'Checkout',
      rule_count: '3',
      ...rule(0, { name: 'euro cards', order: '1', currencies: 'EUR', gw_0: gatewayA }),
      ...rule(1, { name: 'amex', order: '1', brand_american_express: 'on', gw_0: gatewayB }),
      ...rule(2, { name: 'bank', order: '3', pmtype_bank_account: 'on', gw_0: gatewayB }),
      default_gw_0: gatewayA,
      retry_mode: 'none',
      action: 'save',
    });
    expect(saved.status, saved.text).toBe(303);
    let stored = (await server.client.get('/v1/workflows/checkout.json')).json().workflow;
    expect(stored.rules.map((r: { name: string }) => r.name)).toEqual(['amex', 'euro cards', 'bank']);
    expect(stored).toMatchObject({ retry_mode: 'none', default: false, backup_gateway_tokens: [], default_target: { gateway_token: gatewayA } });

    const removed = await admin.post(`/portal/e/${env}/workflows/checkout`, {
      name: 'Checkout',
      rule_count: '3',
      ...rule(0, { name: 'amex', brand_american_express: 'on', gw_0: gatewayB }),
      ...rule(1, { name: 'euro cards', remove: 'on', currencies: 'EUR', gw_0: gatewayA }),
      ...rule(2, { name: 'bank', order: '1', pmtype_bank_account: 'on', gw_0: gatewayB }),
      default_gw_0: gatewayA,
      retry_mode: 'outage_only',
      action: 'save',
    });
    expect(removed.status, removed.text).toBe(303);
    stored = (await server.client.get('/v1/workflows/checkout.json')).json().workflow;
    expect(stored.rules.map((r: { name: string }) => r.name)).toEqual(['bank', 'amex']);
  });

  it('shows a bad form again with the API messages, stores nothing, and never shows a card number back', async () => {
    const badWeight = await admin.post(`/portal/e/${env}/workflows`, { key: 'bad', name: 'Bad', rule_count: '0', default_gw_0: gatewayA, default_weight_0: '0', default_gw_1: gatewayB, default_weight_1: '30', action: 'save' });
    expect(badWeight.status).toBe(422);
    expect(badWeight.text).toContain('Nothing was saved.');
    expect(badWeight.text).toContain('default_target.split[0].weight must be a positive integer');
    expect(badWeight.text).toContain('value="Bad"');
    const cardTyped = await admin.post(`/portal/e/${env}/workflows`, {
      key: 'bad',
      name: 'Bad',
      rule_count: '1',
      ...rule(0, { name: 'oops', bin_prefixes: VISA, bin_from: VISA, bin_to: '4111 1111 1111 1111', metadata_value: VISA, gw_0: gatewayA }),
      default_gw_0: gatewayA,
      action: 'save',
    });
    expect(cardTyped.status).toBe(422);
    expect(cardTyped.text).toContain('Bin prefixes is too long (maximum is 8 characters)');
    expect(cardTyped.text).not.toContain(VISA);
    expect(cardTyped.text).not.toContain('4111 1111 1111 1111');
    const noTarget = await admin.post(`/portal/e/${env}/workflows`, { key: 'bad', name: 'Bad', rule_count: '0', action: 'save' });
    expect(noTarget.status).toBe(422);
    expect(noTarget.text).toContain('Default target can&#39;t be blank');
    expect((await storedWorkflows()).map((w) => w.key)).toEqual(['checkout']);
  });

  it('keeps the JSON as an advanced view: create and save the API object, a bad one refused', async () => {
    const shown = await admin.get(`/portal/e/${env}/workflows/checkout`);
    expect(shown.text).toContain('Advanced: the workflow as JSON');
    expect(shown.text).toContain('&quot;name&quot;: &quot;bank&quot;');
    const workflow = { key: 'from-json', name: 'From JSON', default_target: { split: [{ gateway_token: gatewayA, weight: 1 }, { gateway_token: gatewayB, weight: 3 }] }, rules: [{ name: 'jpy', condition: { currencies: ['JPY'] }, target: { gateway_token: gatewayB } }] };
    const created = await admin.post(`/portal/e/${env}/workflow-json`, { workflow_json: JSON.stringify({ workflow }) });
    expect(created.status, created.text).toBe(303);
    expect((await server.client.get('/v1/workflows/from-json.json')).json().workflow).toMatchObject({ name: 'From JSON', rules: [{ name: 'jpy' }] });
    const saved = await admin.post(`/portal/e/${env}/workflows/from-json/json`, { workflow_json: JSON.stringify({ ...workflow, name: 'Renamed in JSON' }) });
    expect(saved.status, saved.text).toBe(303);
    expect((await server.client.get('/v1/workflows/from-json.json')).json().workflow.name).toBe('Renamed in JSON');
    const bad = await admin.post(`/portal/e/${env}/workflows/from-json/json`, { workflow_json: '{not json' });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('The workflow must be a JSON object');
    const otherKey = await admin.post(`/portal/e/${env}/workflows/from-json/json`, { workflow_json: JSON.stringify({ key: 'other' }) });
    expect(otherKey.status).toBe(422);
    expect((await server.client.get('/v1/workflows/from-json.json')).json().workflow.name).toBe('Renamed in JSON');
  });

  it('explains a sample transaction from the editor, by facts or by a stored card, for every role', async () => {
    for (const client of [admin, viewer]) {
      await client.get(`/portal/e/${env}/workflows/checkout`);
      const byFacts = await client.post(`/portal/e/${env}/workflows/checkout/explain`, { sample_amount: '2500', sample_currency: 'eur', sample_brand: 'american_express' });
      expect(byFacts.status, byFacts.text).toBe(200);
      expect(byFacts.text).toContain(`Result: Acquirer B (test, …${gatewayB.slice(-6)})`);
      expect(byFacts.text).toContain('Chosen by rule 2, “amex”');
      expect(byFacts.text).toContain('✓ card_brand: wanted american_express, got american_express');
      expect(byFacts.text).toContain('✗ payment_method_type: wanted bank_account, got credit_card');
    }
    const pm = (await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'Ada', last_name: 'L', number: VISA, verification_value: '123', month: 3, year: 2032 } } })).json().transaction.payment_method.token as string;
    const byToken = await admin.post(`/portal/e/${env}/workflows/checkout/explain`, { sample_amount: '1000', sample_currency: 'USD', sample_token: pm });
    expect(byToken.status).toBe(200);
    expect(byToken.text).toContain('Chosen by the default target (no rule matched)');
    expect(byToken.text).toContain('brand visa, BIN 41111111');
    expect(byToken.text).not.toContain(VISA);
    // A card number typed in the sample is refused and never shown back, in any field.
    const typed: Array<Record<string, string>> = [{ sample_bin: VISA }, { sample_token: VISA }, { sample_token: '4111-1111-1111-1111' }];
    for (const fields of typed) {
      const refused = await admin.post(`/portal/e/${env}/workflows/checkout/explain`, { sample_amount: '1000', sample_currency: 'USD', ...fields });
      expect(refused.status).toBe(422);
      expect(refused.text).toContain('Explain could not run:');
      expect(refused.text).not.toContain(VISA);
      expect(refused.text).not.toContain('4111-1111-1111-1111');
    }
    const unknown = await admin.post(`/portal/e/${env}/workflows/checkout/explain`, { sample_token: 'NoSuchToken' });
    expect(unknown.status).toBe(422);
    expect((await admin.post(`/portal/e/${env}/workflows/checkout/explain`, { sample_amount: 'ten' })).status).toBe(422);
    expect((await admin.post(`/portal/e/${env}/workflows/nothing/explain`, {})).status).toBe(404);
  });

  it('lets developers and viewers read workflows but not change them', async () => {
    for (const client of [developer, viewer]) {
      const list = await client.get(`/portal/e/${env}/workflows`);
      expect(list.status).toBe(200);
      expect(list.text).toContain('checkout');
      expect(list.text).not.toContain('Create workflow');
      const shown = await client.get(`/portal/e/${env}/workflows/checkout`);
      expect(shown.status).toBe(200);
      expect(shown.text).not.toContain('Save workflow');
      expect(shown.text).toContain('Try it: explain a sample transaction');
      expect((await client.post(`/portal/e/${env}/workflows`, { key: 'forged', name: 'Forged', default_gw_0: gatewayA, action: 'save' })).status).toBe(403);
      expect((await client.post(`/portal/e/${env}/workflow-json`, { workflow_json: '{}' })).status).toBe(403);
      expect((await client.post(`/portal/e/${env}/workflows/checkout`, { name: 'Forged' })).status).toBe(403);
      expect((await client.post(`/portal/e/${env}/workflows/checkout/json`, { workflow_json: '{"name":"Forged"}' })).status).toBe(403);
      expect((await client.post(`/portal/e/${env}/workflows/checkout/remove`, {})).status).toBe(403);
    }
    expect((await server.client.get('/v1/workflows/checkout.json')).json().workflow.name).toBe('Checkout');
    const removed = await admin.post(`/portal/e/${env}/workflows/checkout/remove`, {});
    expect(removed.status).toBe(303);
    expect((await server.client.get('/v1/workflows/checkout.json')).status).toBe(404);
  });
});
