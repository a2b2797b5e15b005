/**
 * After the last restart: waits until every acknowledged input's event has arrived (or nothing more comes), then
 * sends again by hand, as an operator would, the deliveries that used up their automatic attempts.
 */
import type { ReceivedDelivery } from '#test/e2e/webhooks-support.ts';
import type { Tally } from './tally.ts';
import { eventsSettings } from '#shared/events/index.ts';
import { readDestinationQueue, recentMarks, serviceQueues } from './queues.ts';
import type { Envelope } from './types.ts';
import type { World } from './world.ts';

/** The keys an acknowledged input may be expected under, of one delivered event. */
export const keyOf = (json: Envelope): string[] => {
  const d = json.data;
  const keys = [`${json.type}:${String(d.messageId)}`];
  // A deferred send's outcome: sent, or failed (refused then, or found mid-send after a kill: never sent again).
  if (json.type === 'message.sent' || json.type === 'message.failed') keys.push(`outcome:${String(d.messageId)}`);
  if (d.providerMessageId) keys.push(`${json.type}:${String(d.providerMessageId)}`);
  if (d.subject) keys.push(`${json.type}:subject:${String(d.subject)}`);
  if (d.marker) keys.push(`${json.type}:marker:${String(d.marker)}`);
  return keys;
};

/** Each event key with the time its first delivery reached the ordered webhook. */
export const orderedArrivals = (world: World) => {
  const first = new Map<string, number>();
  for (const r of [...world.orderedReceiver.received].sort((a, b) => a.arrivedAt - b.arrivedAt))
    for (const key of keyOf(r.json)) if (!first.has(key)) first.set(key, r.arrivedAt);
  return first;
};

/**
 * How recent an event mark the drain waits for: a kill between a change's write and its event's publication leaves
 * the event to the sweep, which publishes it once the mark is EVENT_SWEEP_AFTER_SECONDS old (the service restarted
 * meanwhile: its sweeper runs that long after its start, on its 5 s pace). A minute beyond that bound covers the
 * sweep's pace and a loaded machine; a mark older than that is the sweep's failure, and its event is reported lost.
 */
const MARKS_WAITED_FOR_MS = (eventsSettings.read().EVENT_SWEEP_AFTER_SECONDS + 60) * 1000;

/** A delivery as the management API lists it, with the webhook it belongs to. */
interface ListedDelivery {
  deliveryId: string;
  eventType: string;
  attempts: { statusCode?: number; error?: string }[];
  /** The webhook's path (`/projects/…/integrations/…`). */
  hook: string;
}

/** What the drain found; `recoveredFrom*`: where, in what arrived, the deliveries sent again by hand begin. */
export interface Drained {
  /** What the SQS destination's queue held, as deliveries. */
  fromQueue: ReceivedDelivery[];
  failedDeliveries: number;
  recoveredFrom: number;
  recoveredFromQueue: number;
  deadLetters: Record<string, number>;
}

export async function deliveriesIn(world: World, status: 'failed' | 'pending'): Promise<ListedDelivery[]> {
  const hooks = [
    `/projects/${world.main.projectId}/integrations/${world.main.webhookId}`,
    `/projects/${world.sqs.projectId}/integrations/${world.sqs.webhookId}`,
  ];
  const found: ListedDelivery[] = [];
  for (const hook of hooks) {
    let cursor: string | undefined;
    do {
      const page = await world.service.client.admin(
        'GET',
        `${hook}/deliveries?status=${status}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      found.push(...(page.body.items ?? []).map((d: object) => ({ ...d, hook })));
      cursor = page.body.nextCursor;
    } while (cursor);
  }
  return found;
}

/**
 * Until every acknowledged input has its event (and every received message its delivery to the ordered webhook), or
 * nothing new arrived for `drainSeconds` while the service's work queues held nothing and its table no recent event
 * mark (the backlog a run of kills leaves is worked through as long as deliveries keep coming, work is queued or the
 * sweep has events to publish), or half an hour. Resolves to what is
 * still missing.
 */
async function drainOnce(world: World, tally: Tally, drained: Drained): Promise<number> {
  const { receiver, orderedReceiver, log } = world;
  const drainSeconds = world.options.drainSeconds;
  const cap = Date.now() + 30 * 60_000;
  let lastCount = -1;
  let lastProgress = Date.now();
  for (;;) {
    await readDestinationQueue(world.localAws, world.sqs.queueUrl, drained.fromQueue).catch((error: unknown) =>
      log(`reading the SQS destination's queue: ${String(error)}`),
    );
    const seen = new Set([...receiver.received, ...drained.fromQueue].flatMap((r) => keyOf(r.json)));
    const arrived = orderedArrivals(world);
    const missing =
      tally.expected.filter((e) => !seen.has(e.key)).length +
      tally.orderedInputs.filter((i) => !arrived.has(i.key)).length;
    if (missing === 0 || Date.now() > cap) {
      log(`drain: ended, ${missing} missing`);
      return missing;
    }
    const count = receiver.received.length + orderedReceiver.received.length + drained.fromQueue.length;
    if (count !== lastCount) {
      lastCount = count;
      lastProgress = Date.now();
    } else if (Date.now() - lastProgress > drainSeconds * 1000) {
      const queued = await serviceQueues(world.localAws).catch((error: unknown) => {
        log(`reading the service's queues: ${String(error)}`);
        return { work: 0, dead: drained.deadLetters };
      });
      drained.deadLetters = queued.dead;
      const marks = await recentMarks(world.localAws, MARKS_WAITED_FOR_MS).catch((error: unknown) => {
        log(`reading the service's event marks: ${String(error)}`);
        return 0;
      });
      if (!queued.work && !marks) {
        log(`drain: no new delivery for ${drainSeconds} s and no work left: ended, ${missing} missing`);
        return missing;
      }
      // Work still queued, or events the sweep has yet to publish: what is missing may be in it. Waited for like a
      // delivery (until the cap).
      log(
        `drain: no new delivery for ${drainSeconds} s, ${queued.work} jobs still on the service's queues, ` +
          `${marks} events marked unpublished`,
      );
      lastProgress = Date.now() - (drainSeconds * 1000) / 2;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Drains; with events still missing, sends the failed deliveries again and drains again. A delivery that used up its
 * automatic attempts is `failed`, not lost: kept with every attempt, and sent again on request; what arrives then
 * counts as failed (recovered), never as delivered.
 */
export async function drain(world: World, tally: Tally): Promise<Drained> {
  const drained: Drained = {
    fromQueue: [],
    failedDeliveries: 0,
    recoveredFrom: Number.POSITIVE_INFINITY,
    recoveredFromQueue: Number.POSITIVE_INFINITY,
    deadLetters: {},
  };
  if ((await drainOnce(world, tally, drained)) === 0) return drained;
  const failed = await deliveriesIn(world, 'failed');
  drained.failedDeliveries = failed.length;
  if (!failed.length) return drained;
  const why = new Map<string, number>();
  for (const d of failed) {
    const last = d.attempts.at(-1);
    const reason = last?.error ?? `HTTP ${last?.statusCode ?? '?'}`;
    why.set(reason, (why.get(reason) ?? 0) + 1);
  }
  world.log(
    `${failed.length} failed deliveries (last attempt: ${[...why].map(([r, n]) => `${n}× ${r}`).join('; ')}): sent again`,
  );
  drained.recoveredFrom = world.receiver.received.length;
  drained.recoveredFromQueue = drained.fromQueue.length;
  for (const d of failed) await world.service.client.admin('POST', `${d.hook}/deliveries/${d.deliveryId}/retry`);
  await drainOnce(world, tally, drained);
  return drained;
}
