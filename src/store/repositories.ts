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

/**
 * Every repository bound to one executor, each made when first used: a unit of work touches a few
 * of the ~30, and building all of them was a measurable part of a purchase (docs/benchmarks.md).
 */
class BoundRepositories implements Repositories {
  private organizationsRepo?: OrganizationsRepo;
  private environmentsRepo?: EnvironmentsRepo;
  private accessSecretsRepo?: AccessSecretsRepo;
  private gatewaysRepo?: GatewaysRepo;
  private transactionsRepo?: TransactionsRepo;
  private locksRepo?: LocksRepo;
  private paymentMethodsRepo?: PaymentMethodsRepo;
  private idempotencyRepo?: IdempotencyRepo;
  private receiversRepo?: ReceiversRepo;
  private sealedBlobsRepo?: SealedBlobsRepo;
  private certificatesRepo?: CertificatesRepo;
  private usedNoncesRepo?: UsedNoncesRepo;
  private portalPeopleRepo?: PortalPeopleRepo;
  private portalMembershipsRepo?: PortalMembershipsRepo;
  private portalInvitationsRepo?: PortalInvitationsRepo;
  private portalSessionsRepo?: PortalSessionsRepo;
  private auditEventsRepo?: AuditEventsRepo;
  private cardAccessRepo?: CardAccessRepo;
  private auditChainRepo?: AuditChainRepo;
  private peoplePolicyRepo?: PeoplePolicyRepo;
  private complianceFactsRepo?: ComplianceFactsRepo;
  private rollupsRepo?: RollupsRepo;
  private eventsRepo?: EventsRepo;
  private callbacksRepo?: CallbacksRepo;
  private workflowsRepo?: WorkflowsRepo;
  private upstreamsRepo?: UpstreamsRepo;
  private walletTokenUsesRepo?: WalletTokenUsesRepo;
  private paymentMethodImportsRepo?: PaymentMethodImportsRepo;
  private paymentMethodExportsRepo?: PaymentMethodExportsRepo;
  readonly journal: Journal;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    scope: WorkScope,
  ) {
    this.journal = {
      record: async (change) => void (await recordChange(db, scoped(change, scope))),
      recordAll: (changes) => recordChanges(db, changes.map((change) => scoped(change, scope))),
    };
  }

  get organizations(): OrganizationsRepo {
    return (this.organizationsRepo ??= new OrganizationsRepo(this.db));
  }

  get environments(): EnvironmentsRepo {
    return (this.environmentsRepo ??= new EnvironmentsRepo(this.db));
  }

  get accessSecrets(): AccessSecretsRepo {
    return (this.accessSecretsRepo ??= new AccessSecretsRepo(this.db));
  }

  get gateways(): GatewaysRepo {
    return (this.gatewaysRepo ??= new GatewaysRepo(this.db));
  }

  get transactions(): TransactionsRepo {
    return (this.transactionsRepo ??= new TransactionsRepo(this.db));
  }

  get locks(): LocksRepo {
    return (this.locksRepo ??= new LocksRepo(this.db, this.dialect));
  }

  get paymentMethods(): PaymentMethodsRepo {
    return (this.paymentMethodsRepo ??= new PaymentMethodsRepo(this.db, this.dialect));
  }

  get idempotency(): IdempotencyRepo {
    return (this.idempotencyRepo ??= new IdempotencyRepo(this.db));
  }

  get receivers(): ReceiversRepo {
    return (this.receiversRepo ??= new ReceiversRepo(this.db));
  }

  get sealedBlobs(): SealedBlobsRepo {
    return (this.sealedBlobsRepo ??= new SealedBlobsRepo(this.db));
  }

  get certificates(): CertificatesRepo {
    return (this.certificatesRepo ??= new CertificatesRepo(this.db));
  }

  get usedNonces(): UsedNoncesRepo {
    return (this.usedNoncesRepo ??= new UsedNoncesRepo(this.db));
  }

  get portalPeople(): PortalPeopleRepo {
    return (this.portalPeopleRepo ??= new PortalPeopleRepo(this.db));
  }

  get portalMemberships(): PortalMembershipsRepo {
    return (this.portalMembershipsRepo ??= new PortalMembershipsRepo(this.db));
  }

  get portalInvitations(): PortalInvitationsRepo {
    return (this.portalInvitationsRepo ??= new PortalInvitationsRepo(this.db));
  }

  get portalSessions(): PortalSessionsRepo {
    return (this.portalSessionsRepo ??= new PortalSessionsRepo(this.db));
  }

  get auditEvents(): AuditEventsRepo {
    return (this.auditEventsRepo ??= new AuditEventsRepo(this.db));
  }

  get cardAccess(): CardAccessRepo {
    return (this.cardAccessRepo ??= new CardAccessRepo(this.db));
  }

  get auditChain(): AuditChainRepo {
    return (this.auditChainRepo ??= new AuditChainRepo(this.db, this.dialect));
  }

  get peoplePolicy(): PeoplePolicyRepo {
    return (this.peoplePolicyRepo ??= new PeoplePolicyRepo(this.db));
  }

  get complianceFacts(): ComplianceFactsRepo {
    return (this.complianceFactsRepo ??= new ComplianceFactsRepo(this.db));
  }

  get rollups(): RollupsRepo {
    return (this.rollupsRepo ??= new RollupsRepo(this.db, this.dialect));
  }

  get events(): EventsRepo {
    return (this.eventsRepo ??= new EventsRepo(this.db));
  }

  get callbacks(): CallbacksRepo {
    return (this.callbacksRepo ??= new CallbacksRepo(this.db, this.dialect));
  }

  get workflows(): WorkflowsRepo {
    return (this.workflowsRepo ??= new WorkflowsRepo(this.db));
  }

  get upstreams(): UpstreamsRepo {
    return (this.upstreamsRepo ??= new UpstreamsRepo(this.db));
  }

  get walletTokenUses(): WalletTokenUsesRepo {
    return (this.walletTokenUsesRepo ??= new WalletTokenUsesRepo(this.db));
  }

  get paymentMethodImports(): PaymentMethodImportsRepo {
    return (this.paymentMethodImportsRepo ??= new PaymentMethodImportsRepo(this.db));
  }

  get paymentMethodExports(): PaymentMethodExportsRepo {
    return (this.paymentMethodExportsRepo ??= new PaymentMethodExportsRepo(this.db));
  }
}

export function repositories(db: Kysely<Database>, dialect: Dialect, scope: WorkScope = {}): Repositories {
  return new BoundRepositories(db, dialect, scope);
}

/**
 * The unit of work: runs `work` in one database transaction, so its writes and the events the
 * service records with them (`repos.journal`) all land, or none do.
 */
export function inTransaction<T>(store: StoreHandle, work: (repos: Repositories) => Promise<T>, scope: WorkScope = {}): Promise<T> {
  return store.db.transaction().execute((trx) => work(repositories(trx, store.dialect, scope)));
}
