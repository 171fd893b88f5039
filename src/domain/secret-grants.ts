import { portalRoleAllows, type PortalPermission, type PortalRole } from './portal-roles.js';
import { ROLES, isRole, type Role } from './tenancy.js';

/**
 * Which access secrets a portal user may create and revoke (docs/portal.md, "Access secrets a
 * role may create"). The rule: a portal role may hand out a secret only if everything that
 * secret can do through the API is something the role is trusted with in the portal. So the
 * API's abilities are listed below as data, each with the portal permissions it needs; a secret
 * is grantable when the role holds every permission of every ability the secret has.
 */

/** Test environments hold test cards and sandbox gateways only (API.md §2); production ones are real. */
export type EnvironmentMode = 'test' | 'production';

const MODES: readonly EnvironmentMode[] = ['test', 'production'];

/**
 * Where a secret reaches: the modes of the environments it is limited to, or the whole
 * organization (every environment, those created later too, and the organization-wide API).
 */
export type SecretScope = { organizationWide: true } | { organizationWide: false; modes: readonly EnvironmentMode[] };

interface ApiAbility {
  /** What a secret with this ability can do, completing "such a secret can …" in a refusal. */
  does: string;
  /** The secret roles that have it (`roleAllows` of src/domain/tenancy.ts over the routes below). */
  roles: readonly Role[];
  /** Only organization-wide secrets have it (routes with `organizationWide: true`). */
  organizationWideOnly: boolean;
  /** The portal permissions of a person trusted with it, by the mode of the environment it acts in. */
  needs: Record<EnvironmentMode, readonly PortalPermission[]>;
  /**
   * The API routes (`METHOD /path` as registered) that give it; a route belongs to the first
   * ability that matches. test/portal/secret-grants.test.ts checks every authenticated route
   * of the app lands on an ability whose roles and scope are exactly the route's.
   */
  routes: readonly RegExp[];
}

const WRITERS: readonly Role[] = ['admin', 'transact'];
const both = (...permissions: PortalPermission[]): Record<EnvironmentMode, readonly PortalPermission[]> => ({ test: permissions, production: permissions });

/**
 * Vaulting, redacting and paying need vault rights (owner, admin) in production. In a test
 * environment a real card number, a production gateway and a production receiver are refused
 * (API.md §2; an environment's mode is fixed when it is created), so there they touch test cards
 * and sandboxes only: that is the integration work of whoever may set up gateways, and a
 * developer needs a transact secret to try the payments they integrate.
 */
const VAULT_AND_PAYMENTS: Record<EnvironmentMode, readonly PortalPermission[]> = { test: ['manage_gateways'], production: ['manage_payment_methods'] };

