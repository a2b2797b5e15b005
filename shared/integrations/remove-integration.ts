import { requireIntegration, type UseCaseDeps } from './integration-access.ts';

/**
 * Deletes an integration; a custom token stops working at once (its grant goes first). The record is deleted
 * only at the version read: a rotation that recorded a new token meanwhile makes this read again and delete
 * that token's grant too, so no token outlives its integration.
 */
export function makeRemoveIntegration(deps: UseCaseDeps<'integrations' | 'projects' | 'tokens'>) {
  const store = deps.integrations;
  return async (projectId: string, integrationId: string): Promise<void> => {
    let current = await requireIntegration(deps, projectId, integrationId);
    for (;;) {
      if (current.product !== 'webhook') await deps.tokens.delete(current.tokenHash);
      if (await store.delete(projectId, integrationId, current.version)) break;
      const changed = await store.get(projectId, integrationId);
      // Gone: whoever deleted it deleted the grant of the token it recorded.
      if (!changed) return;
      current = changed;
    }
    if (current.product === 'webhook' && current.scope === 'general')
      await store.releaseGeneralWebhook(projectId, integrationId);
  };
}
