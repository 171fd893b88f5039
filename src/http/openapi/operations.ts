import type { z } from 'zod';
import { accessSecretSchema as accessSecretRequest, createEnvironmentSchema, environmentSchema as environmentRequest } from '../routes/environments.routes.js';
import { gatewaySchema as gatewayRequest } from '../routes/gateways.routes.js';
import { generateSchema, updateSchema as certificateUpdate, uploadSchema } from '../routes/certificates.schemas.js';
import { createSchema as paymentMethodCreate, recacheSchema, redactSchema, updateSchema as paymentMethodUpdate } from '../routes/payment-methods.schemas.js';
import { deliverySchema, exportSchema, receiverSchema as receiverRequest } from '../routes/receivers.schemas.js';
import { transactionSchema as transactionRequest } from '../routes/transactions.schemas.js';
import { exportRequestSchema } from '../../services/portability/export-filter.js';
import { routedTransactionSchema, workflowSchema as workflowRequest } from '../routes/workflows.schemas.js';
import { explanationSchema, workflowResponseSchema } from './workflow-schemas.js';
import { UPSTREAM_OPERATIONS } from './upstream-operations.js';
import {
  accessSecretSchema,
  auditEventSchema,
  cardAccessSchema,
  callbackSubscriptionSchema,
  deliveryLogSchema,
  eventSchema,
  certificateSchema,
  environmentSchema,
  gatewayOptionSchema,
  gatewaySchema,
  healthSchema,
  importKeySchema,
  paymentMethodImportSchema,
  paymentMethodExportSchema,
  paymentMethodSchema,
  receiverOptionSchema,
  receiverSchema,
  transactionSchema,
} from './response-schemas.js';

/*
 * Every route of the API, as the OpenAPI document lists it. Request bodies are the zod schemas
 * the routes validate with; responses are those of response-schemas.ts. The e2e test checks this
 * list against the routes Fastify has registered, both ways.
 */

export type Method = 'get' | 'post' | 'put' | 'delete' | 'options';

/** A body under its root element (`{"transaction": {…}}`, `<transaction>…</transaction>`). */
export interface Body {
  root: string;
  schema: z.ZodType;
  /** A list: the root holds repeated `item` elements (`<transactions><transaction>…`). */
  item?: string;
  /** JSON only, not wrapped in its root key (`{"status":"ok"}`): the health checks. */
  bare?: boolean;
}

export interface Operation {
  method: Method;
  /** Fastify's form, `/v1/gateways/:token/purchase`. */
  path: string;
  summary: string;
  tag: string;
  /** Who may call it: `none` for public routes. */
  access: 'none' | 'read' | 'transact' | 'admin';
  /** The other verb clients use for the same operation (PUT/POST). */
  alsoAs?: Method;
  request?: Body;
  /** `list` adds the since_token/order/count query parameters. */
  list?: boolean;
  success: { status: number; description: string; body?: Body; plainText?: boolean; binary?: string };
  /** Error statuses whose body may also be the success body (a declined transaction: 422 with the transaction). */
  bodyAlsoOn?: number[];
  /** Error statuses besides those every route of its kind has (document.ts, commonErrors). */
  errors: number[];
  /**
   * The route also takes a transparent-redirect form post (docs/card-capture.md), answered 302 to
   * the form's redirect_url with the token or the errors in its query, and a small HTML body.
   */
  formRedirect?: boolean;
  /** Extra query parameters. */
  query?: Record<string, string>;
}

const transaction = (): Body => ({ root: 'transaction', schema: transactionSchema });
const transactions = (): Body => ({ root: 'transactions', item: 'transaction', schema: transactionSchema });
const paymentMethod = (): Body => ({ root: 'payment_method', schema: paymentMethodSchema });
const gateway = (): Body => ({ root: 'gateway', schema: gatewaySchema });
const receiver = (): Body => ({ root: 'receiver', schema: receiverSchema });
const certificate = (): Body => ({ root: 'certificate', schema: certificateSchema });
const environment = (): Body => ({ root: 'environment', schema: environmentSchema });