export const API_ABILITIES: readonly ApiAbility[] = [
  {
    does: 'administer the organization (environments, their callbacks, access secrets of every role and scope, the audit log)',
    roles: ['admin'],
    organizationWideOnly: true,
    needs: both('manage_organization', 'manage_environments', 'manage_secrets', 'view_audit'),
    routes: [/^\w+ \/v1\/(environments|audit_events)(\/|$)/],
  },
  {
    does: 'create, change and remove routing workflows',
    roles: ['admin'],
    organizationWideOnly: false,
    needs: both('manage_workflows'),
    routes: [/^(POST|PUT|DELETE) \/v1\/workflows(\/:key)?$/],
  },
  {
    does: "read who opened the payment methods' card data (the access log)",
    roles: ['admin'],
    organizationWideOnly: false,
    needs: both('view_audit'),
    routes: [/^GET \/v1\/payment_methods\/:token\/access_log$/],
  },
  {
    // Dual control (docs/portability.md, "Exporting"): each step, reading included, is an admin's.
    does: 'request, approve and download exports of payment methods (each export approved by a second admin)',
    roles: ['admin'],
    organizationWideOnly: false,
    needs: VAULT_AND_PAYMENTS,
    routes: [/^\w+ \/v1\/payment_methods\/exports(\/|$)/],
  },
  {
    does: 'read the records of the environment',
    roles: ROLES,
    organizationWideOnly: false,
    needs: both('read'),
    // The workflow dry run calls nothing and stores nothing.
    routes: [/^GET /, /^POST \/v1\/workflows\/:key\/explain$/],
  },
  {
    does: 'add, change and redact gateways',
    roles: WRITERS,
    organizationWideOnly: false,
    needs: both('manage_gateways'),
    routes: [/^(POST|PUT) \/v1\/gateways(\/:token(\/(redact|retain))?)?$/],
  },
  {
    does: 'add, change and redact receivers',
    roles: WRITERS,
    organizationWideOnly: false,
    needs: both('manage_receivers'),
    routes: [/^(POST|PUT) \/v1\/receivers(\/:token(\/redact)?)?$/],
  },
  {
    does: 'upload, generate and redact certificates',
    roles: WRITERS,
    organizationWideOnly: false,
    needs: both('manage_certificates'),
    routes: [/^(POST|PUT) \/v1\/certificates(\/|$)/],
  },
  {
    does: 'import payment methods from another vault',
    roles: ['admin'],
    organizationWideOnly: false,
    needs: VAULT_AND_PAYMENTS,
    routes: [/^POST \/v1\/payment_methods\/imports$/],
  },
  {
    does: 'vault, change, retain and redact payment methods',
    roles: WRITERS,
    organizationWideOnly: false,
    needs: VAULT_AND_PAYMENTS,
    routes: [/^(POST|PUT) \/v1\/payment_methods(\/|$)/],
  },
  {
    does: 'run payments, deliver and export payment methods, and send callbacks again',
    roles: WRITERS,
    organizationWideOnly: false,
    needs: VAULT_AND_PAYMENTS,
    routes: [/^(POST|PUT) \/v1\/(transactions|gateways\/:token)\//, /^POST \/v1\/receivers\/:token\/(deliver|export)$/, /^POST \/v1\/events\/:id\/redeliver$/],
  },
  {
    does: 'reach every environment of the organization, those created later too',
    roles: ROLES,
    organizationWideOnly: true,
    needs: both('manage_organization'),
    routes: [],
  },
];

/** The ability an API route gives (first match), or undefined for a route no ability names. */
export function abilityOfRoute(route: string): ApiAbility | undefined {
  return API_ABILITIES.find((ability) => ability.routes.some((pattern) => pattern.test(route)));
}

/** Creating a secret and revoking one are both judged by what the secret can do. */
export type SecretAction = 'create' | 'revoke';

/** Why the portal role may not create (or revoke) a secret of this role and scope, or null when it may. */
export function grantRefusal(portalRole: PortalRole, secretRole: string, scope: SecretScope, action: SecretAction): string | null {
  if (!portalRoleAllows(portalRole, 'manage_secrets')) return `Your role (${portalRole}) does not allow this.`;
  // A role this code does not know is treated as the strongest.
  const role: Role = isRole(secretRole) ? secretRole : 'admin';
  const modes = scope.organizationWide ? MODES : scope.modes;
  for (const ability of API_ABILITIES) {
    if (!ability.roles.includes(role) || (ability.organizationWideOnly && !scope.organizationWide)) continue;
    const mode = modes.find((m) => ability.needs[m].some((permission) => !portalRoleAllows(portalRole, permission)));
    if (mode === undefined) continue;
    const where = scope.organizationWide ? 'for all environments' : `for a ${mode} environment`;
    return `Your role (${portalRole}) cannot ${action} ${article(role)} ${role} access secret ${where}: such a secret can ${ability.does}.`;
  }
  return null;
}

/** Whether the portal role may create a secret of this role and scope (and so revoke one). */
export function mayGrant(portalRole: PortalRole, secretRole: string, scope: SecretScope): boolean {
  return grantRefusal(portalRole, secretRole, scope, 'create') === null;
}

/**
 * The scope of a secret limited to `environmentKeys` (null: organization-wide). An environment
 * the lookup does not know counts as production, the stricter mode.
 */
export function scopeOf(environmentKeys: readonly string[] | null, modeOf: (environmentKey: string) => EnvironmentMode | undefined): SecretScope {
  if (environmentKeys === null) return { organizationWide: true };
  return { organizationWide: false, modes: environmentKeys.map((key) => modeOf(key) ?? 'production') };
}

function article(role: Role): string {
  return role === 'admin' ? 'an' : 'a';
}
