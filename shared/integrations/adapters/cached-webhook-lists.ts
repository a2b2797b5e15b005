import type { OutboxMark } from '../../events/index.ts';
import type { IntegrationStore, WebhookIntegration, WebhookTarget } from '../integration.ts';
import { type DynamoIntegrationStore, webhookTarget } from './dynamo-integration-store.ts';

/** Room for two instances' clocks apart (both kept by the Amazon Time Sync Service: milliseconds apart). */
const CLOCK_ROOM_MS = 1_000;
/** A list is read afresh at least this often even with no change seen (memory, and a change marker lost). */
const MAX_AGE_MS = 60_000;
/** Projects remembered per instance; the least recently read is forgotten first. */
const MAX_PROJECTS = 1_000;

/**
 * The fan-out's view of the project's webhooks: a list read once and reused by later batches of the same instance
 * for as long as the project's change marker shows no webhook change since it was read. Each batch reads that one
 * marker item (its own partition) instead of querying the project's partition, which sends and deliveries read too
 * and which a busy project's fan-out would otherwise take most of. A webhook disabled (a 410, by another instance)
 * or deleted moves the marker before it changes, so the next batch anywhere reads the list afresh and the webhook
 * gets nothing more; a webhook created is sent the next batch's events, as without the list remembered.
 */
export class CachedWebhookLists
  implements Pick<IntegrationStore, 'listWebhooks' | 'getWebhook' | 'disableWebhook' | 'clearDisabledMark'>
{
  private readonly lists = new Map<string, { readAt: number; webhooks: WebhookIntegration[] }>();

  constructor(
    private readonly store: DynamoIntegrationStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async listWebhooks(projectId: string): Promise<WebhookTarget[]> {
    const changedBy = await this.store.webhooksChangedBy(projectId);
    const at = this.now();
    let list = this.lists.get(projectId);
    if (!list || list.readAt <= changedBy + CLOCK_ROOM_MS || at.getTime() - list.readAt > MAX_AGE_MS) {
      // Begun after the marker was read: a change that has landed by now is in it.
      list = { readAt: at.getTime(), webhooks: await this.store.webhookIntegrations(projectId) };
      this.lists.delete(projectId);
      this.lists.set(projectId, list);
      if (this.lists.size > MAX_PROJECTS) this.lists.delete(this.lists.keys().next().value as string);
    }
    // Signing secrets as live now: a previous secret stops signing when it expires, remembered list or not.
    return list.webhooks.map((webhook) => webhookTarget(webhook, at));
  }

  getWebhook(projectId: string, integrationId: string): Promise<WebhookTarget | undefined> {
    return this.store.getWebhook(projectId, integrationId);
  }

  disableWebhook(projectId: string, integrationId: string, reason: string, mark?: OutboxMark): Promise<boolean> {
    return this.store.disableWebhook(projectId, integrationId, reason, mark);
  }

  clearDisabledMark(projectId: string, integrationId: string, eventId: string): Promise<void> {
    return this.store.clearDisabledMark(projectId, integrationId, eventId);
  }
}
