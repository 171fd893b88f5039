import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/client.js';
import { errorKeys } from '../helpers/gateway-e2e.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * The workflows admin API (docs/routing.md) on both stores, JSON and XML. Create, list, show, update,
 * remove, each with its event; every validation error is a 422 naming the place, and leaves
 * nothing behind (no workflow, no event); the roles of access secrets are enforced.
 */

describe.each(storeKinds)('workflows admin API (%s)', (store) => {
  let server: TestServer;
  let admin: ApiClient;
  let gatewayA: string;
  let gatewayB: string;
  let redacted: string;

  async function createGateway(): Promise<string> {
    const res = await admin.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } });
    expect(res.status, res.text).toBe(201);
    return res.json().gateway.token;
  }

  const eventCount = async (type: string) => (await admin.get(`/v1/events.json?event_type=${type}&count=100`)).json().events.length as number;
  const workflowCount = async () => (await admin.get('/v1/workflows.json')).json().workflows.length as number;

  beforeAll(async () => {
    server = await startServer({ store });
    admin = server.client;
    gatewayA = await createGateway();
    gatewayB = await createGateway();
    redacted = await createGateway();
    expect((await admin.request('PUT', `/v1/gateways/${redacted}/redact.json`)).status).toBe(200);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('creates, lists, shows, updates and removes a workflow in JSON, each change an event', async () => {
    const body = {
      key: 'cards',
      name: 'Cards',
      retry_mode: 'standard',
      success_rate_routing: true,
      rules: [
        {
          name: 'eu',
          condition: { card_brands: ['VISA', 'master'], currencies: ['eur', 'GBP'], amount_min: 0, amount_max: 100_000, bin_range: { from: '400000', to: '499999' }, bin_prefixes: ['4'], payment_method_types: ['credit_card'], metadata: { key: 'tier', value: 'gold' } },
          target: { split: [{ gateway_token: gatewayA, weight: 3 }, { gateway_token: gatewayB, weight: '1' }] },
        },
      ],
      default_target: { gateway_token: gatewayA },
      backup_gateway_tokens: [gatewayB],
    };
    const created = await admin.sendJson('POST', '/v1/workflows.json', { workflow: body });
    expect(created.status, created.text).toBe(201);
    const workflow = created.json().workflow;
    expect(workflow).toMatchObject({
      key: 'cards',
      name: 'Cards',
      default: false,
      retry_mode: 'standard',
      success_rate_routing: true,
      rules: [
        {
          name: 'eu',
          // Brands lower case and currencies upper case, as transactions report them.
          condition: { card_brands: ['visa', 'master'], currencies: ['EUR', 'GBP'], amount_min: 0, amount_max: 100_000, bin_range: { from: '400000', to: '499999' }, bin_prefixes: ['4'], payment_method_types: ['credit_card'], metadata: { key: 'tier', value: 'gold' } },
          target: { split: [{ gateway_token: gatewayA, weight: 3 }, { gateway_token: gatewayB, weight: 1 }] },
        },
      ],
      default_target: { gateway_token: gatewayA },
      backup_gateway_tokens: [gatewayB],
    });
    expect((await admin.get('/v1/workflows/cards.json')).json().workflow).toEqual(workflow);
    expect((await admin.get('/v1/workflows.json')).json().workflows.map((item: any) => item.key)).toContain('cards');
    const added = (await admin.get('/v1/events.json?event_type=AddWorkflow')).json().events;
    expect(added.some((event: any) => event.object_type === 'workflow' && event.object_key === 'cards')).toBe(true);

    // An update replaces the fields it names and keeps the others.
    const updated = await admin.sendJson('PUT', '/v1/workflows/cards.json', { workflow: { name: 'Cards v2', retry_mode: 'outage_only' } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json().workflow).toMatchObject({ name: 'Cards v2', retry_mode: 'outage_only', rules: workflow.rules, backup_gateway_tokens: [gatewayB] });
    expect(await eventCount('UpdateWorkflow')).toBeGreaterThan(0);

    const removed = await admin.request('DELETE', '/v1/workflows/cards.json');
    expect(removed.status).toBe(200);
    expect(removed.json().workflow.name).toBe('Cards v2');
    expect((await admin.get('/v1/workflows/cards.json')).status).toBe(404);
    expect(await eventCount('RemoveWorkflow')).toBeGreaterThan(0);
  });

  it('takes and answers XML: repeated items for lists, typed text for numbers and flags', async () => {
    const xml =
      '<workflow><key>xml-flow</key><name>XML flow</name><default>true</default><retry_mode>none</retry_mode>' +
      '<rules><rule><name>amex</name><condition><card_brands><card_brand>american_express</card_brand></card_brands><amount_max>5000</amount_max></condition>' +
      `<target><split><share><gateway_token>${gatewayA}</gateway_token><weight>70</weight></share><share><gateway_token>${gatewayB}</gateway_token><weight>30</weight></share></split></target></rule></rules>` +
      `<default_target><gateway_token>${gatewayB}</gateway_token></default_target>` +
      `<backup_gateway_tokens><gateway_token>${gatewayA}</gateway_token></backup_gateway_tokens></workflow>`;
    const created = await admin.sendXml('POST', '/v1/workflows.xml', xml);
    expect(created.status, created.text).toBe(201);
    const json = (await admin.get('/v1/workflows/xml-flow.json')).json().workflow;
    expect(json).toMatchObject({
      default: true,
      retry_mode: 'none',
      rules: [{ name: 'amex', condition: { card_brands: ['american_express'], amount_max: 5000 }, target: { split: [{ gateway_token: gatewayA, weight: 70 }, { gateway_token: gatewayB, weight: 30 }] } }],
      default_target: { gateway_token: gatewayB },
      backup_gateway_tokens: [gatewayA],
    });
    const shown = (await admin.get('/v1/workflows/xml-flow.xml')).xml().workflow;
    expect(shown.key).toBe('xml-flow');
    expect(shown.rules.rule.target.split.share.map((share: any) => share.gateway_token)).toEqual([gatewayA, gatewayB]);
    expect(shown.backup_gateway_tokens.gateway_token).toBe(gatewayA);
    const explained = await admin.sendXml('POST', '/v1/workflows/xml-flow/explain.xml', '<transaction><amount>100</amount><currency_code>USD</currency_code></transaction>');
    expect(explained.status, explained.text).toBe(200);
    const explanation = explained.xml().explanation;
    expect(explanation.gateway_token).toBe(gatewayB);
    expect(explanation.rules.rule.checks.check.map((check: any) => check.criterion)).toEqual(['card_brand', 'amount_max']);
    expect((await admin.request('DELETE', '/v1/workflows/xml-flow.xml')).status).toBe(200);
  });

  const valid = () => ({ key: 'valid', name: 'Valid', default_target: { gateway_token: gatewayA } });
  const split = (...shares: Array<[string, unknown]>) => ({ split: shares.map(([gateway_token, weight]) => ({ gateway_token, weight })) });
  const invalidBodies: Array<[string, () => Record<string, unknown>, Array<[string, string]>]> = [
    ['no key', () => ({ ...valid(), key: undefined }), [['errors.blank', 'key']]],
    ['a key with spaces', () => ({ ...valid(), key: 'Bad Key' }), [['errors.invalid', 'key']]],
    ['no name', () => ({ ...valid(), name: undefined }), [['errors.blank', 'name']]],
    ['no default target', () => ({ ...valid(), default_target: undefined }), [['errors.blank', 'default_target']]],
    ['a target naming a gateway and a split', () => ({ ...valid(), default_target: { gateway_token: gatewayA, ...split([gatewayB, 1]) } }), [['errors.invalid', 'default_target']]],
    ['a target naming nothing', () => ({ ...valid(), default_target: { nothing: 1 } }), [['errors.invalid', 'default_target']]],
    ['a rule without a target', () => ({ ...valid(), rules: [{ name: 'r', condition: { currencies: ['USD'] } }] }), [['errors.invalid', 'rules[0].target']]],
    ['an unknown gateway', () => ({ ...valid(), default_target: { gateway_token: 'NoSuchGateway' } }), [['errors.invalid', 'gateway_token']]],
    ['a redacted gateway', () => ({ ...valid(), backup_gateway_tokens: [redacted] }), [['errors.invalid', 'gateway_token']]],
    ['a zero weight', () => ({ ...valid(), default_target: split([gatewayA, 0], [gatewayB, 1]) }), [['errors.invalid', 'default_target.split[0].weight']]],
    ['a negative weight', () => ({ ...valid(), default_target: split([gatewayA, -3]) }), [['errors.invalid', 'default_target.split[0].weight']]],
    ['a fractional weight', () => ({ ...valid(), default_target: split([gatewayA, 1.5]) }), [['errors.invalid', 'weight']]],
    ['a weight that is not a number', () => ({ ...valid(), default_target: split([gatewayA, 'heavy']) }), [['errors.invalid', 'weight']]],
    ['an empty split', () => ({ ...valid(), default_target: { split: [] } }), [['errors.invalid', 'default_target.split']]],
    ['a gateway twice in a split', () => ({ ...valid(), default_target: split([gatewayA, 1], [gatewayA, 2]) }), [['errors.invalid', 'default_target.split']]],
    ['a rule after a catch-all', () => ({ ...valid(), rules: [{ name: 'all', target: { gateway_token: gatewayA } }, { name: 'never', condition: { currencies: ['USD'] }, target: { gateway_token: gatewayB } }] }), [['errors.invalid', 'rules[1]']]],
    ['two rules with one name', () => ({ ...valid(), rules: [{ name: 'r', condition: { currencies: ['USD'] }, target: { gateway_token: gatewayA } }, { name: 'r', condition: { currencies: ['EUR'] }, target: { gateway_token: gatewayB } }] }), [['errors.invalid', 'rules[1].name']]],
    ['amount bounds the wrong way round', () => ({ ...valid(), rules: [{ name: 'r', condition: { amount_min: 500, amount_max: 100 }, target: { gateway_token: gatewayA } }] }), [['errors.invalid', 'rules[0].condition.amount_max']]],
    ['an unknown card brand', () => ({ ...valid(), rules: [{ name: 'r', condition: { card_brands: ['mastercard'] }, target: { gateway_token: gatewayA } }] }), [['errors.invalid', 'rules[0].condition.card_brands']]],
    ['a currency that is not ISO 4217', () => ({ ...valid(), rules: [{ name: 'r', condition: { currencies: ['E1'] }, target: { gateway_token: gatewayA } }] }), [['errors.invalid', 'rules[0].condition.currencies']]],
    ['a BIN range of unequal lengths', () => ({ ...valid(), rules: [{ name: 'r', condition: { bin_range: { from: '400000', to: '4999999' } }, target: { gateway_token: gatewayA } }] }), [['errors.invalid', 'rules[0].condition.bin_range']]],
    ['a BIN prefix with letters', () => ({ ...valid(), rules: [{ name: 'r', condition: { bin_prefixes: ['41a'] }, target: { gateway_token: gatewayA } }] }), [['errors.invalid', 'rules[0].condition.bin_prefixes']]],
    ['an unknown payment method type', () => ({ ...valid(), rules: [{ name: 'r', condition: { payment_method_types: ['cheque'] }, target: { gateway_token: gatewayA } }] }), [['errors.invalid', 'rules[0].condition.payment_method_types']]],
    ['a metadata condition without a key', () => ({ ...valid(), rules: [{ name: 'r', condition: { metadata: { value: 'gold' } }, target: { gateway_token: gatewayA } }] }), [['errors.invalid', 'rules[0].condition.metadata.key']]],
    ['an unknown retry mode', () => ({ ...valid(), retry_mode: 'sometimes' }), [['errors.inclusion', 'retry_mode']]],
    ['a backup named twice', () => ({ ...valid(), backup_gateway_tokens: [gatewayB, gatewayB] }), [['errors.invalid', 'backup_gateway_tokens']]],
    ['more than five backups', () => ({ ...valid(), backup_gateway_tokens: [gatewayA, gatewayB, 'c', 'd', 'e', 'f'] }), [['errors.invalid', 'backup_gateway_tokens']]],
  ];

  it.each(invalidBodies)('refuses %s with 422, persisting nothing', async (_label, body, expected) => {
    const before = { workflows: await workflowCount(), events: await eventCount('AddWorkflow') };
    const res = await admin.sendJson('POST', '/v1/workflows.json', { workflow: body() });
    expect(res.status, res.text).toBe(422);
    const errors = res.json().errors as Array<{ key: string; attribute: string; message: string }>;
    expect(errors.map((error) => [error.key, error.attribute])).toEqual(expected);
    for (const error of errors) expect(error.message.length).toBeGreaterThan(10);
    expect({ workflows: await workflowCount(), events: await eventCount('AddWorkflow') }).toEqual(before);
  });

  it('refuses a key taken in the environment, a changed key and a bad update, keeping what was stored', async () => {
    expect((await admin.sendJson('POST', '/v1/workflows.json', { workflow: valid() })).status).toBe(201);
    const again = await admin.sendJson('POST', '/v1/workflows.json', { workflow: { ...valid(), name: 'Again' } });
    expect(again.status).toBe(422);
    expect(again.json().errors).toEqual([{ key: 'errors.invalid', attribute: 'key', message: 'A workflow with this key already exists in this environment' }]);
    const renamed = await admin.sendJson('PUT', '/v1/workflows/valid.json', { workflow: { key: 'other' } });
    expect(renamed.status).toBe(422);
    expect(errorKeys('json', renamed)).toEqual(['errors.invalid']);
    const updates = await eventCount('UpdateWorkflow');
    const bad = await admin.sendXml('PUT', '/v1/workflows/valid.xml', `<workflow><name>Broken</name><default_target><split><share><gateway_token>${gatewayB}</gateway_token><weight>0</weight></share></split></default_target></workflow>`);
    expect(bad.status).toBe(422);
    expect(errorKeys('xml', bad)).toEqual(['errors.invalid']);
    expect((await admin.get('/v1/workflows/valid.json')).json().workflow).toMatchObject({ name: 'Valid', default_target: { gateway_token: gatewayA } });
    expect(await eventCount('UpdateWorkflow')).toBe(updates);
    expect((await admin.request('DELETE', '/v1/workflows/valid.json')).status).toBe(200);
  });

  it('lets exactly one of two concurrent creates of a key win, and keeps one default', async () => {
    const body = (name: string) => ({ workflow: { ...valid(), key: 'race', name, default: true } });
    const answers = await Promise.all([admin.sendJson('POST', '/v1/workflows.json', body('one')), admin.sendJson('POST', '/v1/workflows.json', body('two'))]);
    expect(answers.map((res) => res.status).sort()).toEqual([201, 422]);
    const defaults = (await admin.get('/v1/workflows.json')).json().workflows.filter((workflow: any) => workflow.default);
    expect(defaults.map((workflow: any) => workflow.key)).toEqual(['race']);
    expect((await admin.request('DELETE', '/v1/workflows/race.json')).status).toBe(200);
  });

  it('lets read secrets read and explain, transact secrets route, and only admin secrets change workflows', async () => {
    expect((await admin.sendJson('POST', '/v1/workflows.json', { workflow: { ...valid(), key: 'roles' } })).status).toBe(201);
    const clientFor = async (role: 'read' | 'transact') => {
      const created = await server.core.tenancy.createAccessSecret(server.init.organization_token, { name: role, role, environmentKeys: null });
      return server.client.withAuth({ user: server.init.environment_key, password: created.secret });
    };
    const reader = await clientFor('read');
    const transactor = await clientFor('transact');
    expect((await reader.get('/v1/workflows/roles.json')).status).toBe(200);
    expect((await reader.sendJson('POST', '/v1/workflows/roles/explain.json', { transaction: { amount: 1 } })).status).toBe(200);
    for (const client of [reader, transactor]) {
      expect((await client.sendJson('POST', '/v1/workflows.json', { workflow: { ...valid(), key: 'nope' } })).status).toBe(401);
      expect((await client.sendJson('PUT', '/v1/workflows/roles.json', { workflow: { name: 'x' } })).status).toBe(401);
      expect((await client.request('DELETE', '/v1/workflows/roles.json')).status).toBe(401);
    }
    const card = await transactor.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { number: '4111111111111111', month: 1, year: 2031, first_name: 'A', last_name: 'B' } } });
    const purchase = await transactor.sendJson('POST', '/v1/transactions/purchase.json', { transaction: { workflow_key: 'roles', payment_method_token: card.json().transaction.payment_method.token, amount: 100, currency_code: 'USD' } });
    expect(purchase.status, purchase.text).toBe(200);
    expect(purchase.json().transaction).toMatchObject({ gateway_token: gatewayA, routed_by: { workflow_key: 'roles' } });
    expect((await reader.sendJson('POST', '/v1/transactions/purchase.json', { transaction: { workflow_key: 'roles', amount: 100 } })).status).toBe(401);
  });
});
