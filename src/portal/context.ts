import type { UpstreamSettingsService } from '../services/upstream/upstream-settings.service.js';
import type { BackfillService } from '../services/upstream/backfill.service.js';
import type { PeoplePolicyService } from '../services/people-policy.service.js';
import type { CardAccessService } from '../services/card-access.service.js';
import type { ComplianceService } from '../services/compliance/compliance.service.js';
import type { ImportService } from '../services/portability/import.service.js';
import type { ImportKeyService } from '../services/portability/import-keys.js';
import type { ExportService } from '../services/portability/export.service.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { AppError, fieldError } from '../domain/errors.js';
import type { PortalPermission } from '../domain/portal-roles.js';
import { portalRoleAllows, type PortalRole } from '../domain/portal-roles.js';
import type { RateLimiting } from '../http/rate-limit.js';
import type { AuditService, AuditEntry } from '../services/audit.service.js';
import type { CertificateService } from '../services/certificate.service.js';
import type { GatewayService } from '../services/gateway.service.js';
import type { PaymentMethodService } from '../services/payment-method.service.js';
import type { PortalSessionService, LiveSession } from '../services/portal-sessions.service.js';
import type { PortalUserService } from '../services/portal-users.service.js';
import type { ReceiverService } from '../services/receiver.service.js';
import type { TenancyService } from '../services/tenancy.service.js';
import type { OverviewService } from '../services/overview.service.js';
import type { TransactionQueryService } from '../services/transactions/transaction-query.service.js';
import type { WorkflowService } from '../services/routing/workflow.service.js';
import type { RoutedTransactionService } from '../services/routing/routed-transactions.js';
import type { Environment } from '../domain/environment.js';

/** The services the portal calls; the same instances the API uses. */
export interface PortalDeps {
  logger: Logger;
  tenancy: TenancyService;
  gateways: GatewayService;
  certificates: CertificateService;
  paymentMethods: PaymentMethodService;
  /** Import jobs and the import key (docs/portability.md). */
  imports: ImportService;
  importKeys: ImportKeyService;
  /** Exports under dual control (docs/portability.md, "Exporting"). */
  vaultExports: ExportService;
  transactionQuery: TransactionQueryService;
  receivers: ReceiverService;
  portalUsers: PortalUserService;
  portalSessions: PortalSessionService;
  audit: AuditService;
  /** The organization's two-step requirement and inactive members (docs/compliance.md, "People"). */
  peoplePolicy: PeoplePolicyService;
  /** Each payment method's access log (docs/audit.md). */
  cardAccess: CardAccessService;
  /** The evidence page (docs/compliance.md). */
  compliance: ComplianceService;
  overview: OverviewService;
  rateLimiting: RateLimiting;
  workflows: WorkflowService;
  /** The workflows' explain dry run, run from the workflow editor (docs/routing.md). */
  routedTransactions: Pick<RoutedTransactionService, 'explain' | 'explainFacts'>;
  /** Live migration (docs/portability.md, "Live migration"): the environment page shows and sets it. */
  upstreams?: { settings: Pick<UpstreamSettingsService, 'status' | 'set' | 'clear'>; backfill: Pick<BackfillService, 'start'> };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * What a portal route needs: a permission of the signed-in user's role, 'public' (sign-in,
     * invitations, assets), 'pending' (a session waiting for its second factor) or 'session' (any session:
     * sign-out). Unset on a POST: refused.
     */
    portal?: PortalPermission | 'public' | 'pending' | 'session';
  }
  interface FastifyRequest {
    portalSession: LiveSession | null;
  }
}

/** The signed-in session of a portal route that required one. */
export function sessionOf(request: FastifyRequest): LiveSession {
  if (request.portalSession === null) throw new AppError({ key: 'errors.forbidden', message: 'Sign in first.' });
  return request.portalSession;
}

export function roleOf(request: FastifyRequest): PortalRole {
  return sessionOf(request).user.role;
}

export function can(request: FastifyRequest, permission: PortalPermission): boolean {
  return request.portalSession !== null && portalRoleAllows(request.portalSession.user.role, permission);
}

/** The submitted form fields (application/x-www-form-urlencoded), as strings. */
export function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, string>) : {};
}

/** Query parameters as strings (the last value wins). */
export function queryOf(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string') out[name] = value;
    else if (Array.isArray(value) && typeof value.at(-1) === 'string') out[name] = value.at(-1) as string;
  }
  return out;
}

/** Records a change made by the signed-in user, in the session's organization. */
export async function audit(deps: PortalDeps, request: FastifyRequest, entry: Omit<AuditEntry, 'organizationToken'>): Promise<void> {
  const session = sessionOf(request);
  await deps.audit.record(
    { type: 'user', id: session.user.email, address: request.ip ?? null },
    { organizationToken: session.user.organizationToken, ...entry },
  );
}

/**
 * Records a change to the signed-in person's own account (password, second factor) in every
 * organization they belong to: each one's owners see it, naming their own membership, and
 * nothing about the others.
 */
export async function auditOwnAccount(deps: PortalDeps, request: FastifyRequest, action: string): Promise<void> {
  const session = sessionOf(request);
  for (const member of await deps.portalUsers.membershipsOf(session.user.personToken)) {
    await deps.audit.record(
      { type: 'user', id: session.user.email, address: request.ip ?? null },
      { organizationToken: member.organizationToken, action, objectType: 'user', objectId: member.token },
    );
  }
}

/** The environment of the URL, when it belongs to the session's organization (404 otherwise). */
export async function environmentOf(deps: PortalDeps, request: FastifyRequest, key: string): Promise<Environment> {
  return deps.tenancy.findEnvironment(sessionOf(request).user.organizationToken, key);
}

/** After a change: back to a page (Post/Redirect/Get), optionally with a notice in the query. */
export function redirectTo(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('Location', location).send();
}

/** A required text field of a form: "can't be blank" and "is too long" like the API's. */
export function requiredField(form: Record<string, string>, name: string, max = 255): string {
  const value = (form[name] ?? '').trim();
  if (value === '') throw new AppError(fieldError.blank(name));
  if (value.length > max) throw new AppError(fieldError.tooLong(name, max));
  return value;
}
