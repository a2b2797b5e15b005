import type { RouteDocs } from '../../contract/api-docs.ts';
import { pageQuery } from '../../http/pagination.ts';
import { route, type RouteHandlers } from '../../http/router.ts';
import { json, noContent } from '../../http/types.ts';
import type { ManageKeys } from '../manage-keys.ts';
import { createdKey, createKeyBody, keyPage } from './schemas.ts';

const keyView = (k: { keyId: string; name: string; role: string; createdAt: string; lastUsedAt?: string }) => ({
  keyId: k.keyId,
  name: k.name,
  role: k.role,
  createdAt: k.createdAt,
  ...(k.lastUsedAt ? { lastUsedAt: k.lastUsedAt } : {}),
});

/** A project's management keys (`sbm_…`): the customer's own scripts call the management API with them. */
export const keyRoutes = {
  createKey: route({ method: 'POST', path: '/projects/{projectId}/keys', body: createKeyBody }),
  listKeys: route({ method: 'GET', path: '/projects/{projectId}/keys', query: pageQuery }),
  revokeKey: route({ method: 'DELETE', path: '/projects/{projectId}/keys/{keyId}' }),
};

export function keyRouteDocs(): RouteDocs<typeof keyRoutes> {
  return {
    createKey: {
      operationId: 'createProjectKey',
      summary: 'Create a project key',
      description:
        'A key for the management API that acts on this project alone, with a role (`viewer`, `developer`, ' +
        '`admin`). The key is in this answer only; it is stored hashed. Admin key or an `admin` project key.',
      tags: ['Access'],
      responses: { 201: { description: 'The key, shown once.', body: createdKey } },
    },
    listKeys: {
      operationId: 'listProjectKeys',
      summary: 'List project keys',
      description: "The project's keys: name, role, when made and last used (to the minute). Never the keys.",
      tags: ['Access'],
      responses: { 200: { description: 'A page of keys.', body: keyPage } },
    },
    revokeKey: {
      operationId: 'revokeProjectKey',
      summary: 'Revoke a project key',
      description: 'The key answers 401 `UNAUTHORIZED` from the next request on.',
      tags: ['Access'],
      responses: { 204: { description: 'Revoked.' } },
    },
  };
}

export function keyHandlers(keys: ManageKeys): RouteHandlers<typeof keyRoutes> {
  return {
    createKey: async ({ params, body }) => {
      const created = await keys.create(params.projectId, body);
      return json(201, { ...keyView(created), key: created.key }, { 'cache-control': 'no-store' });
    },
    listKeys: async ({ params, query }) => {
      const page = await keys.list(params.projectId, query);
      return json(200, { ...page, items: page.items.map(keyView) });
    },
    revokeKey: async ({ params }) => {
      await keys.revoke(params.projectId, params.keyId);
      return noContent();
    },
  };
}
