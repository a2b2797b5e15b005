import { ConflictError } from '../kernel/domain-error.ts';
import type { IntegrationStore } from './integration.ts';

/** A general-webhook slot claimed by a create that has not written its integration yet is not stolen before this. */
const SLOT_CLAIM_GRACE_MS = 60_000;

/**
 * Takes the project's one enabled-general-webhook slot, or 409. A slot whose holder is gone, disabled, or no
 * longer general (a crash between two writes) is taken over; a fresh claim of a create still in flight is not.
 */
export async function claimGeneralSlot(
  store: IntegrationStore,
  now: () => Date,
  projectId: string,
  integrationId: string,
): Promise<void> {
  if (await store.claimGeneralWebhook(projectId, integrationId)) return;
  const slot = await store.generalWebhookHolder(projectId);
  if (slot === undefined) {
    if (await store.claimGeneralWebhook(projectId, integrationId)) return;
  } else {
    const holder = await store.get(projectId, slot.integrationId);
    const live = holder?.product === 'webhook' && holder.scope === 'general' && holder.enabled;
    const maybeInFlight = holder === undefined && now().getTime() - slot.claimedAt < SLOT_CLAIM_GRACE_MS;
    if (!live && !maybeInFlight && (await store.claimGeneralWebhook(projectId, integrationId, slot.integrationId)))
      return;
  }
  throw new ConflictError('This project already has an enabled general webhook; disable or delete it first.');
}
