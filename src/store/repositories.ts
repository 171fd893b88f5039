import type { OrganizationsRepository } from './interfaces/organizations.js';
import type { EnvironmentsRepository } from './interfaces/environments.js';
import type { AccessSecretsRepository } from './interfaces/access-secrets.js';
import type { GatewaysRepository } from './interfaces/gateways.js';
import type { TransactionsRepository } from './interfaces/transactions.js';
import type { LocksRepository } from './interfaces/locks.js';
import type { PaymentMethodsRepository } from './interfaces/payment-methods.js';
import type { IdempotencyRepository } from './interfaces/idempotency.js';
import type { ReceiversRepository } from './interfaces/receivers.js';
import type { SealedBlobsRepository } from './interfaces/sealed-blobs.js';
import type { CertificatesRepository } from './interfaces/certificates.js';
import type { UsedNoncesRepository } from './interfaces/used-nonces.js';
import type { PortalPeopleRepository, PortalMembershipsRepository } from './interfaces/portal-users.js';
import type { PortalInvitationsRepository } from './interfaces/portal-invitations.js';
import type { PortalSessionsRepository } from './interfaces/portal-sessions.js';
import type { AuditEventsRepository } from './interfaces/audit-events.js';
import type { CardAccessRepository } from './interfaces/card-access.js';
import type { AuditChainRepository } from './interfaces/audit-chain.js';
import type { PeoplePolicyRepository } from './interfaces/people-policy.js';
import type { ComplianceFactsRepository } from './interfaces/compliance-facts.js';
import type { RollupsRepository } from './interfaces/rollups.js';
import type { EventsRepository } from './interfaces/events.js';
import type { CallbacksRepository } from './interfaces/callbacks.js';
import type { WorkflowsRepository } from './interfaces/workflows.js';
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
import { CardAccessRepo } from './repositories/card-access.repo.js';
import { AuditChainRepo } from './repositories/audit-chain.repo.js';
import { PeoplePolicyRepo } from './repositories/people-policy.repo.js';
import { ComplianceFactsRepo } from './repositories/compliance-facts.repo.js';
import { RollupsRepo } from './repositories/rollups.repo.js';
import { EventsRepo } from './repositories/events.repo.js';
import { CallbacksRepo } from './repositories/callbacks.repo.js';
import { WorkflowsRepo } from './repositories/workflows.repo.js';
import { UpstreamsRepo } from './repositories/upstreams.repo.js';
import type { UpstreamsRepository } from './interfaces/upstreams.js';
import { WalletTokenUsesRepo } from './repositories/wallet-token-uses.repo.js';
import type { WalletTokenUsesRepository } from './interfaces/wallet-token-uses.js';
import { PaymentMethodImportsRepo } from './repositories/payment-method-imports.repo.js';
import type { PaymentMethodImportsRepository } from './interfaces/payment-method-imports.js';
import { PaymentMethodExportsRepo } from './repositories/payment-method-exports.repo.js';
import type { PaymentMethodExportsRepository } from './interfaces/payment-method-exports.js';
import { recordChange, recordChanges } from './change-journal.js';
import type { ChangeEvent } from '../domain/event.js';
import { hasCallbackSubscription, type Environment } from '../domain/environment.js';
import type { RequestMeta } from '../domain/request.js';

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
  organizations: OrganizationsRepository;
  environments: EnvironmentsRepository;
  accessSecrets: AccessSecretsRepository;
  gateways: GatewaysRepository;
  transactions: TransactionsRepository;
  locks: LocksRepository;
  paymentMethods: PaymentMethodsRepository;
  idempotency: IdempotencyRepository;
  receivers: ReceiversRepository;
  sealedBlobs: SealedBlobsRepository;
  certificates: CertificatesRepository;
  usedNonces: UsedNoncesRepository;
  portalPeople: PortalPeopleRepository;
  portalMemberships: PortalMembershipsRepository;
  portalInvitations: PortalInvitationsRepository;
  portalSessions: PortalSessionsRepository;
  auditEvents: AuditEventsRepository;
  /** Who opened which payment method's sensitive values (docs/audit.md). */
  cardAccess: CardAccessRepository;
  auditChain: AuditChainRepository;
  peoplePolicy: PeoplePolicyRepository;
  complianceFacts: ComplianceFactsRepository;
  rollups: RollupsRepository;
  events: EventsRepository;
  callbacks: CallbacksRepository;
  workflows: WorkflowsRepository;
  upstreams: UpstreamsRepository;
  walletTokenUses: WalletTokenUsesRepository;
  paymentMethodImports: PaymentMethodImportsRepository;
  paymentMethodExports: PaymentMethodExportsRepository;
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
  /** The API request the work serves: its events carry its id unless the service set `requestId`. */
  request?: RequestMeta;
}

function scoped(change: ChangeEvent, scope: WorkScope): ChangeEvent {
  const environment = scope.environment;
  const subscribe = change.environmentSubscribed === undefined && environment !== undefined && environment.key === change.environmentKey;
  const stamp = change.requestId === undefined;
  if (!subscribe && !stamp) return change;
  return {
    ...change,
    ...(subscribe ? { environmentSubscribed: hasCallbackSubscription(environment) } : {}),
    ...(stamp ? { requestId: scope.request?.id ?? null } : {}),
  };
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
    cardAccess: new CardAccessRepo(db),
    auditChain: new AuditChainRepo(db, dialect),
    peoplePolicy: new PeoplePolicyRepo(db),
    complianceFacts: new ComplianceFactsRepo(db),
    rollups: new RollupsRepo(db, dialect),
    events: new EventsRepo(db),
    callbacks: new CallbacksRepo(db, dialect),
    workflows: new WorkflowsRepo(db),
    upstreams: new UpstreamsRepo(db),
    walletTokenUses: new WalletTokenUsesRepo(db),
    paymentMethodImports: new PaymentMethodImportsRepo(db),
    paymentMethodExports: new PaymentMethodExportsRepo(db),
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
