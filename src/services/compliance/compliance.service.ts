import type { Clock } from '../../domain/clock.js';
import type { PeoplePolicy } from '../../domain/people-policy.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { AuditChainService } from '../audit-chain/audit-chain.service.js';
import type { PeoplePolicyService } from '../people-policy.service.js';

/** The repositories this module reads (docs/architecture.md, "Dependencies"). */
type Uses = 'complianceFacts' | 'masterKeyRotations';

/** What the report is told of the running configuration (the composition root knows it). */
export interface ComplianceSettings {
  /** The master key provider as configured: 'file', 'env', or another provider's name. */
  keyProvider: string;
  /** The provider's state now: an HSM's reachability, the custodians of a split key (docs/key-custody.md). */
  custody: () => { hsmReachable: boolean | null; custodians: { threshold: number; shares: number } | null };
  people: PeoplePolicy;
  auditRetentionMonths: number;
  checkpointIntervalMs: number;
  tls: { mode: string; protocols: string[]; cipherSuites: string[] };
  dataDirectory: string;
  /** Paths under the data directory (and the database files) that group or others may use. */
  widePermissions: () => Array<{ path: string; mode: number }>;
}

/** One PCI DSS v4.0.1 requirement: what is configured, what was checked, and whether it holds. */
export interface RequirementFinding {
  requirement: string;
  title: string;
  status: 'met' | 'not_met';
  evidence: string;
}

/** The evidence, as `coffer compliance report` prints it and the portal shows it. */
export interface ComplianceReport {
  generated_at: string;
  scope: 'installation' | 'organization';
  key_management: {
    provider: string;
    /** For `pkcs11`: whether the HSM answered when the report was made; null for other providers. */
    hsm_reachable: boolean | null;
    /** For `shares`: how many custodian shares exist and how many unseal a node; null otherwise. */
    custodians: { threshold: number; shares: number } | null;
    master_key_ids: string[];
    data_keys: Array<{ environment_key: string | null; current_key_id: string; created_at: string; versions: number }>;
    last_data_key_rotation: string | null;
    /** The latest run of `coffer keys rotate-master` or `coffer master-key rotate --to`; null if none ran. */
    last_master_key_rotation: {
      finished_at: string;
      kind: 'rotate' | 'move';
      to_provider: string;
      to_master_key_id: string;
      rewrapped: number;
      remaining: number;
      outcome: 'completed' | 'interrupted';
    } | null;
  };
  audit_trail: {
    verified: boolean;
    verified_through: number;
    head_position: number;
    anchor_position: number;
    checkpoints: number;
    last_checkpoint: { position: number; signed_at: string } | null;
    problem: string | null;
    retention_months: number;
    checkpoint_interval_minutes: number;
  };
  people: {
    password_min_length: number;
    lockout_failures: number;
    lockout_minutes: number;
    idle_timeout_minutes: number;
    inactive_days: number;
    organizations: Array<{
      token: string;
      name: string;
      two_step_required: boolean;
      two_step_source: 'organization' | 'default';
      members_with_two_step: string[];
      members_without_two_step: string[];
      disabled_members: string[];
    }>;
  };
  tls: { mode: string; protocols: string[]; cipher_suites: string[] };
  data_directory: { path: string | null; private: boolean; wide: Array<{ path: string; mode: string }> };
  requirements: RequirementFinding[];
}

const minutes = (ms: number) => Math.round(ms / 60_000);

/**
 * `coffer compliance report` and the portal's compliance page (docs/compliance.md): for each PCI
 * DSS v4.0.1 requirement Coffer addresses, what is configured and what was checked now (the audit
 * chain is verified, the data directory's permissions read).
 */
