import type { WebhookTarget } from '../integrations/index.ts';
import type { SecretBox } from '../kernel/secret-box.ts';
import { eventMessageSchema, type EventMessage } from '../events/index.ts';
import { deliveryIdFor, deliveryJobFor } from './model.ts';
import type { DeliveryQueue, QueuedJob, WebhookDirectory } from './ports.ts';
import { sealSnapshot, snapshotOf } from './target-snapshot.ts';

export interface FanoutDeps {
  directory: WebhookDirectory;
  queue: DeliveryQueue;
  secrets: SecretBox;
  now?: () => number;
  log?: (level: 'info' | 'warn' | 'error', message: string, details: Record<string, unknown>) => void;
}

export interface ReceivedEvent {
  messageId: string;
  body: string;
}

/**
 * The webhooks an event goes to (contract section 5): every enabled webhook of its project that applies (the
 * general one, and the channel-scoped ones of the event's channel: a union, each once), filtered by `eventTypes`
 * when set. A `webhook.test` aimed at one webhook goes to that webhook only, whatever its filter or state: it is
 * an explicit request to try the endpoint.
 */
export function applicableWebhooks(
  webhooks: readonly WebhookTarget[],
  event: Pick<EventMessage, 'eventType' | 'channelId' | 'onlyIntegrationId'>,
): WebhookTarget[] {
  if (event.onlyIntegrationId !== undefined) return webhooks.filter((w) => w.integrationId === event.onlyIntegrationId);
  const chosen = new Map<string, WebhookTarget>();
  for (const w of webhooks) {
    if (!w.enabled) continue;
    const inScope = w.scope === 'general' || (event.channelId !== null && w.channelId === event.channelId);
    const wanted = w.eventTypes === null || w.eventTypes.includes(event.eventType);
    if (inScope && wanted) chosen.set(w.integrationId, w);
  }
  return [...chosen.values()];
}

/**
 * The fan-out worker's use case, for one batch of events: one Query per project (per event at most) for its
 * webhooks, then one delivery job per applicable webhook, sent in batches to the `deliveries` queue. Each job
 * carries the body exactly as it will be signed and a sealed snapshot of its webhook, so the first attempt needs
 * no read. Returns the ids of the events to receive again (partial batch response).
 */
export function makeFanout(deps: FanoutDeps) {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? (() => {});

  /** Parses each message; an unreadable one is marked failed (it goes to the dead-letter queue). */
  function parseEvents(messages: ReceivedEvent[], failed: Set<string>) {
    const events: { messageId: string; event: EventMessage }[] = [];
    for (const m of messages) {
      try {
        events.push({ messageId: m.messageId, event: eventMessageSchema.parse(JSON.parse(m.body)) });
      } catch {
        log('error', 'unreadable event message; left for the dead-letter queue', { messageId: m.messageId });
        failed.add(m.messageId);
      }
    }
    return events;
  }

  /** One job per webhook the event goes to, each with a sealed snapshot of the webhook as read now. */
  async function jobsFor(event: EventMessage, webhooks: Promise<WebhookTarget[]>): Promise<QueuedJob[]> {
    const readAt = now();
    return applicableWebhooks(await webhooks, event).map((target) => {
      const deliveryId = deliveryIdFor(event.eventId, target.integrationId);
      const job = deliveryJobFor(
        { ...event, integrationId: target.integrationId, deliveryId },
        {
          manual: false,
          acceptedAt: event.acceptedAt,
          sealedTarget: sealSnapshot(deps.secrets, deliveryId, snapshotOf(target)),
          targetReadAt: readAt,
        },
      );
      return { job };
    });
  }

  /** Enqueues the jobs of the events that were fanned out whole; an event with a job not sent is marked failed. */
  async function enqueueReady(queued: { messageId: string; job: QueuedJob }[], failed: Set<string>): Promise<void> {
    const ready = queued.filter((q) => !failed.has(q.messageId));
    if (!ready.length) return;
    // An event whose jobs were only partly enqueued is received again; the jobs already sent repeat with the
    // same delivery id and webhook-id, which receivers use to drop duplicates.
    const notSent = await deps.queue.enqueue(ready.map((q) => q.job));
    for (const index of notSent) failed.add(ready[index]!.messageId);
  }

  return {
    async fanoutBatch(messages: ReceivedEvent[]): Promise<string[]> {
      const failed = new Set<string>();
      const events = parseEvents(messages, failed);
      const webhooksByProject = new Map<string, Promise<WebhookTarget[]>>();
      const queued: { messageId: string; job: QueuedJob }[] = [];
      await Promise.all(
        events.map(async ({ messageId, event }) => {
          try {
            let webhooks = webhooksByProject.get(event.projectId);
            if (!webhooks) {
              webhooks = deps.directory.listWebhooks(event.projectId);
              webhooksByProject.set(event.projectId, webhooks);
            }
            for (const job of await jobsFor(event, webhooks)) queued.push({ messageId, job });
          } catch (error) {
            log('warn', 'event not fanned out; it will be received again', {
              messageId,
              eventId: event.eventId,
              error: String(error),
            });
            failed.add(messageId);
          }
        }),
      );
      await enqueueReady(queued, failed);
      return [...failed];
    },
  };
}