const GATEWAY_ERRORS = [402, 404, 408, 422, 503];
/** A gateway's decline is 422 with the transaction; a timeout is 408 with it (state gateway_processing_result_unknown). */
const DECLINED = [408, 422];
const TRANSACTION_STATES = 'Comma-separated states: succeeded, failed, gateway_processing_failed, gateway_processing_result_unknown, pending, processing';

const direct = (operation: string, summary: string): Operation => ({
  method: 'post',
  path: `/v1/gateways/:token/${operation}`,
  summary,
  tag: 'Gateway transactions',
  access: 'transact',
  request: { root: 'transaction', schema: transactionRequest },
  success: { status: 200, description: 'The transaction (422 with the same body when the gateway declines)', body: transaction() },
  bodyAlsoOn: DECLINED,
  errors: GATEWAY_ERRORS,
});

const reference = (operation: string, summary: string, alsoAs?: Method): Operation => ({
  method: 'post',
  path: `/v1/transactions/:token/${operation}`,
  summary,
  tag: 'Reference transactions',
  access: 'transact',
  ...(alsoAs === undefined ? {} : { alsoAs }),
  request: { root: 'transaction', schema: transactionRequest },
  success: { status: 200, description: 'The new transaction, reference_token naming the one it refers to', body: transaction() },
  bodyAlsoOn: DECLINED,
  errors: GATEWAY_ERRORS,
});

const workflow = (): Body => ({ root: 'workflow', schema: workflowResponseSchema });

/** A transaction routed by a workflow (named by workflow_key, or the environment's default). */
const routed = (operation: string, summary: string): Operation => ({
  method: 'post',
  path: `/v1/transactions/${operation}`,
  summary,
  tag: 'Routing',
  access: 'transact',
  request: { root: 'transaction', schema: routedTransactionSchema },
  success: { status: 200, description: 'The transaction that settled the chain, with routed_by (422 with the same body on a decline)', body: transaction() },
  bodyAlsoOn: DECLINED,
  errors: GATEWAY_ERRORS,
});

/** Routing workflows (docs/routing.md). */
const ROUTING_OPERATIONS: Operation[] = [
  { method: 'post', path: '/v1/workflows', summary: 'Create a routing workflow (AddWorkflow)', tag: 'Routing', access: 'admin', request: { root: 'workflow', schema: workflowRequest }, success: { status: 201, description: 'The workflow', body: workflow() }, errors: [422] },
  { method: 'get', path: '/v1/workflows', summary: "The environment's workflows", tag: 'Routing', access: 'read', success: { status: 200, description: 'Every workflow, in creation order', body: { root: 'workflows', item: 'workflow', schema: workflowResponseSchema } }, errors: [] },
  { method: 'get', path: '/v1/workflows/:key', summary: 'Show a workflow', tag: 'Routing', access: 'read', success: { status: 200, description: 'The workflow', body: workflow() }, errors: [404] },
  { method: 'put', path: '/v1/workflows/:key', summary: 'Update a workflow (UpdateWorkflow); the fields sent replace the stored ones', tag: 'Routing', access: 'admin', request: { root: 'workflow', schema: workflowRequest }, success: { status: 200, description: 'The workflow', body: workflow() }, errors: [404, 422] },
  { method: 'delete', path: '/v1/workflows/:key', summary: 'Remove a workflow (RemoveWorkflow)', tag: 'Routing', access: 'admin', success: { status: 200, description: 'The workflow as it was', body: workflow() }, errors: [404] },
  { method: 'post', path: '/v1/workflows/:key/explain', summary: 'Dry run: which gateway a transaction would take and why (calls nothing, stores nothing)', tag: 'Routing', access: 'read', request: { root: 'transaction', schema: transactionRequest }, success: { status: 200, description: 'The rule-by-rule evaluation and the decision', body: { root: 'explanation', schema: explanationSchema } }, errors: [404, 422] },
  routed('purchase', 'Purchase routed by a workflow'),
  routed('authorize', 'Authorize routed by a workflow'),
  routed('verify', 'Verify routed by a workflow'),
];