export class ComplianceService {
  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly chain: Pick<AuditChainService, 'verify'>,
    private readonly people: Pick<PeoplePolicyService, 'twoStep'>,
    private readonly settings: ComplianceSettings,
    private readonly clock: Clock,
  ) {}

  /** The whole installation (the CLI), or one organization's part of it (the portal: no paths, no other organizations). */
  async report(organizationToken: string | null = null): Promise<ComplianceReport> {
    const facts = this.store.repos.complianceFacts;
    // The portal's page checks what came since the latest signed checkpoint (a page load must not walk
    // a year of entries); the operator's report walks the whole chain.
    const [keys, members, organizations, verification, [lastMasterRotation]] = await Promise.all([
      facts.dataKeys(),
      facts.members(),
      facts.organizations(),
      this.chain.verify({ sinceLatestCheckpoint: organizationToken !== null }),
      this.store.repos.masterKeyRotations.latest(1),
    ]);
    const byEnvironment = new Map<string | null, { id: string; createdAt: string; versions: number }>();
    for (const key of keys) {
      const seen = byEnvironment.get(key.environmentKey);
      byEnvironment.set(key.environmentKey, { id: key.id, createdAt: key.createdAt, versions: (seen?.versions ?? 0) + 1 });
    }
    const rotated = keys.filter((key) => !/-1$/.test(key.id)).at(-1)?.createdAt ?? null;
    const scoped = organizations.filter((organization) => organizationToken === null || organization.token === organizationToken);
    const orgs = await Promise.all(
      scoped.map(async (organization) => {
        const own = members.filter((member) => member.organizationToken === organization.token);
        const twoStep = await this.people.twoStep(organization.token);
        const active = own.filter((member) => !member.disabled);
        return {
          token: organization.token,
          name: organization.name,
          two_step_required: twoStep.required,
          two_step_source: twoStep.source,
          members_with_two_step: active.filter((member) => member.totpEnabled).map((member) => member.email),
          members_without_two_step: active.filter((member) => !member.totpEnabled).map((member) => member.email),
          disabled_members: own.filter((member) => member.disabled).map((member) => member.email),
        };
      }),
    );
    const wide = this.settings.widePermissions().map((entry) => ({ path: entry.path, mode: `0${entry.mode.toString(8)}` }));
    const people = this.settings.people;
    const custody = this.settings.custody();
    const report: Omit<ComplianceReport, 'requirements'> = {
      generated_at: this.clock.now().toISOString(),
      scope: organizationToken === null ? 'installation' : 'organization',
      key_management: {
        provider: this.settings.keyProvider,
        hsm_reachable: custody.hsmReachable,
        custodians: custody.custodians,
        master_key_ids: [...new Set(keys.map((key) => key.masterKeyId))],
        data_keys: [...byEnvironment.entries()].map(([environmentKey, key]) => ({ environment_key: environmentKey, current_key_id: key.id, created_at: key.createdAt, versions: key.versions })),
        last_data_key_rotation: rotated,
        last_master_key_rotation:
          lastMasterRotation === undefined
            ? null
            : {
                finished_at: lastMasterRotation.finishedAt,
                kind: lastMasterRotation.kind,
                to_provider: lastMasterRotation.toProvider,
                to_master_key_id: lastMasterRotation.toMasterKeyId,
                rewrapped: lastMasterRotation.rewrapped,
                remaining: lastMasterRotation.remaining,
                outcome: lastMasterRotation.outcome,
              },
      },
      audit_trail: {
        verified: verification.ok,
        verified_through: verification.verifiedThrough,
        head_position: verification.head.position,
        anchor_position: verification.anchorPosition,
        checkpoints: verification.checkpoints,
        last_checkpoint: verification.lastCheckpoint === null ? null : { position: verification.lastCheckpoint.position, signed_at: verification.lastCheckpoint.signedAt },
        problem: verification.problem?.message ?? null,
        retention_months: this.settings.auditRetentionMonths,
        checkpoint_interval_minutes: minutes(this.settings.checkpointIntervalMs),
      },
      people: {
        password_min_length: people.passwordMinLength,
        lockout_failures: people.lockoutFailures,
        lockout_minutes: minutes(people.lockoutMs),
        idle_timeout_minutes: minutes(people.idleTimeoutMs),
        inactive_days: people.inactiveDays,
        organizations: orgs,
      },
      tls: { mode: this.settings.tls.mode, protocols: this.settings.tls.protocols, cipher_suites: this.settings.tls.cipherSuites },
      data_directory: { path: organizationToken === null ? this.settings.dataDirectory : null, private: wide.length === 0, wide: organizationToken === null ? wide : [] },
    };
    return { ...report, requirements: findings(report) };
  }
}

function finding(requirement: string, title: string, met: boolean, evidence: string): RequirementFinding {
  return { requirement, title, status: met ? 'met' : 'not_met', evidence };
}

/** A master key rotation or move left half done (interrupted, or keys still on another master key) is not met until run again. */
function masterKeyFinding(last: ComplianceReport['key_management']['last_master_key_rotation']): RequirementFinding {
  if (last === null) return finding('3.7.4', 'Master key rotated', true, 'the master key has not been rotated or moved (coffer master-key rotate --to, coffer keys rotate-master)');
  const what = `last master key ${last.kind === 'move' ? `move to ${last.to_provider}` : 'rotation'} ${last.finished_at}: ${last.rewrapped} key(s) re-wrapped`;
  const done = last.outcome === 'completed' && last.remaining === 0;
  return finding('3.7.4', 'Master key rotated', done, done ? what : `${what}, ${last.outcome}, ${last.remaining} key(s) still on the previous master key (run it again to finish)`);
}

