/**
 * Tenancy: who may call the management API on which project. Project keys with roles, portal links that open the
 * console for one project, each route's rule, and the audit log of every change. The only way into the area.
 */
export { type Access, authorize, ForbiddenError, type Role } from './access.ts';
export { tenancyRouteDocs, tenancyRoutes } from './api/routes.ts';
export { projectScopeOf } from './api/caller.ts';
export { tenancySettings } from './settings.ts';
export { wireTenancy } from './wiring.ts';
// What bench/tenancy-check.ts measures a project key's check with: the use case over either key store.
export { DynamoKeyStore } from './adapters/dynamo-key-store.ts';
export type { KeyStore, ManagementKey } from './keys.ts';
export { makeManageKeys } from './manage-keys.ts';