export const OPERATIONS: Operation[] = [
  { method: 'get', path: '/healthz', summary: 'Liveness', tag: 'Operations', access: 'none', success: { status: 200, description: 'Alive (JSON only)', body: { root: 'health', schema: healthSchema, bare: true } }, errors: [] },
  { method: 'get', path: '/metrics', summary: 'Prometheus metrics (docs/metrics.md)', tag: 'Operations', access: 'none', success: { status: 200, description: 'The Prometheus text format. Needs Authorization: Bearer <COFFER_METRICS_TOKEN>, never the API credentials; 404 unless the token is configured (or on the separate COFFER_METRICS_PORT)', plainText: true }, errors: [401, 404] },
  { method: 'get', path: '/readyz', summary: 'Readiness (the store answers)', tag: 'Operations', access: 'none', success: { status: 200, description: 'Ready (503 when the store does not answer; JSON only)', body: { root: 'health', schema: healthSchema, bare: true } }, bodyAlsoOn: [503], errors: [503] },
  { method: 'get', path: '/v1/openapi.json', summary: 'This document', tag: 'Operations', access: 'none', success: { status: 200, description: 'The OpenAPI 3.1 document of the v1 API (JSON only)' }, errors: [] },

  { method: 'post', path: '/v1/payment_methods', summary: 'Vault a payment method (AddPaymentMethod)', tag: 'Payment methods', access: 'transact', request: { root: 'payment_method', schema: paymentMethodCreate }, success: { status: 201, description: 'The AddPaymentMethod transaction wrapping the new payment method', body: transaction() }, formRedirect: true, errors: [402, 422] },
  { method: 'options', path: '/v1/payment_methods/restricted', summary: 'CORS preflight of browser tokenization', tag: 'Card capture', access: 'none', success: { status: 204, description: 'Allowed for the origin (Access-Control-* headers)' }, errors: [403] },
  { method: 'post', path: '/v1/payment_methods/restricted', summary: 'Tokenize from the browser with the environment key alone (card form)', tag: 'Card capture', access: 'none', request: { root: 'payment_method', schema: paymentMethodCreate }, success: { status: 201, description: 'The AddPaymentMethod transaction wrapping the new cached payment method', body: transaction() }, errors: [401, 402, 403, 422, 429] },
  { method: 'post', path: '/v1/payment_methods/restricted/:token/recache', summary: "Cache a CVV again from the card form's recache mode, with the environment key alone (pulled from the upstream first when the token is not here)", tag: 'Card capture', access: 'none', request: { root: 'payment_method', schema: recacheSchema }, success: { status: 200, description: 'The RecacheSensitiveData transaction (422, same shape, when it failed)', body: transaction() }, bodyAlsoOn: [422], errors: [401, 402, 403, 404, 422, 429, 502] },
  { method: 'get', path: '/v1/payment_methods', summary: 'List payment methods', tag: 'Payment methods', access: 'read', list: true, query: { state: 'Comma-separated storage states (default retained)', 'metadata[key]': 'Only methods whose metadata key has this value' }, success: { status: 200, description: 'A page of payment methods', body: { root: 'payment_methods', item: 'payment_method', schema: paymentMethodSchema } }, errors: [422] },
  { method: 'post', path: '/v1/payment_methods/imports', summary: 'Import payment methods from a file (JSON Lines or CSV, optionally OpenPGP-encrypted; docs/portability.md)', tag: 'Payment methods', access: 'admin', query: { format: 'jsonl or csv (found from the file otherwise)', allow_expired: 'true to import expired cards', signed_by: "The sender's armored public key: the file must be encrypted and signed by it" }, success: { status: 201, description: 'The import job, ended, with its report', body: { root: 'payment_method_import', schema: paymentMethodImportSchema } }, errors: [413, 422] },
  { method: 'get', path: '/v1/payment_methods/imports', summary: "The environment's import jobs, newest first", tag: 'Payment methods', access: 'read', success: { status: 200, description: 'Import jobs with their progress', body: { root: 'payment_method_imports', item: 'payment_method_import', schema: paymentMethodImportSchema } }, errors: [] },
  { method: 'get', path: '/v1/payment_methods/imports/:id', summary: 'An import job: progress and report', tag: 'Payment methods', access: 'read', success: { status: 200, description: 'The import job', body: { root: 'payment_method_import', schema: paymentMethodImportSchema } }, errors: [404] },
  { method: 'post', path: '/v1/payment_methods/exports', summary: 'Request an export of payment methods to a recipient OpenPGP key; it waits for a second admin (docs/portability.md)', tag: 'Payment methods', access: 'admin', request: { root: 'payment_method_export', schema: exportRequestSchema }, success: { status: 201, description: 'The export request, pending approval', body: { root: 'payment_method_export', schema: paymentMethodExportSchema } }, errors: [422] },
  { method: 'get', path: '/v1/payment_methods/exports', summary: "The environment's exports, newest first", tag: 'Payment methods', access: 'admin', success: { status: 200, description: 'Exports with their state', body: { root: 'payment_method_exports', item: 'payment_method_export', schema: paymentMethodExportSchema } }, errors: [] },
  { method: 'get', path: '/v1/payment_methods/exports/:id', summary: 'An export: its state, filter, recipient and who took each step', tag: 'Payment methods', access: 'admin', success: { status: 200, description: 'The export', body: { root: 'payment_method_export', schema: paymentMethodExportSchema } }, errors: [404] },
  { method: 'post', path: '/v1/payment_methods/exports/:id/approve', summary: 'Approve an export (an admin other than the requester: dual control)', tag: 'Payment methods', access: 'admin', success: { status: 200, description: 'The export, approved: it may be downloaded once', body: { root: 'payment_method_export', schema: paymentMethodExportSchema } }, errors: [403, 404, 409, 410] },
  { method: 'post', path: '/v1/payment_methods/exports/:id/cancel', summary: 'Cancel a pending export (its requester only); it never runs', tag: 'Payment methods', access: 'admin', success: { status: 200, description: 'The export, cancelled', body: { root: 'payment_method_export', schema: paymentMethodExportSchema } }, errors: [403, 404, 409, 410] },
  { method: 'post', path: '/v1/payment_methods/exports/:id/reject', summary: 'Reject a pending export (an admin other than the requester: dual control); it never runs', tag: 'Payment methods', access: 'admin', success: { status: 200, description: 'The export, rejected', body: { root: 'payment_method_export', schema: paymentMethodExportSchema } }, errors: [403, 404, 409, 410] },
  { method: 'get', path: '/v1/payment_methods/exports/:id/download', summary: 'Download an approved export, once (JSON Lines, OpenPGP-encrypted to the recipient and signed)', tag: 'Payment methods', access: 'admin', success: { status: 200, description: 'The OpenPGP message (binary)', binary: 'application/pgp-encrypted' }, errors: [404, 409, 410] },
  { method: 'get', path: '/v1/environments/:key/import_key', summary: "The environment's OpenPGP import key (armored public half)", tag: 'Administration', access: 'admin', success: { status: 200, description: 'The public key to encrypt import files to', body: { root: 'import_key', schema: importKeySchema } }, errors: [404] },
  { method: 'get', path: '/v1/payment_methods/:token', summary: 'Show a payment method', tag: 'Payment methods', access: 'read', success: { status: 200, description: 'The payment method', body: paymentMethod() }, errors: [404] },
  { method: 'put', path: '/v1/payment_methods/:token', summary: 'Update non-sensitive fields', tag: 'Payment methods', access: 'transact', request: { root: 'payment_method', schema: paymentMethodUpdate }, success: { status: 200, description: 'The payment method', body: paymentMethod() }, errors: [404, 422] },
  { method: 'put', alsoAs: 'post', path: '/v1/payment_methods/:token/retain', summary: 'Retain (RetainPaymentMethod)', tag: 'Payment methods', access: 'transact', success: { status: 200, description: 'The RetainPaymentMethod transaction (422, same shape, on a redacted method)', body: transaction() }, bodyAlsoOn: [422], errors: [404, 422] },
  { method: 'put', alsoAs: 'post', path: '/v1/payment_methods/:token/redact', summary: 'Redact (RedactPaymentMethod)', tag: 'Payment methods', access: 'transact', request: { root: 'transaction', schema: redactSchema }, success: { status: 200, description: 'The RedactPaymentMethod transaction (422, same shape, when it failed)', body: transaction() }, bodyAlsoOn: [422], errors: [404, 422] },
  { method: 'put', alsoAs: 'post', path: '/v1/payment_methods/:token/recache', summary: 'Cache a CVV again (RecacheSensitiveData)', tag: 'Payment methods', access: 'transact', request: { root: 'payment_method', schema: recacheSchema }, success: { status: 200, description: 'The RecacheSensitiveData transaction (422, same shape, when it failed)', body: transaction() }, bodyAlsoOn: [422], errors: [404, 422] },
  { method: 'get', path: '/v1/payment_methods/:token/transactions', summary: "A payment method's transactions", tag: 'Payment methods', access: 'read', list: true, success: { status: 200, description: 'A page of transactions, in the shape of GET /v1/transactions', body: transactions() }, errors: [404, 422] },

  { method: 'get', path: '/v1/gateways_options', summary: 'Gateway types and what they support', tag: 'Gateways', access: 'none', success: { status: 200, description: 'Every gateway type', body: { root: 'gateways', item: 'gateway', schema: gatewayOptionSchema } }, errors: [] },
  { method: 'options', path: '/v1/gateways', summary: 'Gateway types (the 2012 form of gateways_options)', tag: 'Gateways', access: 'none', success: { status: 200, description: 'Every gateway type', body: { root: 'gateways', item: 'gateway', schema: gatewayOptionSchema } }, errors: [] },
  { method: 'post', path: '/v1/gateways', summary: 'Add a gateway', tag: 'Gateways', access: 'transact', request: { root: 'gateway', schema: gatewayRequest }, success: { status: 201, description: 'The gateway; credentials go as flat fields beside gateway_type', body: gateway() }, errors: [402, 403, 422] },
  { method: 'get', path: '/v1/gateways', summary: 'List gateways', tag: 'Gateways', access: 'read', list: true, success: { status: 200, description: 'A page of gateways', body: { root: 'gateways', item: 'gateway', schema: gatewaySchema } }, errors: [422] },
  { method: 'get', path: '/v1/gateways/:token', summary: 'Show a gateway', tag: 'Gateways', access: 'read', success: { status: 200, description: 'The gateway', body: gateway() }, errors: [404] },
  { method: 'put', path: '/v1/gateways/:token', summary: 'Update a gateway', tag: 'Gateways', access: 'transact', request: { root: 'gateway', schema: gatewayRequest }, success: { status: 200, description: 'The gateway', body: gateway() }, errors: [404, 422] },
  { method: 'put', alsoAs: 'post', path: '/v1/gateways/:token/redact', summary: 'Redact a gateway (RedactGateway)', tag: 'Gateways', access: 'transact', success: { status: 200, description: 'The RedactGateway transaction wrapping the gateway; its state reads redacted', body: transaction() }, errors: [404] },
  { method: 'put', alsoAs: 'post', path: '/v1/gateways/:token/retain', summary: 'Retain a gateway', tag: 'Gateways', access: 'transact', success: { status: 200, description: 'The gateway', body: gateway() }, errors: [404, 422] },
  { method: 'get', path: '/v1/gateways/:token/transactions', summary: "A gateway's transactions", tag: 'Gateways', access: 'read', list: true, query: { state: TRANSACTION_STATES }, success: { status: 200, description: 'A page of transactions', body: transactions() }, errors: [404, 422] },

  direct('purchase', 'Purchase'),
  direct('authorize', 'Authorize'),
  direct('verify', 'Verify'),
  direct('store', 'Store at the gateway (third-party vaulting)'),
  direct('general_credit', 'Credit without a reference'),
  reference('capture', 'Capture an authorization'),
  reference('credit', 'Refund'),
  reference('void', 'Void', 'put'),
  { method: 'post', path: '/v1/transactions/:token/complete', summary: 'Complete a pending (3-D Secure or offsite) transaction', tag: 'Reference transactions', access: 'transact', success: { status: 200, description: 'The same transaction, finished (422 with it when it failed)', body: transaction() }, bodyAlsoOn: DECLINED, errors: [404, 408, 422, 503] },

  { method: 'get', path: '/v1/transactions', summary: 'List transactions', tag: 'Transactions', access: 'read', list: true, query: { state: TRANSACTION_STATES }, success: { status: 200, description: 'A page of transactions', body: transactions() }, errors: [422] },
  { method: 'get', path: '/v1/transactions/:token', summary: 'Show a transaction', tag: 'Transactions', access: 'read', success: { status: 200, description: 'The transaction', body: transaction() }, errors: [404] },
  { method: 'get', path: '/v1/transactions/:token/transcript', summary: 'The scrubbed exchange with the gateway', tag: 'Transactions', access: 'read', success: { status: 200, description: 'Plain text whatever the suffix; errors are XML unless Accept asks for JSON', plainText: true }, errors: [404] },

  { method: 'get', path: '/v1/receivers_options', summary: 'Receiver types', tag: 'Receivers', access: 'none', success: { status: 200, description: 'Every receiver type', body: { root: 'receivers', item: 'receiver', schema: receiverOptionSchema } }, errors: [429] },
  { method: 'post', path: '/v1/receivers', summary: 'Add a receiver', tag: 'Receivers', access: 'transact', request: { root: 'receiver', schema: receiverRequest }, success: { status: 201, description: 'The receiver', body: receiver() }, errors: [402, 403, 422] },
  { method: 'get', path: '/v1/receivers', summary: 'List receivers', tag: 'Receivers', access: 'read', list: true, success: { status: 200, description: 'A page of receivers', body: { root: 'receivers', item: 'receiver', schema: receiverSchema } }, errors: [422] },
  { method: 'get', path: '/v1/receivers/:token', summary: 'Show a receiver', tag: 'Receivers', access: 'read', success: { status: 200, description: 'The receiver', body: receiver() }, errors: [404] },
  { method: 'put', path: '/v1/receivers/:token', summary: 'Update a receiver', tag: 'Receivers', access: 'transact', request: { root: 'receiver', schema: receiverRequest }, success: { status: 200, description: 'The receiver', body: receiver() }, errors: [404, 422] },
  { method: 'put', alsoAs: 'post', path: '/v1/receivers/:token/redact', summary: 'Redact a receiver (RedactReceiver)', tag: 'Receivers', access: 'transact', success: { status: 200, description: 'The RedactReceiver transaction wrapping the receiver; its state reads redacted', body: transaction() }, errors: [404] },
  { method: 'post', path: '/v1/receivers/:token/deliver', summary: 'Deliver a payment method (DeliverPaymentMethod)', tag: 'Receivers', access: 'transact', request: { root: 'delivery', schema: deliverySchema }, success: { status: 200, description: 'The DeliverPaymentMethod transaction (422, same shape, when the receiver fails; 408 when it did not answer in time)', body: transaction() }, bodyAlsoOn: [408, 422], errors: [402, 404, 408, 422] },
  { method: 'post', path: '/v1/receivers/:token/export', summary: 'Export payment methods over SFTP (ExportPaymentMethods)', tag: 'Receivers', access: 'transact', request: { root: 'export', schema: exportSchema }, success: { status: 202, description: 'The pending ExportPaymentMethods transaction', body: transaction() }, errors: [404, 422] },

  { method: 'get', path: '/v1/certificates', summary: 'List certificates', tag: 'Certificates', access: 'read', list: true, success: { status: 200, description: 'A page of certificates', body: { root: 'certificates', item: 'certificate', schema: certificateSchema } }, errors: [422] },
  { method: 'post', path: '/v1/certificates', summary: 'Upload a certificate and its private key', tag: 'Certificates', access: 'transact', request: { root: 'certificate', schema: uploadSchema }, success: { status: 201, description: 'The certificate (never the key)', body: certificate() }, errors: [422] },
  { method: 'post', path: '/v1/certificates/generate', summary: 'Generate a key and a CSR', tag: 'Certificates', access: 'transact', request: { root: 'certificate', schema: generateSchema }, success: { status: 201, description: 'The certificate with its csr', body: certificate() }, errors: [422] },
  { method: 'get', path: '/v1/certificates/:token', summary: 'Show a certificate', tag: 'Certificates', access: 'read', success: { status: 200, description: 'The certificate', body: certificate() }, errors: [404] },
  { method: 'put', path: '/v1/certificates/:token', summary: 'Attach the signed certificate', tag: 'Certificates', access: 'transact', request: { root: 'certificate', schema: certificateUpdate }, success: { status: 200, description: 'The certificate', body: certificate() }, errors: [404, 422] },
  { method: 'put', alsoAs: 'post', path: '/v1/certificates/:token/redact', summary: 'Redact a certificate (erase its private key, pem and CSR)', tag: 'Certificates', access: 'transact', success: { status: 200, description: 'The certificate, pem and csr null; a receiver or signed tokenization naming it now fails with errors.certificate_redacted', body: certificate() }, errors: [404, 422] },

  { method: 'get', path: '/v1/events', summary: 'The events feed of the environment (newest first by default)', tag: 'Events', access: 'read', list: true, query: { event_type: 'Only events of this type (e.g. TransactionSucceeded)' }, success: { status: 200, description: 'A page of events', body: { root: 'events', item: 'event', schema: eventSchema } }, errors: [422] },
  { method: 'get', path: '/v1/events/:id', summary: 'Show an event', tag: 'Events', access: 'read', success: { status: 200, description: 'The event', body: { root: 'event', schema: eventSchema } }, errors: [404] },
  { method: 'get', path: '/v1/events/:id/deliveries', summary: "An event's callback delivery log", tag: 'Events', access: 'read', success: { status: 200, description: 'The deliveries with each attempt (status, latency; never the body)', body: { root: 'deliveries', item: 'delivery', schema: deliveryLogSchema } }, errors: [404] },
  { method: 'post', path: '/v1/events/:id/redeliver', summary: "Send an event's callbacks again", tag: 'Events', access: 'transact', success: { status: 202, description: 'The deliveries, queued again', body: { root: 'deliveries', item: 'delivery', schema: deliveryLogSchema } }, errors: [404, 422] },
  { method: 'get', path: '/v1/payment_methods/events', summary: 'Events of every payment method', tag: 'Events', access: 'read', list: true, query: { event_type: 'Only events of this type (e.g. TransactionSucceeded)' }, success: { status: 200, description: 'A page of payment-method events', body: { root: 'payment_method_events', item: 'event', schema: eventSchema } }, errors: [422] },
  { method: 'get', path: '/v1/payment_methods/:token/events', summary: "One payment method's events", tag: 'Events', access: 'read', list: true, query: { event_type: 'Only events of this type (e.g. TransactionSucceeded)' }, success: { status: 200, description: 'A page of the payment method’s events', body: { root: 'payment_method_events', item: 'event', schema: eventSchema } }, errors: [404, 422] },
  { method: 'post', path: '/v1/environments/:key/regenerate_signing_secret', summary: 'Make a new callback signing secret (shown once)', tag: 'Administration', access: 'admin', success: { status: 200, description: 'The environment, with `signing_secret` (only in this answer)', body: environment() }, errors: [404, 409] },
  { method: 'put', path: '/v1/environments/:key/callback', summary: "Set the environment's callback subscription", tag: 'Administration', access: 'admin', request: { root: 'callback', schema: callbackSubscriptionSchema }, success: { status: 200, description: 'The subscription', body: { root: 'callback', schema: callbackSubscriptionSchema } }, errors: [404, 422] },
  { method: 'get', path: '/v1/payment_methods/{token}/access_log', summary: "Who opened the payment method's card data, and why (docs/audit.md)", tag: 'Administration', access: 'admin', query: { before: 'Cursor of the last record of the previous page', count: 'Up to 100 (default 20)' }, success: { status: 200, description: 'A page of access records, newest first', body: { root: 'access_log', item: 'access', schema: cardAccessSchema } }, errors: [404, 422] },
  { method: 'get', path: '/v1/audit_events', summary: 'The audit log of the organization (portal actions, secret management)', tag: 'Administration', access: 'admin', query: { user: 'Only events of this actor', action: 'Only this action', from: 'From this date (inclusive)', to: 'Up to this date (inclusive)', before: 'Cursor of the last event of the previous page', count: 'Up to 100 (default 20)' }, success: { status: 200, description: 'A page of audit events, newest first', body: { root: 'audit_events', item: 'audit_event', schema: auditEventSchema } }, errors: [422] },
  { method: 'get', path: '/v1/environments', summary: 'List environments', tag: 'Administration', access: 'admin', list: true, success: { status: 200, description: 'A page of environments', body: { root: 'environments', item: 'environment', schema: environmentSchema } }, errors: [422] },
  { method: 'post', path: '/v1/environments', summary: 'Create an environment', tag: 'Administration', access: 'admin', request: { root: 'environment', schema: createEnvironmentSchema }, success: { status: 201, description: 'The environment', body: environment() }, errors: [422] },
  { method: 'get', path: '/v1/environments/:key', summary: 'Show an environment', tag: 'Administration', access: 'admin', success: { status: 200, description: 'The environment', body: environment() }, errors: [404] },
  { method: 'put', path: '/v1/environments/:key', summary: 'Rename an environment', tag: 'Administration', access: 'admin', request: { root: 'environment', schema: environmentRequest }, success: { status: 200, description: 'The environment', body: environment() }, errors: [404, 422, 502] },
  { method: 'get', path: '/v1/environments/:key/access_secrets', summary: "An environment's access secrets", tag: 'Administration', access: 'admin', success: { status: 200, description: 'The access secrets (never the secrets themselves)', body: { root: 'access_secrets', item: 'access_secret', schema: accessSecretSchema } }, errors: [404] },
  { method: 'post', path: '/v1/environments/:key/access_secrets', summary: 'Create an access secret', tag: 'Administration', access: 'admin', request: { root: 'access_secret', schema: accessSecretRequest }, success: { status: 201, description: 'The access secret, with the secret (shown once)', body: { root: 'access_secret', schema: accessSecretSchema } }, errors: [404, 422] },
  { method: 'delete', path: '/v1/environments/:key/access_secrets/:secretKey', summary: 'Revoke an access secret', tag: 'Administration', access: 'admin', success: { status: 204, description: 'Revoked' }, errors: [404] },
  ...ROUTING_OPERATIONS,
  ...UPSTREAM_OPERATIONS,
];
