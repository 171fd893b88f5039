/** A portal user's role in the organization. */
export type PortalRole = 'owner' | 'admin' | 'developer' | 'viewer';

export const PORTAL_ROLES: readonly PortalRole[] = ['owner', 'admin', 'developer', 'viewer'];

/** What a portal page or action needs. Reading is open to every role. */
export type PortalPermission =
  | 'read'
  | 'manage_environments'
  | 'manage_secrets'
  | 'manage_gateways'
  | 'manage_receivers'
  | 'manage_certificates'
  | 'manage_payment_methods'
  | 'manage_team'
  | 'view_audit'
  | 'manage_own_account'
  /** Routing workflows decide where payments go, so only owners and admins change them. */
  | 'manage_workflows'
  /**
   * Organization-wide access secrets: they reach every environment, those created later too, and
   * the organization-wide API (src/domain/secret-grants.ts). No page needs it; the grant rule does.
   */
  | 'manage_organization';

const DEVELOPER: readonly PortalPermission[] = [
  'read',
  'manage_environments',
  'manage_secrets',
  'manage_gateways',
  'manage_receivers',
  'manage_certificates',
  'manage_own_account',
];

/**
 * owner: everything; admin: everything, but owners are out of its reach (checked by the team
 * service); developer: environments, secrets (of the strength src/domain/secret-grants.ts
 * allows), gateways, receivers, certificates, no team, no vault changes, no audit log, nothing
 * organization-wide; viewer: reads, and its own password and second factor.
 */
const GRANTS: Record<PortalRole, readonly PortalPermission[]> = {
  owner: [...DEVELOPER, 'manage_payment_methods', 'manage_team', 'view_audit', 'manage_workflows', 'manage_organization'],
  admin: [...DEVELOPER, 'manage_payment_methods', 'manage_team', 'view_audit', 'manage_workflows', 'manage_organization'],
  developer: DEVELOPER,
  viewer: ['read', 'manage_own_account'],
};

export function portalRoleAllows(role: PortalRole, permission: PortalPermission): boolean {
  return GRANTS[role].includes(permission);
}

export function isPortalRole(value: string): value is PortalRole {
  return (PORTAL_ROLES as readonly string[]).includes(value);
}
