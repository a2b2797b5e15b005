import { matchesFilter, type WebhookTarget } from '../integrations/index.ts';
import type { SecretBox } from '../kernel/secret-box.ts';
import {
  type EventEnvelope,
  eventMessageSchema,
  type EventMessage,
  messageGroupIdOf,
  orderingKeyOf,
} from '../events/index.ts';
import { bodyStoredOncePerEvent, deliveryIdFor, deliveryJobFor } from './model.ts';
import type { DeliveryQueue, EventBodies, PayloadStore, QueuedJob, WebhookDirectory } from './ports.ts';
import { sealSnapshot, snapshotOf } from './target-snapshot.ts';

/** What else an event sets off besides its deliveries: the notice email of a `webhook.failing` or `.disabled`. */
export interface EventSideEffects {
  /** Resolves once done (or not needed); rejects to have the event received again. */
  handle(event: EventMessage, envelope: () => Promise<EventEnvelope | undefined>): Promise<void>;
}

export interface FanoutDeps {
  directory: WebhookDirectory;
  queue: DeliveryQueue;
  /** Where an event's body is stored once for all its webhooks (their records do not copy it). */
  bodies: EventBodies;
  secrets: SecretBox;
  /** Where a large event body is parked: read only when a webhook's filter or a side effect needs the envelope. */
  payloads?: Pick<PayloadStore, 'get'>;
  sideEffects?: EventSideEffects;
  /**
   * Every event of the batch is kept for pollers before any job is queued: a batch whose events were not all stored
   * is received again (an event may then be stored twice; pollers read at least once, as webhooks deliver).
   */
  eventLog?: {
    append(
      events: { projectId: string; eventId: string; eventType: string; body?: string; bodyRef?: string }[],
    ): Promise<void>;
  };
  now?: () => number;
  log?: (level: 'info' | 'warn' | 'error', message: string, details: Record<string, unknown>) => void;
}

export interface ReceivedEvent {
  messageId: string;
  body: string;
  /** The FIFO message group the queue received it in (SQS attribute `MessageGroupId`). */
  groupId?: string;
}

/**
 * The webhooks an event goes to (docs/reference/webhooks.md): every enabled webhook of its project that applies (the
 * general one, and the channel-scoped ones of the event's channel: a union, each once), filtered by `eventTypes`
 * when set, but the one a notice is about (`exceptIntegrationId`). A `webhook.test` aimed at one webhook goes to that
 * webhook only, whatever its filters or state: it is an explicit request to try the endpoint. Each webhook's
 * `filter` is applied after this (it needs the envelope).
 */
export function applicableWebhooks(
  webhooks: readonly WebhookTarget[],
  event: Pick<EventMessage, 'eventType' | 'channelId' | 'onlyIntegrationId' | 'exceptIntegrationId'>,
): WebhookTarget[] {
  if (event.onlyIntegrationId !== undefined) return webhooks.filter((w) => w.integrationId === event.onlyIntegrationId);
  const chosen = new Map<string, WebhookTarget>();
  for (const w of webhooks) {
    if (!w.enabled || w.integrationId === event.exceptIntegrationId) continue;
    const inScope = w.scope === 'general' || (event.channelId !== null && w.channelId === event.channelId);
    const wanted = w.eventTypes === null || w.eventTypes.includes(event.eventType);
    if (inScope && wanted) chosen.set(w.integrationId, w);
  }
  return [...chosen.values()];
}

/**
 * The fan-out worker's use case, for one batch of events: one Query per project (per event at most) for its
 * webhooks, then one delivery job per applicable webhook whose filter the event passes, sent in batches to the
 * deliveries queues (an ordered webhook's jobs to the FIFO one, in its conversation's group). Each job carries the
 * body exactly as it will be signed and a sealed snapshot of its webhook, so the first attempt needs no read; a body
 * too large to sit in each delivery record is also stored once for the event, for retries by hand and `recover`
 * (`bodyStoredOncePerEvent`; the puts of a batch share calls). The body is parsed only when a filter or a side effect
 * needs the envelope.
 *
 * The events queue is FIFO by conversation: a batch may hold several events of one key, in order. Their jobs are
 * queued in that order, and once one of them fails every later one of its key fails too (received again after it),
 * so a key's deliveries are never queued out of order. Returns the ids of the events to receive again (partial batch
 * response).
 */
