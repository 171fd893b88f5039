import { z } from 'zod';
import type { ApiCall } from './coffer-api.js';

/*
 * The tools `coffer mcp` offers (docs/mcp.md): each one API call. Read-only tools are always
 * offered; the others only when their group's flag is given. No tool reads or writes a body that
 * the API itself would not show: cards come back masked (and the server masks any card-like
 * number a tool's answer might hold, server.ts). Delivering or exporting a card to a third party
 * is not a tool at all.
 */

export type ToolGroup = 'read' | 'tokenization' | 'money' | 'admin';

export interface ToolSpec {
  name: string;
  group: ToolGroup;
  title: string;
  description: string;
  input: z.ZodRawShape;
  call(args: Record<string, unknown>): ApiCall;
}

const segment = (value: unknown) => encodeURIComponent(String(value));
const token = z.string().min(1).max(200).describe('The token');
const paging = {
  count: z.number().int().min(1).max(100).optional().describe('Page size, at most 100 (default 20)'),
  since_token: z.string().max(200).optional().describe('Records after this one, in the current order'),
  order: z.enum(['asc', 'desc']).optional(),
};
const pagingQuery = (args: Record<string, unknown>) => ({ count: args.count, since_token: args.since_token, order: args.order });
const metadata = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional();

const transactionFields = {
  amount: z.number().int().min(0).describe('Minor units (cents)'),
  currency_code: z.string().length(3).describe('ISO 4217, e.g. USD'),
  order_id: z.string().max(255).optional(),
  description: z.string().max(255).optional(),
};

/** A transaction body from a tool's arguments (only the fields given). */
function transaction(args: Record<string, unknown>, names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) if (args[name] !== undefined) out[name] = args[name];
  return { transaction: out };
}

const read = (name: string, title: string, description: string, input: z.ZodRawShape, call: ToolSpec['call']): ToolSpec => ({ name, group: 'read', title, description, input, call });

