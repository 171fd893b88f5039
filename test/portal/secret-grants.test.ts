import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PORTAL_ROLES, isPortalRole } from '../../src/domain/portal-roles.js';
import { API_ABILITIES, abilityOfRoute, grantRefusal, mayGrant, type SecretScope } from '../../src/domain/secret-grants.js';
import { ROLES, roleAllows, type Access } from '../../src/domain/tenancy.js';
import { registeredRoutes } from '../helpers/registered-routes.js';

/*
 * The grant rule of access secrets (src/domain/secret-grants.ts) against the two things it must
 * agree with: the API (every authenticated route is an ability of the roles and scope the route
 * admits, so a new route cannot slip past the rule) and docs/portal.md (the published matrix is
 * what the rule computes).
 */

interface ApiRoute {
  route: string;
  access: Access;
  organizationWide: boolean;
}

/** Every authenticated API route, with what it asks of a secret (the defaults of src/http/auth.ts). */
async function authenticatedApiRoutes(): Promise<ApiRoute[]> {
  return (await registeredRoutes()).flatMap(({ method, url, config }) => {
    const access = config.access ?? (method === 'GET' ? 'read' : 'transact');
    return url.startsWith('/v1/') && access !== 'none' ? [{ route: `${method} ${url}`, access, organizationWide: config.organizationWide === true }] : [];
  });
}

describe('the grant rule of access secrets', () => {
  it('covers every authenticated API route with an ability of exactly the roles and scope the route admits', async () => {
    const routes = await authenticatedApiRoutes();
    expect(routes.length).toBeGreaterThan(60);
    const mismatches = routes.flatMap(({ route, access, organizationWide }) => {
      const ability = abilityOfRoute(route);
      if (ability === undefined) return [`${route}: no ability`];
      const admitted = ROLES.filter((role) => roleAllows(role, access));
      const problems: string[] = [];
      if ([...ability.roles].sort().join() !== [...admitted].sort().join()) problems.push(`${route}: ability "${ability.does}" has ${ability.roles.join('/')}, the route admits ${admitted.join('/')}`);
      if (ability.organizationWideOnly !== organizationWide) problems.push(`${route}: organization-wide ${organizationWide}, the ability says ${ability.organizationWideOnly}`);
      return problems;
    });
    expect(mismatches).toEqual([]);
    // And no ability names routes that do not exist (a stale pattern would hide a renamed route).
    const unused = API_ABILITIES.filter((ability) => ability.routes.length > 0 && !routes.some(({ route }) => abilityOfRoute(route) === ability));
    expect(unused.map((ability) => ability.does)).toEqual([]);
  });

  it('is the matrix docs/portal.md publishes', () => {
    const doc = fs.readFileSync(new URL('../../docs/portal.md', import.meta.url), 'utf8');
    const header = doc.split('\n').find((line) => line.startsWith('| Portal role | `read` test environment'));
    expect(header).toBeDefined();
    const columns = (header as string).split('|').slice(2, -1).map((cell) => cell.trim());
    const scopeOf = (column: string): SecretScope =>
      column.endsWith('all environments') ? { organizationWide: true } : { organizationWide: false, modes: [column.includes('production') ? 'production' : 'test'] };
    const rows = doc.split('\n').filter((line) => PORTAL_ROLES.some((role) => line.startsWith(`| ${role} | yes`) || line.startsWith(`| ${role} | no`)));
    expect(rows).toHaveLength(PORTAL_ROLES.length);
    for (const row of rows) {
      const [portalRole = '', ...cells] = row.split('|').slice(1, -1).map((cell) => cell.trim());
      expect(isPortalRole(portalRole)).toBe(true);
      if (!isPortalRole(portalRole)) continue;
      columns.forEach((column, at) => {
        const secretRole = /`(\w+)`/.exec(column)?.[1] as string;
        expect(mayGrant(portalRole, secretRole, scopeOf(column)) ? 'yes' : 'no', `${portalRole}, ${column}`).toBe(cells[at]);
      });
    }
  });

  it('says why, naming the ability, and treats an unknown secret role as admin', () => {
    expect(grantRefusal('developer', 'transact', { organizationWide: false, modes: ['production'] }, 'create')).toBe(
      'Your role (developer) cannot create a transact access secret for a production environment: such a secret can vault, change, retain and redact payment methods.',
    );
    expect(grantRefusal('developer', 'admin', { organizationWide: false, modes: ['test'] }, 'revoke')).toBe(
      'Your role (developer) cannot revoke an admin access secret for a test environment: such a secret can create, change and remove routing workflows.',
    );
    expect(grantRefusal('developer', 'read', { organizationWide: true }, 'create')).toContain('reach every environment of the organization, those created later too');
    expect(grantRefusal('viewer', 'read', { organizationWide: false, modes: ['test'] }, 'create')).toBe('Your role (viewer) does not allow this.');
    expect(mayGrant('developer', 'superuser', { organizationWide: false, modes: ['test'] })).toBe(false);
    expect(mayGrant('admin', 'superuser', { organizationWide: true })).toBe(true);
    // A secret that reaches no environment can do nothing: any role that manages secrets may revoke it.
    expect(mayGrant('developer', 'admin', { organizationWide: false, modes: [] })).toBe(true);
  });
});