export function makeFanout(deps: FanoutDeps) {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? (() => {});

  /** The envelope of an event, read once and only if asked for (a large body comes from the payload store). */
  function lazyEnvelope(event: EventMessage): () => Promise<EventEnvelope | undefined> {
    let read: Promise<EventEnvelope | undefined> | undefined;
    return () => {
      read ??= (async () => {
        const body =
          event.body ?? (event.bodyRef && deps.payloads ? await deps.payloads.get(event.bodyRef) : undefined);
        return body === undefined ? undefined : (JSON.parse(body) as EventEnvelope);
      })();
      return read;
    };
  }

  /** One job per webhook the event goes to, each with a sealed snapshot of the webhook as read now. */
  async function jobsFor(event: EventMessage, webhooks: Promise<WebhookTarget[]>): Promise<QueuedJob[]> {
    const envelope = lazyEnvelope(event);
    await deps.sideEffects?.handle(event, envelope);
    let targets = applicableWebhooks(await webhooks, event);
    if (event.onlyIntegrationId === undefined && targets.some((t) => t.filter)) {
      const parsed = await envelope();
      if (parsed === undefined) throw new Error('the event body is gone; its filters cannot be applied');
      targets = targets.filter((t) => matchesFilter(t.filter, parsed));
    }
    // Stored before any job is queued: a retry by hand or a recover of any of its deliveries reads it here.
    if (targets.length && event.body !== undefined && bodyStoredOncePerEvent(event.body)) {
      await deps.bodies.put(event.eventId, event.body);
    }
    const readAt = now();
    const orderKey = orderingKeyOf(event);
    return targets.map((target) => {
      const deliveryId = deliveryIdFor(event.eventId, target.integrationId);
      const job = deliveryJobFor(
        { ...event, integrationId: target.integrationId, deliveryId, orderKey },
        {
          manual: false,
          acceptedAt: event.acceptedAt,
          sealedTarget: sealSnapshot(deps.secrets, deliveryId, snapshotOf(target)),
          targetReadAt: readAt,
          // A test is an explicit try of the endpoint, not part of a conversation: it never waits behind one.
          ordered: target.ordering === 'conversation' && event.onlyIntegrationId === undefined,
        },
      );
      return { job };
    });
  }

  /**
   * Enqueues the jobs of the events that were fanned out whole, in batch order; an event with a job not sent is
   * marked failed, and so is every later event of its key (they come back after it).
   */
  async function enqueueReady(
    events: { messageId: string; group: string; jobs?: QueuedJob[] }[],
    failed: Set<string>,
  ): Promise<void> {
    failLaterOfFailedGroups(events, failed);
    const queued = events.flatMap((e) => (failed.has(e.messageId) ? [] : (e.jobs ?? []).map((job) => ({ e, job }))));
    if (queued.length) {
      // An event whose jobs were only partly enqueued is received again; the jobs already sent repeat with the
      // same delivery id and webhook-id (an ordered one is dropped by the FIFO queue's deduplication).
      const notSent = await deps.queue.enqueue(queued.map((q) => q.job));
      for (const index of notSent) failed.add(queued[index]!.e.messageId);
    }
    failLaterOfFailedGroups(events, failed);
  }

  return {
    async fanoutBatch(messages: ReceivedEvent[]): Promise<string[]> {
      const failed = new Set<string>();
      const { events, unreadable } = parseEvents(messages, failed, log);
      if (deps.eventLog && events.length) {
        try {
          await deps.eventLog.append(events.map(({ event }) => loggedEventOf(event)));
        } catch (error) {
          log('warn', 'events not kept for pollers; the batch will be received again', { error: String(error) });
          return messages.map((m) => m.messageId);
        }
      }
      const webhooksByProject = new Map<string, Promise<WebhookTarget[]>>();
      const results = await Promise.all(
        events.map(async ({ messageId, group, event }) => {
          try {
            let webhooks = webhooksByProject.get(event.projectId);
            if (!webhooks) {
              webhooks = deps.directory.listWebhooks(event.projectId);
              webhooksByProject.set(event.projectId, webhooks);
            }
            return { messageId, group, jobs: await jobsFor(event, webhooks) };
          } catch (error) {
            log('warn', 'event not fanned out; it will be received again', {
              messageId,
              eventId: event.eventId,
              error: String(error),
            });
            failed.add(messageId);
            return { messageId, group };
          }
        }),
      );
      const position = new Map(messages.map((m, i) => [m.messageId, i]));
      const inBatchOrder = [...results, ...unreadable].sort(
        (a, b) => position.get(a.messageId)! - position.get(b.messageId)!,
      );
      await enqueueReady(inBatchOrder, failed);
      return [...failed];
    },
  };
}

/** Parses each message; an unreadable one is marked failed (it goes to the dead-letter queue). */
function parseEvents(messages: ReceivedEvent[], failed: Set<string>, log: NonNullable<FanoutDeps['log']>) {
  const events: { messageId: string; group: string; event: EventMessage }[] = [];
  const unreadable: { messageId: string; group: string }[] = [];
  for (const m of messages) {
    try {
      const event = eventMessageSchema.parse(JSON.parse(m.body));
      events.push({
        messageId: m.messageId,
        group: m.groupId ?? messageGroupIdOf(event.projectId, orderingKeyOf(event)),
        event,
      });
    } catch {
      log('error', 'unreadable event message; left for the dead-letter queue', { messageId: m.messageId });
      failed.add(m.messageId);
      unreadable.push({ messageId: m.messageId, group: m.groupId ?? m.messageId });
    }
  }
  return { events, unreadable };
}

/** In batch order: an event after a failed one of its group fails too (FIFO: it must not overtake it). */
function failLaterOfFailedGroups(events: { messageId: string; group: string }[], failed: Set<string>): void {
  const failedGroups = new Set<string>();
  for (const e of events) {
    if (failedGroups.has(e.group)) failed.add(e.messageId);
    else if (failed.has(e.messageId)) failedGroups.add(e.group);
  }
}

function loggedEventOf(event: EventMessage) {
  return {
    projectId: event.projectId,
    eventId: event.eventId,
    eventType: event.eventType,
    ...(event.body !== undefined ? { body: event.body } : {}),
    ...(event.bodyRef !== undefined ? { bodyRef: event.bodyRef } : {}),
  };
}
