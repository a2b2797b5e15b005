import type { TokenStore } from '../auth/index.ts';
import { generateToken } from '../auth/index.ts';
import type { WebhookEventType } from '../events/index.ts';
import { newId } from '../kernel/ids.ts';
import { hashToken } from '../kernel/tokens.ts';
import type { IntegrationStore, PollerIntegration } from './integration.ts';
import type { WebhookFilter } from '../contract/webhook-filter.ts';

export interface PollerInput {
  eventTypes?: WebhookEventType[] | null;
  filter?: WebhookFilter | null;
}

/**
 * A poller is made like a custom integration: the record first, then its token's grant, so a crash in between leaves
 * a poller whose token never worked (rotate it), never a working token without its poller. The token is shown once.
 */
export async function createPoller(
  deps: { integrations: IntegrationStore; tokens: TokenStore },
  projectId: string,
  input: PollerInput,
  at: string,
): Promise<{ integration: PollerIntegration; token: string }> {
  const token = generateToken('poller');
  const integration: PollerIntegration = {
    product: 'poller',
    integrationId: newId('int'),
    projectId,
    scope: 'general',
    tokenHash: hashToken(token),
    eventTypes: input.eventTypes ?? null,
    filter: input.filter ?? null,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
  await deps.integrations.create(integration);
  await deps.tokens.put(integration.tokenHash, { kind: 'poller', projectId, integrationId: integration.integrationId });
  return { integration, token };
}

/** A poller's `eventTypes` and `filter` (null: every type, no filter); read by each poll, so they apply at once. */
export function patchedPoller(current: PollerIntegration, input: PollerInput, at: string): PollerIntegration {
  return {
    ...current,
    ...(input.eventTypes !== undefined ? { eventTypes: input.eventTypes } : {}),
    ...(input.filter !== undefined ? { filter: input.filter } : {}),
    updatedAt: at,
    version: current.version + 1,
  };
}
