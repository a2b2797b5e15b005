import type { SecretBox } from '../kernel/secret-box.ts';
import type { WebhookAttemptStats, CountedAttempt } from './attempt-stats.ts';
import { makeAttemptThroughGate } from './attempt-through-gate.ts';
import { makeBatchHealth } from './batch-health.ts';
import { makeDeliverJob, type ReceivedMessage } from './deliver-job.ts';
import type { Outcome } from './delivery-steps.ts';
import type { DestinationSender } from './destination-sender.ts';
import type { EndpointGate } from './endpoint-gate.ts';
import type { WebhookNotices } from './notices.ts';
import type { Pacing } from './pacing.ts';
import type {
  DeliveryQueue,
  DeliveryStore,
  PayloadStore,
  QueuedJob,
  WebhookDirectory,
  WebhookHealthStore,
  WebhookSender,
} from './ports.ts';
import type { RetrySchedule } from './retry-schedule.ts';

export { DISABLE_AFTER_FAILING_MS } from './batch-health.ts';
export type { ReceivedMessage } from './deliver-job.ts';

/**
 * A deliver batch holding several messages of one FIFO group (AWS may hand over up to 10) attempts them one after
 * another; past this much of the batch's time the rest wait for the next receive (Lambda gives the batch 40 s).
 */
export const ORDERED_GROUP_BUDGET_MS = 20_000;

export interface DeliverDeps {
  directory: WebhookDirectory;
  deliveries: DeliveryStore;
  health: WebhookHealthStore;
  /** Hourly attempt counters for the console's health chart (folded per batch: one update per webhook and hour). */
  attemptStats?: WebhookAttemptStats;
  /** `webhook.failing` / `webhook.disabled`; without it a webhook is disabled with no notice. */
  notices?: WebhookNotices;
  queue: DeliveryQueue;
  payloads: PayloadStore;
  sender: WebhookSender;
  /** Queues, topics, buses, streams and buckets in customers' AWS accounts; without it such webhooks fail unsent. */
  destinations?: DestinationSender;
  gate: EndpointGate;
  /** The webhook's `rateLimitPerSecond` (absent: no webhook is paced). */
  pacing?: Pacing;
  secrets: SecretBox;
  schedule: RetrySchedule;
  userAgent: string;
  now?: () => number;
  random?: () => number;
  log?: (level: 'info' | 'warn' | 'error', message: string, details: Record<string, unknown>) => void;
}

/**
 * The deliver worker's use case, for one batch of jobs from the deliveries queues. For each job, concurrently (the
 * jobs of one FIFO group one after another, in order):
 *
 * 1. due (`secondsUntilDue`): wait in the queue if the job is not due yet (a wait longer than SQS visibility
 *    allows); an ordered job reads its delivery record instead (`orderedReceive`), as its message is never re-sent;
 * 2. target (`resolveTarget`): the sealed snapshot the fan-out put in the job (first receive, under a minute old),
 *    else a fresh read (retries, manual retries); a deleted webhook ends the delivery; a disabled one fails it
 *    unsent;
 * 3. pace (`pacing.ts`, `pacedBackJob`): a webhook with a `rateLimitPerSecond` gets its attempt started only in
 *    its turn; a job held back goes back on the queue until its reserved start, without an attempt;
 * 4. gate/park (`attemptThroughGate`, `parkedJob`): pass the endpoint gate (see `endpoint-gate.ts`): a destination
 *    that is hanging or has too many attempts in flight gets the job back on the queue with a delay, without an
 *    attempt (after half an hour of that, the attempt fails unsent and the retry schedule runs on);
 * 5. attempt: POST the body with `Authorization: Bearer` when configured and the Standard Webhooks headers
 *    (`webhook-id` = the event id on every attempt, `v1` / `v1a` signatures under every live secret and key), within
 *    the sender's 15 s deadline;
 * 6. decide and record (`decideAttempt`, `record`): write the attempt (one item write) with the status: succeeded
 *    (2xx); failed (410, a destination the SSRF guard refused, the last attempt, or a manual retry that did not
 *    succeed); else pending with the next attempt time from the retry schedule, no sooner than a 429 or 503
 *    answer's `Retry-After` asks;
 * 7. 410 disables the webhook (`gone`, with its `webhook.disabled` notice);
 * 8. schedule (`nextStepAfter`): a pending delivery's message is postponed (ChangeMessageVisibility) to the next
 *    attempt time, or re-sent with a delay when the wait is longer than a received message may stay invisible (an
 *    ordered job is postponed in place instead, `orderedStep`).
 *
 * Once the batch is done (`settle`): its attempts are folded per webhook and hour into the chart's counters (one
 * update each), and per webhook into its failing streak (one update, skipped for a webhook known not to be failing
 * that only succeeded), which may notice it (`webhook.failing`) or disable it after 5 days (`failing`).
 *
 * The rules are pure functions in `delivery-steps.ts`; one job's steps are `deliver-job.ts`, the attempt itself
 * `attempt-through-gate.ts`, the batch's bookkeeping `batch-health.ts`. Returns the ids of
 * the messages to leave on the queue (partial batch response).
 */
