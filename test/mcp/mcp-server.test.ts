import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { toolAnswer } from '../../src/mcp/server.js';
import { findCardData } from '../helpers/leak-scan.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { binPath, cofferEnv, ensureBuilt, repoRoot, runCoffer } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/*
 * `coffer mcp` (docs/mcp.md), driven by the MCP SDK's own client over stdio against a running
 * Coffer: read-only by default, each other group behind its flag, every call in the audit log,
 * and no tool that returns a full card number.
 */

const PAN = '4111111111111111';
const READ_TOOLS = ['list_gateways', 'show_gateway', 'list_payment_methods', 'show_payment_method', 'list_transactions', 'show_transaction', 'show_transcript', 'list_events', 'show_event', 'explain_workflow', 'list_receivers', 'show_receiver', 'list_certificates', 'show_certificate'];

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };

describe('coffer mcp over stdio', () => {
  let server: TestServer;
  let caFile: string;
  const temp = tempDir();
  const clients: Client[] = [];

  beforeAll(async () => {
    await ensureBuilt();
    server = await startServer();
    caFile = path.join(temp.dir, 'ca.pem');
    fs.writeFileSync(caFile, server.ca ?? '');
  }, 180_000);

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  afterAll(async () => {
    await server?.close();
    temp.cleanup();
  });

  async function connect(flags: string[] = [], secret = server.init.access_secret): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [binPath, 'mcp', ...flags],
      cwd: repoRoot,
      env: cofferEnv({ COFFER_MCP_URL: server.client.baseUrl, COFFER_MCP_ENVIRONMENT_KEY: server.init.environment_key, COFFER_MCP_ACCESS_SECRET: secret, COFFER_MCP_CA_FILE: caFile }) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'coffer-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> {
    const result = (await client.callTool({ name, arguments: args })) as ToolResult;
    const text = result.content.map((part) => part.text ?? '').join('\n');
    // No tool answer may hold a full card number.
    expect(findCardData(text), `${name} returned card data`).toEqual([]);
    return { text, isError: result.isError === true };
  }

  const json = (text: string) => JSON.parse(text.slice(text.indexOf('\n') + 1));

  it('is read-only by default: only read tools are offered, and a write tool cannot be called', async () => {
    const client = await connect();
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(READ_TOOLS));
    for (const forbidden of ['tokenize_card', 'purchase', 'authorize', 'capture_transaction', 'credit_transaction', 'void_transaction', 'create_test_gateway', 'redact_gateway']) expect(names).not.toContain(forbidden);
    const tools = (await client.listTools()).tools;
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);

    const refused = (await client.callTool({ name: 'purchase', arguments: { gateway_token: 'x', payment_method_token: 'y', amount: 100, currency_code: 'USD' } })) as ToolResult;
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toMatch(/purchase not found/i);
  });

  it('offers each group only behind its own flag', async () => {
    const tokenizing = (await (await connect(['--allow-tokenization'])).listTools()).tools.map((tool) => tool.name);
    expect(tokenizing).toContain('tokenize_card');
    expect(tokenizing).not.toContain('purchase');
    expect(tokenizing).not.toContain('create_test_gateway');
    const money = (await (await connect(['--allow-money-movement'])).listTools()).tools.map((tool) => tool.name);
    expect(money).toEqual(expect.arrayContaining(['purchase', 'authorize', 'verify', 'capture_transaction', 'credit_transaction', 'void_transaction']));
    expect(money).not.toContain('tokenize_card');
    const admin = (await (await connect(['--allow-admin'])).listTools()).tools.map((tool) => tool.name);
    expect(admin).toEqual(expect.arrayContaining(['create_test_gateway', 'redact_gateway', 'redact_receiver', 'delete_workflow', 'redeliver_event']));
    expect(admin).not.toContain('purchase');
  });

  it('tokenizes, purchases and reads back with masked cards only, each call in the audit log', async () => {
    const client = await connect(['--allow-tokenization', '--allow-money-movement', '--allow-admin']);
    const gateway = json((await call(client, 'create_test_gateway', { description: 'from mcp' })).text).gateway;
    expect(gateway.gateway_type).toBe('test');

    const added = await call(client, 'tokenize_card', { credit_card: { number: PAN, month: 3, year: 2035, first_name: 'Joe', last_name: 'Jones', verification_value: '123' }, retained: true });
    expect(added.isError).toBe(false);
    expect(added.text).toMatch(/^HTTP 201/);
    const card = json(added.text).transaction.payment_method;
    expect(card.number).toBe('XXXX-XXXX-XXXX-1111');

    const purchase = json((await call(client, 'purchase', { gateway_token: gateway.token, payment_method_token: card.token, amount: 500, currency_code: 'USD', idempotency_key: 'mcp-1' })).text).transaction;
    expect(purchase).toMatchObject({ succeeded: true, amount: 500, transaction_type: 'Purchase' });
    const refund = json((await call(client, 'credit_transaction', { token: purchase.token, amount: 200 })).text).transaction;
    expect(refund).toMatchObject({ succeeded: true, transaction_type: 'Credit', amount: 200 });

    for (const [name, args] of [
      ['show_payment_method', { token: card.token }],
      ['list_payment_methods', {}],
      ['show_transaction', { token: purchase.token }],
      ['show_transcript', { token: purchase.token }],
      ['list_transactions', { count: 5 }],
      ['list_payment_method_transactions', { token: card.token }],
      ['list_events', { count: 5 }],
      ['list_gateways', {}],
    ] as const) {
      const answer = await call(client, name, args);
      expect(answer.isError, `${name}: ${answer.text.slice(0, 200)}`).toBe(false);
    }

    const audit = await server.client.get('/v1/audit_events.json?action=mcp.tool_call&count=100');
    expect(audit.status, audit.text).toBe(200);
    const entries = audit.json().audit_events as Array<{ actor: string; actor_type: string; object_id: string; environment_key: string; details: Record<string, unknown> }>;
    const tools = entries.map((entry) => entry.object_id);
    expect(tools).toEqual(expect.arrayContaining(['create_test_gateway', 'tokenize_card', 'purchase', 'credit_transaction', 'show_transcript', 'list_events']));
    const tokenize = entries.find((entry) => entry.object_id === 'tokenize_card');
    expect(tokenize).toMatchObject({ actor_type: 'access_secret', environment_key: server.init.environment_key, details: { method: 'POST', route: '/v1/payment_methods', status: 201 } });
    // The audit log names the route pattern, never a body or a card.
    expect(findCardData(audit.text)).toEqual([]);
    expect(audit.text).not.toContain('Jones');
  });

  it('says so when the secret is wrong, the token unknown or Coffer unreachable', async () => {
    const wrong = await connect([], 'not-the-secret');
    const refused = await call(wrong, 'list_gateways');
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^HTTP 401/);

    const client = await connect();
    const missing = await call(client, 'show_gateway', { token: 'NoSuchGateway' });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^HTTP 404/);
    expect(missing.text).toContain('errors.gateway_not_found');

    const invalid = (await client.callTool({ name: 'list_transactions', arguments: { count: 1000 } })) as ToolResult;
    expect(invalid.isError).toBe(true);

    const nowhere = new StdioClientTransport({
      command: process.execPath,
      args: [binPath, 'mcp'],
      cwd: repoRoot,
      env: cofferEnv({ COFFER_MCP_URL: 'https://127.0.0.1:1', COFFER_MCP_ENVIRONMENT_KEY: 'k', COFFER_MCP_ACCESS_SECRET: 's' }) as Record<string, string>,
      stderr: 'pipe',
    });
    const lost = new Client({ name: 'coffer-test', version: '1.0.0' });
    await lost.connect(nowhere);
    clients.push(lost);
    const unreachable = await call(lost, 'list_gateways');
    expect(unreachable.isError).toBe(true);
    expect(unreachable.text).toMatch(/Coffer could not be reached/);
  });

  it('refuses to start without its settings, naming the missing one', async () => {
    const result = await runCoffer(['mcp'], { COFFER_MCP_ENVIRONMENT_KEY: 'k', COFFER_MCP_ACCESS_SECRET: 's' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/COFFER_MCP_URL/);
    expect(result.stdout).toBe('');
    const badCa = await runCoffer(['mcp'], { COFFER_MCP_URL: 'https://localhost:1', COFFER_MCP_ENVIRONMENT_KEY: 'k', COFFER_MCP_ACCESS_SECRET: 's', COFFER_MCP_CA_FILE: path.join(temp.dir, 'missing.pem') });
    expect(badCa.code).toBe(1);
    expect(badCa.stderr).toMatch(/COFFER_MCP_CA_FILE/);
    const badUrl = await runCoffer(['mcp'], { COFFER_MCP_URL: 'ftp://coffer.example', COFFER_MCP_ENVIRONMENT_KEY: 'k', COFFER_MCP_ACCESS_SECRET: 's' });
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toMatch(/COFFER_MCP_URL: must be an http\(s\) URL/);
  });
});

describe('a tool answer', () => {
  it('masks any card-like number, whatever put it there', () => {
    const answer = toolAnswer(200, `{"message":"declined card ${PAN}","spaced":"4111 1111 1111 1111","id":"tx_9f8e"}`);
    const text = (answer.content[0] as { text: string }).text;
    expect(findCardData(text)).toEqual([]);
    expect(text).toContain('[FILTERED]');
    expect(text).toContain('tx_9f8e');
    expect(answer.isError).toBe(false);
    expect(toolAnswer(422, '{}').isError).toBe(true);
  });
});
