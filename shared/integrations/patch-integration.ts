import type { WebhookEventType } from '../events/index.ts';
import { ValidationError } from '../kernel/domain-error.ts';
import { externalIdOf, requireProject } from '../projects/index.ts';
import type { WebhookFilter } from '../contract/webhook-filter.ts';
import { movedWebhookDestination } from './check-destination.ts';
import type { WebhookDestination } from './destination.ts';
import { claimGeneralSlot } from './general-slot.ts';
import { requireIntegration, saveOr409, type UseCaseDeps } from './integration-access.ts';
import {
  type Integration,
  PREVIOUS_SECRET_GRACE_MS,
  type SignatureScheme,
  type WebhookIntegration,
  type WebhookOrdering,
} from './integration.ts';
import { patchedPoller } from './manage-pollers.ts';
import { generateSigningKey, generateSigningSecret } from './signing-keys.ts';

export interface PatchWebhookInput {
  url?: string;
  /** Replaces the destination; a move to `http` needs a `url` (given or kept), a move away from it drops the URL. */
  destination?: WebhookDestination;
  /** null removes it. */
  bearerToken?: string | null;
  /** null subscribes to every type. */
  eventTypes?: WebhookEventType[] | null;
  /** null removes the limit. */
  rateLimitPerSecond?: number | null;
  ordering?: WebhookOrdering;
  /** A switch keeps the other scheme's credentials signing for 24 h beside the new ones. */
  signature?: SignatureScheme;
  /** null removes it. */
  filter?: WebhookFilter | null;
  enabled?: boolean;
}

type Deps = UseCaseDeps<'integrations' | 'projects' | 'allowPrivateDestinations'>;

/**
 * Changes a webhook's URL, bearer token, event types, limit, ordering, signature scheme, filter or enabled flag, or a
 * poller's event types and filter. A switch to `v1` answers with a fresh signing secret, shown once.
 */
export function makePatchIntegration(deps: Deps) {
  const store = deps.integrations;
  return async (
    projectId: string,
    integrationId: string,
    input: PatchWebhookInput,
  ): Promise<{ integration: Integration; signingSecret?: string }> => {
    const current = await requireIntegration(deps, projectId, integrationId);
    if (current.product === 'poller') {
      const next = patchedPoller(current, input, deps.now().toISOString());
      await saveOr409(store, next);
      return { integration: next };
    }
    if (current.product !== 'webhook') {
      throw new ValidationError('A custom integration has nothing to change: rotate its token or delete it.', [
        { path: '', message: 'Only webhook integrations can be patched', code: 'custom' },
      ]);
    }
    const destination =
      input.destination === undefined && input.url === undefined
        ? undefined
        : await movedDestination(deps, current, { ...input, destination: input.destination ?? current.destination });
    const next: WebhookIntegration = {
      ...current,
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...destination,
      ...(input.bearerToken !== undefined ? { bearerToken: input.bearerToken } : {}),
      ...(input.eventTypes !== undefined ? { eventTypes: input.eventTypes } : {}),
      ...(input.rateLimitPerSecond !== undefined ? { rateLimitPerSecond: input.rateLimitPerSecond } : {}),
      ...(input.ordering !== undefined ? { ordering: input.ordering } : {}),
      ...(input.filter !== undefined ? { filter: input.filter } : {}),
      updatedAt: deps.now().toISOString(),
      version: current.version + 1,
    };
    const shownSecret = switchScheme(next, current, input.signature, deps.now);
    const enabling = input.enabled === true && !current.enabled;
    const disabling = input.enabled === false && current.enabled;
    if (enabling) Object.assign(next, { enabled: true, disabledReason: null });
    if (disabling) Object.assign(next, { enabled: false, disabledReason: 'manual' });

    if (enabling && next.scope === 'general') await claimGeneralSlot(store, deps.now, projectId, integrationId);
    try {
      await saveOr409(store, next);
    } catch (error) {
      if (enabling && next.scope === 'general') await store.releaseGeneralWebhook(projectId, integrationId);
      throw error;
    }
    if (disabling && next.scope === 'general') await store.releaseGeneralWebhook(projectId, integrationId);
    return shownSecret === undefined ? { integration: next } : { integration: next, signingSecret: shownSecret };
  };
}

/**
 * Applies a change of signature scheme to `next` (in place): the scheme left keeps signing for 24 h as the previous
 * credential, so receivers move over without a gap; the new one gets fresh credentials. Returns the new `v1`
 * secret, to show once.
 */
function switchScheme(
  next: WebhookIntegration,
  current: WebhookIntegration,
  scheme: SignatureScheme | undefined,
  now: () => Date,
): string | undefined {
  if (scheme === undefined || scheme === current.signature) return undefined;
  const expiresAt = new Date(now().getTime() + PREVIOUS_SECRET_GRACE_MS).toISOString();
  next.signature = scheme;
  if (scheme === 'v1a') {
    next.previousSigningSecret = { secret: current.signingSecret, expiresAt };
    next.signingKey = generateSigningKey();
    return undefined;
  }
  if (current.signingKey) next.previousSigningKey = { key: current.signingKey, expiresAt };
  next.signingSecret = generateSigningSecret();
  return next.signingSecret;
}

/** The fields a PATCH of `destination` changes, checked. */
async function movedDestination(deps: Deps, current: WebhookIntegration, input: PatchWebhookInput) {
  const target = input.destination ?? { type: 'http' as const };
  const moved = movedWebhookDestination(current, target, input.url, deps.allowPrivateDestinations);
  if (!moved.destination) return moved;
  return { ...moved, externalId: externalIdOf(await requireProject(deps.projects, current.projectId)) };
}
