import type { Clock } from '../domain/clock.js';
import { randomToken, TOKEN_LENGTH } from '../domain/tokens.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import type { AuditActorType, AuditDetails, AuditEvent, AuditFilter } from '../domain/audit-event.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'auditEvents';

/** Who did something, and from where. */
export interface AuditActor {
  type: AuditActorType;
  /** The user's email, the access secret's key, or 'cli'. */
  id: string;
  /** The client address, when there was one. */
  address: string | null;
}

/** One change worth recording. `details` holds names and roles, never a secret or a card. */
export interface AuditEntry {
  organizationToken: string;
  action: string;
  objectType: string;
  objectId: string | null;
  environmentKey?: string | null;
  details?: AuditDetails;
}

/** Append-only record of changes, read newest first. */
export class AuditService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    store: StoreAccess<Uses>,
    private readonly clock: Clock,
  ) {
    this.repos = store.repos;
  }

  async record(actor: AuditActor, entry: AuditEntry): Promise<void> {
    await this.repos.auditEvents.insert({
      token: randomToken(TOKEN_LENGTH.item),
      organizationToken: entry.organizationToken,
      actorType: actor.type,
      actor: actor.id,
      action: entry.action,
      objectType: entry.objectType,
      objectId: entry.objectId,
      environmentKey: entry.environmentKey ?? null,
      address: actor.address,
      details: entry.details ?? null,
      createdAt: this.clock.now().toISOString(),
    });
  }

  list(organizationToken: string, filter: AuditFilter): Promise<AuditEvent[]> {
    return this.repos.auditEvents.list(organizationToken, filter);
  }

  facets(organizationToken: string): Promise<{ actions: string[]; actors: string[] }> {
    return this.repos.auditEvents.facets(organizationToken);
  }
}
