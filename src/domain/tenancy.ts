/** What an access secret may do. */
export type Role = 'admin' | 'transact' | 'read';

export const ROLES: readonly Role[] = ['admin', 'transact', 'read'];

/** What a route requires of the caller's secret. */
export type Access = 'read' | 'transact' | 'admin';

/**
 * admin: everything; transact: everything but environment and secret management;
 * read: GET only.
 */
export function roleAllows(role: Role, access: Access): boolean {
  if (role === 'admin') return true;
  if (role === 'transact') return access !== 'admin';
  return access === 'read';
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