export function makeDeliver(deps: DeliverDeps) {
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const log = deps.log ?? (() => {});
  const health = makeBatchHealth({ ...deps, log });
  const deliverOne = makeDeliverJob({
    ...deps,
    attempt: makeAttemptThroughGate({ ...deps, now, random }),
    disable: health.disable,
    now,
    random,
    log,
  });

  async function deliverOrFail(message: ReceivedMessage, tally: CountedAttempt[]): Promise<Outcome> {
    try {
      return await deliverOne(message, tally);
    } catch (error) {
      log('error', 'delivery job failed; it will be received again', {
        messageId: message.messageId,
        error: String(error),
      });
      return { kind: 'fail' };
    }
  }

  /** Postpones the messages whose next attempt waits in place; every one of them stays on the queue. */
  async function postponeAll(postponed: { message: ReceivedMessage; seconds: number }[]): Promise<string[]> {
    if (!postponed.length) return [];
    const notPostponed = await deps.queue.postpone(
      postponed.map((p) => ({
        receiptHandle: p.message.receiptHandle,
        seconds: p.seconds,
        ...(p.message.groupId !== undefined ? { ordered: true } : {}),
      })),
    );
    // Every postponed message stays on the queue: that is how it comes back. One that could not be postponed
    // comes back after the queue's visibility timeout instead, a little early but not lost.
    if (notPostponed.size) log('warn', 'could not postpone some retries', { count: notPostponed.size });
    return postponed.map((p) => p.message.messageId);
  }

  /** Re-sends the jobs that wait elsewhere; returns the messages to keep because their job could not be re-sent. */
  async function requeueAll(requeued: { message: ReceivedMessage; queued: QueuedJob }[]): Promise<string[]> {
    if (!requeued.length) return [];
    const notSent = await deps.queue.enqueue(requeued.map((r) => r.queued));
    // A job that could not be re-sent stays on the queue and comes back after the visibility timeout.
    return [...notSent].map((index) => requeued[index]!.message.messageId);
  }

  return {
    async deliverBatch(messages: ReceivedMessage[]): Promise<string[]> {
      const tally: CountedAttempt[] = [];
      const outcomes = await inGroupOrder(messages, (m) => deliverOrFail(m, tally), now);
      const postponed: { message: ReceivedMessage; seconds: number }[] = [];
      const requeued: { message: ReceivedMessage; queued: QueuedJob }[] = [];
      const failed = new Set<string>();
      messages.forEach((message, i) => {
        const outcome = outcomes[i]!;
        if (outcome.kind === 'postpone') postponed.push({ message, seconds: outcome.seconds });
        else if (outcome.kind === 'requeue') requeued.push({ message, queued: outcome.queued });
        else if (outcome.kind === 'fail') failed.add(message.messageId);
      });
      // The batch's bookkeeping before its messages are acknowledged: counters, then the failing streaks.
      await Promise.all([health.countAttempts(tally), health.updateHealth(tally, now())]);
      const kept = [...(await postponeAll(postponed)), ...(await requeueAll(requeued))];
      return [...new Set([...kept, ...failed])];
    },
  };
}

/**
 * The batch's messages, concurrently, but those of one FIFO group one after another in the order received: once
 * one of them is not done (waiting for its retry, put back, failed), the later ones of its group wait as long
 * without an attempt (they must not overtake it), and so do those left when the group's time budget is spent.
 */
async function inGroupOrder(
  messages: ReceivedMessage[],
  run: (message: ReceivedMessage) => Promise<Outcome>,
  now: () => number,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(messages.length);
  const groups = new Map<string, number[]>();
  messages.forEach((m, i) => {
    const key = m.groupId === undefined ? `\u0000${i}` : `g${m.groupId}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  const batchStartedAt = now();
  await Promise.all(
    [...groups.values()].map(async (indexes) => {
      let blocked: Outcome | undefined;
      for (const i of indexes) {
        if (!blocked && indexes.length > 1 && now() - batchStartedAt > ORDERED_GROUP_BUDGET_MS)
          blocked = { kind: 'postpone', seconds: 1 };
        if (blocked) {
          outcomes[i] = blocked;
          continue;
        }
        outcomes[i] = await run(messages[i]!);
        if (outcomes[i]!.kind !== 'done') blocked = outcomes[i];
      }
    }),
  );
  return outcomes;
}