/** Each requirement, judged from the report's facts (docs/compliance.md maps them to code and tests). */
function findings(report: Omit<ComplianceReport, 'requirements'>): RequirementFinding[] {
  const { key_management: keys, audit_trail: chain, people, tls, data_directory: data } = report;
  const withoutTwoStep = people.organizations.filter((organization) => organization.two_step_required && organization.members_without_two_step.length > 0);
  const notEnforced = people.organizations.filter((organization) => !organization.two_step_required);
  return [
    finding('3.5.1', 'Stored PANs are unreadable (AES-256-GCM under per-environment data keys)', true, `${keys.data_keys.length} data key(s), wrapped by ${keys.master_key_ids.length} master key(s)`),
    finding('3.6.1', 'Key-encrypting key stored apart from the data keys', keys.provider !== 'file', `master key provider: ${keys.provider}${keys.provider === 'file' ? ' (a file in the data directory: development only)' : ''}`),
    ...(keys.provider === 'pkcs11' ? [finding('3.6.1.2', 'The HSM holding the key-encrypting key is reachable', keys.hsm_reachable === true, keys.hsm_reachable === true ? 'the PKCS#11 token answered' : 'the PKCS#11 token did not answer (see /readyz and the log)')] : []),
    ...(keys.provider === 'shares' && keys.custodians !== null ? [finding('3.7.6', 'Split knowledge and dual control of the master key', keys.custodians.threshold >= 2, `${keys.custodians.threshold} of ${keys.custodians.shares} custodian shares unseal a node`)] : []),
    finding('3.7.4', 'Data keys rotated', true, keys.last_data_key_rotation === null ? 'no data key rotated yet (coffer keys rotate-data)' : `last data key rotation ${keys.last_data_key_rotation}`),
    masterKeyFinding(keys.last_master_key_rotation),
    finding('4.2.1', 'Strong cryptography in transit', tls.mode !== 'off', tls.mode === 'off' ? 'TLS is off (COFFER_TLS=off): only behind a TLS-terminating proxy' : `${tls.protocols.join(', ')}; ${tls.cipher_suites.length} AEAD forward-secret suites`),
    finding('8.2.6', 'Inactive accounts disabled within 90 days', people.inactive_days <= 90, `members not signed in for ${people.inactive_days} days are disabled`),
    finding('8.2.8', 'Idle sessions end within 15 minutes', people.idle_timeout_minutes <= 15, `idle timeout ${people.idle_timeout_minutes} minutes`),
    finding('8.3.4', 'Lockout after at most 10 failures for at least 30 minutes', people.lockout_failures <= 10 && people.lockout_minutes >= 30, `${people.lockout_failures} failures lock for ${people.lockout_minutes} minutes`),
    finding('8.3.6', 'Passwords of at least 12 characters', people.password_min_length >= 12, `minimum ${people.password_min_length} characters`),
    finding(
      '8.4.2',
      'Two-step verification for access to the cardholder data environment',
      withoutTwoStep.length === 0 && notEnforced.length === 0,
      notEnforced.length > 0
        ? `not required in: ${notEnforced.map((organization) => organization.name).join(', ')}`
        : withoutTwoStep.length > 0
          ? `required, but not yet set up by ${withoutTwoStep.reduce((count, organization) => count + organization.members_without_two_step.length, 0)} member(s) (they can only set it up)`
          : 'required in every organization, and set up by every active member',
    ),
    finding('9.4.1 / 7.2', 'Data directory readable by its user only', data.private, data.private ? 'no file or directory open to group or others' : `${data.wide.length || 'some'} path(s) open to group or others`),
    finding('10.2.1', 'Audit logs of every access to card data and every administrative action', true, `access records and audit events form one hash chain of ${chain.head_position} entries`),
    finding('10.3.4', 'Audit logs protected from modification (hash chain, signed checkpoints)', chain.verified, chain.verified ? `verified through entry ${chain.verified_through}; ${chain.checkpoints} signed checkpoint(s)` : `verification failed: ${chain.problem ?? 'unknown'}`),
    finding('10.5.1', 'Audit log history retained for at least 12 months', chain.retention_months >= 12, `retention ${chain.retention_months} months`),
  ];
}
