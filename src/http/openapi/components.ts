import { z } from 'zod';
import { accessSecretSchema as accessSecretRequest, createEnvironmentSchema, environmentSchema as environmentRequest } from '../routes/environments.routes.js';
import { gatewaySchema as gatewayRequest } from '../routes/gateways.routes.js';
import { generateSchema, updateSchema as certificateUpdate, uploadSchema } from '../routes/certificates.schemas.js';
import { createSchema as paymentMethodCreate, recacheSchema, redactSchema, updateSchema as paymentMethodUpdate } from '../routes/payment-methods.schemas.js';
import { deliverySchema, exportSchema, receiverSchema as receiverRequest } from '../routes/receivers.schemas.js';
import { transactionSchema as transactionRequest } from '../routes/transactions.schemas.js';
import { backfillSchema } from '../routes/upstream.routes.js';
import { exportRequestSchema } from '../../services/portability/export-filter.js';
import { routedTransactionSchema, workflowSchema as workflowRequest } from '../routes/workflows.schemas.js';
import { explanationSchema, routedBySchema, workflowResponseSchema } from './workflow-schemas.js';
import { intakeRequestSchema, intakeResultSchema, upstreamStatusSchema } from './upstream-operations.js';
import {
  accessSecretSchema,
  auditEventSchema,
  callbackSubscriptionSchema,
  cardAccessSchema,
  certificateSchema,
  deliveryLogSchema,
  environmentSchema,
  errorEntrySchema,
  errorsSchema,
  eventSchema,
  gatewayOptionSchema,
  gatewayResponseSchema,
  gatewaySchema,
  healthSchema,
  invalidPaymentMethodSchema,
  importKeySchema,
  paymentMethodExportSchema,
  paymentMethodImportSchema,
  paymentMethodSchema,
  receiverOptionSchema,
  receiverSchema,
  transactionSchema,
} from './response-schemas.js';

/*
 * The named schemas of the OpenAPI document (`components.schemas`). Every schema listed here is
 * written once and referred to with `$ref` wherever it appears, inside other schemas too; a schema
 * not listed is written inline where it is used. Names are what code generators turn into types,
 * so they are stable: renaming one is a breaking change of the generated clients (docs/openapi.md).
 */

export const NAMED_SCHEMAS: ReadonlyArray<readonly [z.ZodType, string]> = [
  // Answers.
  [errorsSchema, 'Errors'],
  [errorEntrySchema, 'Error'],
  [transactionSchema, 'Transaction'],
  [gatewayResponseSchema, 'GatewayResponse'],
  [paymentMethodSchema, 'PaymentMethod'],
  [invalidPaymentMethodSchema, 'InvalidPaymentMethod'],
  [gatewaySchema, 'Gateway'],
  [gatewayOptionSchema, 'GatewayOption'],
  [receiverSchema, 'Receiver'],
  [receiverOptionSchema, 'ReceiverOption'],
  [certificateSchema, 'Certificate'],
  [environmentSchema, 'Environment'],
  [accessSecretSchema, 'AccessSecret'],
  [auditEventSchema, 'AuditEvent'],
  [cardAccessSchema, 'CardAccess'],
  [healthSchema, 'Health'],
  [eventSchema, 'Event'],
  [callbackSubscriptionSchema, 'CallbackSubscription'],
  [deliveryLogSchema, 'Delivery'],
  [paymentMethodImportSchema, 'PaymentMethodImport'],
  [importKeySchema, 'ImportKey'],
  [paymentMethodExportSchema, 'PaymentMethodExport'],
  [workflowResponseSchema, 'Workflow'],
  [routedBySchema, 'RoutedBy'],
  [explanationSchema, 'Explanation'],
  [upstreamStatusSchema, 'UpstreamStatus'],
  [intakeResultSchema, 'IntakeResult'],
  // Request bodies.
  [transactionRequest, 'TransactionRequest'],
  [routedTransactionSchema, 'RoutedTransactionRequest'],
  [paymentMethodCreate, 'PaymentMethodCreateRequest'],
  [paymentMethodUpdate, 'PaymentMethodUpdateRequest'],
  [recacheSchema, 'RecacheRequest'],
  [redactSchema, 'RedactRequest'],
  [gatewayRequest, 'GatewayRequest'],
  [receiverRequest, 'ReceiverRequest'],
  [deliverySchema, 'DeliveryRequest'],
  [exportSchema, 'ExportRequest'],
  [uploadSchema, 'CertificateUploadRequest'],
  [generateSchema, 'CertificateGenerateRequest'],
  [certificateUpdate, 'CertificateUpdateRequest'],
  [workflowRequest, 'WorkflowRequest'],
  [createEnvironmentSchema, 'EnvironmentCreateRequest'],
  [environmentRequest, 'EnvironmentUpdateRequest'],
  [accessSecretRequest, 'AccessSecretRequest'],
  [backfillSchema, 'BackfillRequest'],
  [intakeRequestSchema, 'IntakeRequest'],
  [exportRequestSchema, 'PaymentMethodExportRequest'],
];

type JsonSchema = Record<string, unknown>;

export const SCHEMA_PREFIX = '#/components/schemas/';

const names = new Map<z.ZodType, string>(NAMED_SCHEMAS.map(([schema, name]) => [schema, name]));

/** The component name of a schema, or undefined when it is written inline. */
export function componentName(schema: z.ZodType): string | undefined {
  return names.get(schema);
}

/** Unknown fields are ignored by the API, not refused: drop zod's `additionalProperties: false`. */
export function relax(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(relax);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'additionalProperties' && inner === false) continue;
    out[key] = relax(inner);
  }
  return out;
}

/** Every named schema as JSON Schema 2020-12, each naming the others by `$ref`. */
export function componentSchemas(): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of NAMED_SCHEMAS) registry.add(schema, { id });
  const generated = z.toJSONSchema(registry, { uri: (id) => `${SCHEMA_PREFIX}${id}`, unrepresentable: 'any' }).schemas as Record<string, JsonSchema>;
  const out: Record<string, JsonSchema> = {};
  for (const [, name] of NAMED_SCHEMAS) {
    const schema = { ...generated[name] };
    // Each is a part of the document, not a document of its own.
    delete schema.$schema;
    delete schema.$id;
    out[name] = relax(schema) as JsonSchema;
  }
  return out;
}

/** A schema as the document writes it where it is used: a `$ref` to its component. */
export function schemaRef(schema: z.ZodType): JsonSchema {
  const name = componentName(schema);
  // Every body the document shows is named: a new one goes into NAMED_SCHEMAS (the e2e test checks the document).
  if (name === undefined) throw new Error('a body schema of the OpenAPI document is not in NAMED_SCHEMAS (src/http/openapi/components.ts)');
  return { $ref: `${SCHEMA_PREFIX}${name}` };
}