const READ_TOOLS: ToolSpec[] = [
  read('list_gateways', 'List gateways', 'A page of the environment’s gateways (credentials never shown, only safe ones).', paging, (args) => ({ method: 'GET', path: '/v1/gateways', query: pagingQuery(args) })),
  read('show_gateway', 'Show a gateway', 'One gateway by token.', { token }, (args) => ({ method: 'GET', path: `/v1/gateways/${segment(args.token)}` })),
  read('list_gateway_transactions', "List a gateway's transactions", 'A page of one gateway’s transactions, optionally by state.', { token, state: z.string().max(200).optional().describe('Comma-separated states, e.g. failed,gateway_processing_failed'), ...paging }, (args) => ({ method: 'GET', path: `/v1/gateways/${segment(args.token)}/transactions`, query: { ...pagingQuery(args), state: args.state } })),
  read('list_payment_methods', 'List payment methods', 'A page of payment methods (masked: last four digits only).', { state: z.string().max(100).optional().describe('Comma-separated storage states (default retained)'), ...paging }, (args) => ({ method: 'GET', path: '/v1/payment_methods', query: { ...pagingQuery(args), state: args.state } })),
  read('show_payment_method', 'Show a payment method', 'One payment method by token (masked).', { token }, (args) => ({ method: 'GET', path: `/v1/payment_methods/${segment(args.token)}` })),
  read('list_payment_method_transactions', "List a payment method's transactions", 'A page of one payment method’s transactions.', { token, ...paging }, (args) => ({ method: 'GET', path: `/v1/payment_methods/${segment(args.token)}/transactions`, query: pagingQuery(args) })),
  read('list_transactions', 'List transactions', 'A page of the environment’s transactions, optionally by state.', { state: z.string().max(200).optional().describe('Comma-separated states'), ...paging }, (args) => ({ method: 'GET', path: '/v1/transactions', query: { ...pagingQuery(args), state: args.state } })),
  read('show_transaction', 'Show a transaction', 'One transaction by token, with its gateway response.', { token }, (args) => ({ method: 'GET', path: `/v1/transactions/${segment(args.token)}` })),
  read('show_transcript', 'Show a transcript', 'The scrubbed exchange with the gateway of one transaction (plain text).', { token }, (args) => ({ method: 'GET', path: `/v1/transactions/${segment(args.token)}/transcript` })),
  read('list_events', 'List events', 'A page of the environment’s events (newest first by default).', { event_type: z.string().max(100).optional().describe('Only events of this type, e.g. TransactionSucceeded'), ...paging }, (args) => ({ method: 'GET', path: '/v1/events', query: { ...pagingQuery(args), event_type: args.event_type } })),
  read('show_event', 'Show an event', 'One event by id.', { id: z.string().min(1).max(200) }, (args) => ({ method: 'GET', path: `/v1/events/${segment(args.id)}` })),
  read('list_event_deliveries', "Show an event's callback deliveries", 'The callback delivery log of one event (status and latency of each attempt; never the body).', { id: z.string().min(1).max(200) }, (args) => ({ method: 'GET', path: `/v1/events/${segment(args.id)}/deliveries` })),
  read('list_workflows', 'List routing workflows', 'Every routing workflow of the environment.', {}, () => ({ method: 'GET', path: '/v1/workflows' })),
  read('show_workflow', 'Show a routing workflow', 'One routing workflow by key.', { key: z.string().min(1).max(64) }, (args) => ({ method: 'GET', path: `/v1/workflows/${segment(args.key)}` })),
  read(
    'explain_workflow',
    'Explain a routing decision',
    'Dry run: which gateway a transaction would take under a workflow and why (calls no gateway, stores nothing).',
    { key: z.string().min(1).max(64), ...transactionFields, payment_method_token: z.string().max(200).optional() },
    (args) => ({ method: 'POST', path: `/v1/workflows/${segment(args.key)}/explain`, body: transaction(args, ['amount', 'currency_code', 'order_id', 'description', 'payment_method_token']) }),
  ),
  read('list_receivers', 'List receivers', 'A page of receivers (credentials never shown, only safe ones).', paging, (args) => ({ method: 'GET', path: '/v1/receivers', query: pagingQuery(args) })),
  read('show_receiver', 'Show a receiver', 'One receiver by token.', { token }, (args) => ({ method: 'GET', path: `/v1/receivers/${segment(args.token)}` })),
  read('list_certificates', 'List certificates', 'A page of certificates (never a private key).', paging, (args) => ({ method: 'GET', path: '/v1/certificates', query: pagingQuery(args) })),
  read('show_certificate', 'Show a certificate', 'One certificate by token (never its private key).', { token }, (args) => ({ method: 'GET', path: `/v1/certificates/${segment(args.token)}` })),
];

const card = z.object({
  number: z.string().min(12).max(23),
  month: z.number().int().min(1).max(12),
  year: z.number().int().min(2000).max(2100),
  first_name: z.string().max(100).optional(),
  last_name: z.string().max(100).optional(),
  full_name: z.string().max(200).optional(),
  verification_value: z.string().max(4).optional(),
});

const TOKENIZATION_TOOLS: ToolSpec[] = [
  {
    name: 'tokenize_card',
    group: 'tokenization',
    title: 'Tokenize a card',
    description: 'Vault a card (AddPaymentMethod). Returns the token and the masked card; the number is never returned.',
    input: { credit_card: card, email: z.string().max(255).optional(), retained: z.boolean().optional(), metadata },
    call: (args) => ({ method: 'POST', path: '/v1/payment_methods', body: { payment_method: { credit_card: args.credit_card, email: args.email, retained: args.retained, metadata: args.metadata } } }),
  },
  { name: 'retain_payment_method', group: 'tokenization', title: 'Retain a payment method', description: 'Keep a payment method beyond the cache window (RetainPaymentMethod).', input: { token }, call: (args) => ({ method: 'PUT', path: `/v1/payment_methods/${segment(args.token)}/retain` }) },
  { name: 'redact_payment_method', group: 'tokenization', title: 'Redact a payment method', description: 'Erase a payment method’s sensitive data for good (RedactPaymentMethod).', input: { token }, call: (args) => ({ method: 'PUT', path: `/v1/payment_methods/${segment(args.token)}/redact` }) },
];

