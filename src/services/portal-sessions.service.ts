import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../domain/digest.js';
import type { Clock } from '../domain/clock.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import type { PortalMember, PortalSession, PortalSessionStage } from '../domain/portal-people.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'portalMemberships' | 'portalSessions';

/** How long sessions live. */
export interface SessionPolicy {
  /** Signed out after this long without a request. */
  idleMs: number;
  /** Signed out this long after sign-in, however active. */
  absoluteMs: number;
}

/** Idle: 15 minutes (PCI DSS 8.2.8; COFFER_PORTAL_IDLE_TIMEOUT), absolute: 12 hours. */
export const DEFAULT_SESSION_POLICY: SessionPolicy = { idleMs: 15 * 60_000, absoluteMs: 12 * 3_600_000 };

/** `lastSeenAt` is written at most this often: not one write per page view. */
const TOUCH_EVERY_MS = 60_000;

/**
 * A session as the portal sees it: `user` is the person's membership in the session's
 * organization (its role, its organization), with the person's email and second-factor state.
 */
export interface LiveSession {
  row: PortalSession;
  user: PortalMember;
}

/** A new session: the cookie value is returned here only; the store keeps its hash. */
export interface NewSession {
  cookie: string;
  row: PortalSession;
}

/**
 * Server-side portal sessions in the database, so every node behind a load balancer sees them.
 * A session is one person acting in one organization. It starts at stage 'password' when the
 * person has a second factor to give, else 'active'; passing the second factor replaces it with a
 * new session (a new cookie value).
 */
export class PortalSessionService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    store: StoreAccess<Uses>,
    private readonly clock: Clock,
    private readonly policy: SessionPolicy = DEFAULT_SESSION_POLICY,
  ) {
    this.repos = store.repos;
  }

  async start(user: PortalMember, stage: PortalSessionStage, address: string, environmentKey: string | null): Promise<NewSession> {
    const cookie = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const row: PortalSession = {
      idHash: sha256Hex(cookie),
      personToken: user.personToken,
      organizationToken: user.organizationToken,
      csrfToken: randomBytes(32).toString('base64url'),
      stage,
      environmentKey,
      address,
      consumedNonce: null,
      createdAt: now.toISOString(),
      lastSeenAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.policy.absoluteMs).toISOString(),
    };
    await this.repos.portalSessions.insert(row);
    return { cookie, row };
  }

  /** The live session behind a cookie value, or null (unknown, expired, membership disabled or removed). */
  async resolve(cookie: string): Promise<LiveSession | null> {
    if (cookie.length === 0 || cookie.length > 100) return null;
    const idHash = sha256Hex(cookie);
    const row = await this.repos.portalSessions.find(idHash);
    if (row === undefined) return null;
    const now = this.clock.now().getTime();
    const idleSince = Date.parse(row.lastSeenAt);
    if (now >= Date.parse(row.expiresAt) || now - idleSince >= this.policy.idleMs) {
      await this.repos.portalSessions.delete(idHash);
      return null;
    }
    const user = await this.repos.portalMemberships.of(row.personToken, row.organizationToken);
    if (user === undefined || user.disabledAt !== null) return null;
    if (now - idleSince >= TOUCH_EVERY_MS) {
      const seen = new Date(now).toISOString();
      await this.repos.portalSessions.update(idHash, { lastSeenAt: seen });
      row.lastSeenAt = seen;
    }
    return { row, user };
  }

  /** The second factor was given: the pending session is replaced by an active one. */
  async promote(session: LiveSession): Promise<NewSession> {
    await this.repos.portalSessions.delete(session.row.idHash);
    return this.start(session.user, 'active', session.row.address, session.row.environmentKey);
  }

  /**
   * Moves the session to another organization of the person: its environment is that
   * organization's first, and the CSRF token changes, so a form of the previous organization's
   * pages (another tab) cannot act in this one.
   */
  async switchOrganization(session: LiveSession, member: PortalMember, environmentKey: string | null): Promise<void> {
    const changes = { organizationToken: member.organizationToken, environmentKey, csrfToken: randomBytes(32).toString('base64url'), consumedNonce: null };
    await this.repos.portalSessions.update(session.row.idHash, changes);
    Object.assign(session.row, changes);
    session.user = member;
  }

  async selectEnvironment(session: LiveSession, environmentKey: string): Promise<void> {
    await this.repos.portalSessions.update(session.row.idHash, { environmentKey });
  }

  /**
   * Claims a form's one-time value: false when this session already submitted it (a reload that
   * re-POSTs the form), so a secret is created, and shown, once per form.
   */
  async claimNonce(session: LiveSession, nonce: string | undefined): Promise<boolean> {
    if (nonce === undefined || nonce.length < 16 || nonce === session.row.consumedNonce) return false;
    await this.repos.portalSessions.update(session.row.idHash, { consumedNonce: nonce });
    session.row.consumedNonce = nonce;
    return true;
  }

  async end(session: LiveSession): Promise<void> {
    await this.repos.portalSessions.delete(session.row.idHash);
  }

  /** Ends every session of the person but this one (after a password change). */
  async endOthers(session: LiveSession): Promise<void> {
    await this.repos.portalSessions.deleteForPerson(session.user.personToken);
    await this.repos.portalSessions.insert(session.row);
  }

  async sweepExpired(): Promise<void> {
    await this.repos.portalSessions.deleteExpired(this.clock.now().toISOString());
  }
}

/** Constant-time comparison of a submitted CSRF token with the session's. */
export function csrfMatches(session: PortalSession, submitted: unknown): boolean {
  if (typeof submitted !== 'string') return false;
  const a = Buffer.from(session.csrfToken, 'utf8');
  const b = Buffer.from(submitted, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
