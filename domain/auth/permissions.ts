/**
 * Permissions are `view_<area>` and `manage_<area>`; roles are fixed sets of them (DESIGN.md).
 * `manage_<area>` does not imply `view_<area>`: each role lists both explicitly, so a token's
 * `permissions` claim reads the same way the checks do.
 */
export const AREAS = ['agents', 'assets', 'maintenance', 'webhooks', 'privacy', 'audit', 'reports', 'settings', 'files', 'extractions', 'csat', 'dashboard'] as const;
export type Area = (typeof AREAS)[number];
export type Permission = `view_${Area}` | `manage_${Area}`;

export const ROLES = ['admin', 'manager', 'technician', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const view = (...areas: Area[]): Permission[] => areas.map((a) => `view_${a}` as const);
const manage = (...areas: Area[]): Permission[] => areas.map((a) => `manage_${a}` as const);

const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  admin: [...view(...AREAS), ...manage(...AREAS)],
  manager: [...view(...AREAS), ...manage('agents', 'assets', 'maintenance', 'webhooks', 'reports', 'files', 'extractions', 'csat')],
  technician: [...view('agents', 'assets', 'maintenance', 'reports', 'files', 'extractions', 'dashboard'), ...manage('maintenance', 'files')],
  viewer: view('agents', 'assets', 'maintenance', 'reports', 'dashboard', 'csat'),
};

export function permissionsForRole(role: Role): Permission[] {
  return [...ROLE_PERMISSIONS[role]];
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