const direct = (operation: string, title: string): ToolSpec => ({
  name: `${operation}`,
  group: 'money',
  title,
  description: `${title} on a gateway with a vaulted payment method. Moves money (or holds it).`,
  input: { gateway_token: token.describe('The gateway'), payment_method_token: token.describe('The payment method'), ...transactionFields, idempotency_key: z.string().max(255).optional() },
  call: (args) => ({ method: 'POST', path: `/v1/gateways/${segment(args.gateway_token)}/${operation}`, body: transaction(args, ['payment_method_token', 'amount', 'currency_code', 'order_id', 'description']), idempotencyKey: typeof args.idempotency_key === 'string' ? args.idempotency_key : undefined }),
});

const referenced = (operation: string, title: string, withAmount: boolean): ToolSpec => ({
  name: `${operation}_transaction`,
  group: 'money',
  title,
  description: `${title} of an earlier transaction.${withAmount ? ' Without amount: the whole.' : ''}`,
  input: withAmount ? { token: token.describe('The transaction'), amount: z.number().int().min(0).optional(), currency_code: z.string().length(3).optional() } : { token: token.describe('The transaction') },
  call: (args) => ({ method: 'POST', path: `/v1/transactions/${segment(args.token)}/${operation}`, body: transaction(args, withAmount ? ['amount', 'currency_code'] : []) }),
});

const MONEY_TOOLS: ToolSpec[] = [
  direct('purchase', 'Purchase'),
  direct('authorize', 'Authorize'),
  { ...direct('verify', 'Verify'), description: 'Verify a vaulted card with a gateway (no money moves, but the gateway is called).' },
  referenced('capture', 'Capture', true),
  referenced('credit', 'Refund', true),
  referenced('void', 'Void', false),
];

const ADMIN_TOOLS: ToolSpec[] = [
  {
    name: 'create_test_gateway',
    group: 'admin',
    title: 'Add a test gateway',
    description: 'Add a gateway of type test (no credentials; for trying things out).',
    input: { description: z.string().max(255).optional() },
    call: (args) => ({ method: 'POST', path: '/v1/gateways', body: { gateway: { gateway_type: 'test', description: args.description } } }),
  },
  { name: 'redact_gateway', group: 'admin', title: 'Redact a gateway', description: 'Destroy a gateway’s credentials for good (RedactGateway).', input: { token }, call: (args) => ({ method: 'PUT', path: `/v1/gateways/${segment(args.token)}/redact` }) },
  { name: 'redact_receiver', group: 'admin', title: 'Redact a receiver', description: 'Destroy a receiver’s credentials for good (RedactReceiver).', input: { token }, call: (args) => ({ method: 'PUT', path: `/v1/receivers/${segment(args.token)}/redact` }) },
  { name: 'redeliver_event', group: 'admin', title: "Send an event's callbacks again", description: 'Queue an event’s callback deliveries again.', input: { id: z.string().min(1).max(200) }, call: (args) => ({ method: 'POST', path: `/v1/events/${segment(args.id)}/redeliver` }) },
  { name: 'delete_workflow', group: 'admin', title: 'Remove a routing workflow', description: 'Remove a routing workflow (RemoveWorkflow).', input: { key: z.string().min(1).max(64) }, call: (args) => ({ method: 'DELETE', path: `/v1/workflows/${segment(args.key)}` }) },
];

export const TOOLS: readonly ToolSpec[] = [...READ_TOOLS, ...TOKENIZATION_TOOLS, ...MONEY_TOOLS, ...ADMIN_TOOLS];

/** The tools of the groups allowed (read-only always). */
export function toolsFor(allowed: ReadonlySet<ToolGroup>): ToolSpec[] {
  return TOOLS.filter((tool) => tool.group === 'read' || allowed.has(tool.group));
}
