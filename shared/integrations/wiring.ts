import type { Platform } from '../kernel/platform.ts';
import type { SecretBox } from '../kernel/secret-box.ts';
import { DynamoIntegrationStore } from './adapters/dynamo-integration-store.ts';
import { integrationHandlers } from './api/admin-routes.ts';
import type { IntegrationDeps } from './integration-access.ts';
import { makeIntegrationUseCases } from './manage-integrations.ts';

/**
 * The integrations' management API on the deployment's table: the store (secrets sealed with `secretBox`), the use
 * cases and what serves `integrationRoutes`. The store is handed back: the webhooks area reads the same records. What
 * integrations need of other areas comes in: channels (messaging), projects, the token grants (auth).
 */
export function wireIntegrationAdmin(
  platform: Pick<Platform, 'table'>,
  deps: Omit<IntegrationDeps, 'integrations' | 'now'> & { secretBox: SecretBox },
) {
  const { secretBox, ...ports } = deps;
  const store = new DynamoIntegrationStore(platform.table, secretBox);
  const integrations = makeIntegrationUseCases({ integrations: store, ...ports });
  return { store, integrations, handlers: integrationHandlers(integrations) };
}
