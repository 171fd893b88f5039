import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { StoreHandle } from './database.js';
import type { Dialect } from './dialect.js';
import { LocksRepo } from './repositories/locks.repo.js';
import { PaymentMethodsRepo } from './repositories/payment-methods.repo.js';
import { IdempotencyRepo } from './repositories/idempotency.repo.js';
import { AccessSecretsRepo } from './repositories/access-secrets.repo.js';
import { EnvironmentsRepo } from './repositories/environments.repo.js';
import { GatewaysRepo } from './repositories/gateways.repo.js';
import { OrganizationsRepo } from './repositories/organizations.repo.js';
import { TransactionsRepo } from './repositories/transactions.repo.js';
import { ReceiversRepo } from './repositories/receivers.repo.js';
import { SealedBlobsRepo } from './repositories/sealed-blobs.repo.js';
import { CertificatesRepo } from './repositories/certificates.repo.js';
import { UsedNoncesRepo } from './repositories/used-nonces.repo.js';
import { PortalMembershipsRepo, PortalPeopleRepo } from './repositories/portal-users.repo.js';
import { PortalInvitationsRepo } from './repositories/portal-invitations.repo.js';
import { PortalSessionsRepo } from './repositories/portal-sessions.repo.js';
import { AuditEventsRepo } from './repositories/audit-events.repo.js';
import { RollupsRepo } from './repositories/rollups.repo.js';
import { EventsRepo } from './repositories/events.repo.js';
import { CallbacksRepo } from './repositories/callbacks.repo.js';
import { WorkflowsRepo } from './repositories/workflows.repo.js';
import { PaymentMethodImportsRepo } from './repositories/payment-method-imports.repo.js';
import { recordChange, recordChanges } from './change-journal.js';
import type { ChangeEvent } from '../domain/event.js';
import { hasCallbackSubscription, type Environment } from '../domain/environment.js';

/**
 * Where a service records what it decided (docs/events.md): the event of a change and the
 * callbacks it calls for are written with the executor of the unit of work, so they land with the
 * change or not at all.
 */
export interface Journal {
  record(change: ChangeEvent): Promise<void>;
  /** Several changes at once, their events written in one statement (a bulk import); as `record` for each. */
  recordAll?(changes: readonly ChangeEvent[]): Promise<void>;
}

/** Every repository bound to one query executor (the pool, or an open transaction). */
export interface Repositories {
  organizations: OrganizationsRepo;
  environments: EnvironmentsRepo;
  accessSecrets: AccessSecretsRepo;
  gateways: GatewaysRepo;
  transactions: TransactionsRepo;
  locks: LocksRepo;
  paymentMethods: PaymentMethodsRepo;
  idempotency: IdempotencyRepo;
  receivers: ReceiversRepo;
  sealedBlobs: SealedBlobsRepo;
  certificates: CertificatesRepo;
  usedNonces: UsedNoncesRepo;
  portalPeople: PortalPeopleRepo;
  portalMemberships: PortalMembershipsRepo;
  portalInvitations: PortalInvitationsRepo;
  portalSessions: PortalSessionsRepo;
  auditEvents: AuditEventsRepo;
  rollups: RollupsRepo;
  events: EventsRepo;
  callbacks: CallbacksRepo;
  workflows: WorkflowsRepo;
  paymentMethodImports: PaymentMethodImportsRepo;
  journal: Journal;
}

/**
 * What a unit of work knows of the request it serves, passed by the service that opens it: the
 * environment the request authenticated with (as of the request's start, docs/caching.md). Its
 * events then carry the environment's callback subscription without a look-up, unless the service
 * set `environmentSubscribed` itself.
 */
export interface WorkScope {
  environment?: Pick<Environment, 'key' | 'callbackUrl'>;
}

function scoped(change: ChangeEvent, scope: WorkScope): ChangeEvent {
  const environment = scope.environment;
  if (change.environmentSubscribed !== undefined || environment === undefined || environment.key !== change.environmentKey) return change;
  return { ...change, environmentSubscribed: hasCallbackSubscription(environment) };
}

export function repositories(db: Kysely<Database>, dialect: Dialect, scope: WorkScope = {}): Repositories {
  return {
    organizations: new OrganizationsRepo(db),
    environments: new EnvironmentsRepo(db),
    accessSecrets: new AccessSecretsRepo(db),
    gateways: new GatewaysRepo(db),
    transactions: new TransactionsRepo(db),
    locks: new LocksRepo(db, dialect),
    paymentMethods: new PaymentMethodsRepo(db, dialect),
    idempotency: new IdempotencyRepo(db),
    receivers: new ReceiversRepo(db),
    sealedBlobs: new SealedBlobsRepo(db),
    certificates: new CertificatesRepo(db),
    usedNonces: new UsedNoncesRepo(db),
    portalPeople: new PortalPeopleRepo(db),
    portalMemberships: new PortalMembershipsRepo(db),
    portalInvitations: new PortalInvitationsRepo(db),
    portalSessions: new PortalSessionsRepo(db),
    auditEvents: new AuditEventsRepo(db),
    rollups: new RollupsRepo(db),
    events: new EventsRepo(db),
    callbacks: new CallbacksRepo(db, dialect),
    workflows: new WorkflowsRepo(db),
    paymentMethodImports: new PaymentMethodImportsRepo(db),
    journal: {
      record: async (change) => void (await recordChange(db, scoped(change, scope))),
      recordAll: (changes) => recordChanges(db, changes.map((change) => scoped(change, scope))),
    },
  };
}

/**
 * The unit of work: runs `work` in one database transaction, so its writes and the events the
 * service records with them (`repos.journal`) all land, or none do.
 */
export function inTransaction<T>(store: StoreHandle, work: (repos: Repositories) => Promise<T>, scope: WorkScope = {}): Promise<T> {
  return store.db.transaction().execute((trx) => work(repositories(trx, store.dialect, scope)));
}
