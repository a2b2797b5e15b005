import { failpoint } from '../kernel/failpoints.ts';
import type { SecretBox } from '../kernel/secret-box.ts';
import {
  type AttemptVerdict,
  attemptNumberOf,
  attemptWrite,
  DONE,
  decideAttempt,
  disabledWebhookWrite,
  endpointOf,
  expiredPayloadWrite,
  nextAttemptAtOf,
  nextStepAfter,
  type Outcome,
  parkedJob,
  pacedBackJob,
  parseDeliveryJob,
  secondsUntilDue,
  skipsDisabledWebhook,
  unansweredOutcome,
} from './delivery-steps.ts';
import type { WebhookAttemptStats } from './attempt-stats.ts';
import type { EndpointGate } from './endpoint-gate.ts';
import type { DeliveryJob } from './model.ts';
import type { Pacing } from './pacing.ts';
import type {
  AttemptOutcome,
  DeliveryQueue,
  DeliveryStore,
  PayloadStore,
  QueuedJob,
  WebhookDirectory,
  WebhookHealthStore,
  WebhookSender,
} from './ports.ts';
import type { RetrySchedule } from './retry-schedule.ts';
import { standardWebhookHeaders } from './signature.ts';
import { openSnapshot, snapshotOf, type TargetSnapshot } from './target-snapshot.ts';

/** A webhook failing every delivery for this long in a row is disabled (contract section 5). */
export const DISABLE_AFTER_FAILING_MS = 5 * 86400 * 1000;
/** Snapshots older than this are not trusted: the webhook is read again. */
const SNAPSHOT_MAX_AGE_MS = 60_000;
/** How long the health state learnt from the store is trusted before it is written again. */
const HEALTH_CACHE_MS = 60_000;

export interface ReceivedMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
  /** SQS ApproximateReceiveCount of this receive. */
  receiveCount: number;
}

export interface DeliverDeps {
  directory: WebhookDirectory;
  deliveries: DeliveryStore;
  health: WebhookHealthStore;
  /** Hourly attempt counters for the console's health chart (one atomic update per attempt). */
  attemptStats?: WebhookAttemptStats;
  queue: DeliveryQueue;
  payloads: PayloadStore;
  sender: WebhookSender;
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
 * The deliver worker's use case, for one batch of jobs from the `deliveries` queue. For each job, concurrently:
 *
 * 1. due (`secondsUntilDue`): wait in the queue if the job is not due yet (a wait longer than SQS visibility
 *    allows);
 * 2. target (`resolveTarget`): the sealed snapshot the fan-out put in the job (first receive, under a minute old),
 *    else a fresh read (retries, manual retries); a deleted webhook ends the delivery; a disabled one fails it
 *    unsent;
 * 3. pace (`pacing.ts`, `pacedBackJob`): a webhook with a `rateLimitPerSecond` gets its attempt started only in
 *    its turn; a job held back goes back on the queue until its reserved start, without an attempt;
 * 4. gate/park (`attemptThroughGate`, `parkedJob`): pass the endpoint gate (see `endpoint-gate.ts`): a destination
 *    that is hanging or has too many attempts in flight gets the job back on the queue with a delay, without an
 *    attempt (after half an hour of that, the attempt fails unsent and the retry schedule runs on);
 * 5. attempt: POST the body with `Authorization: Bearer` when configured and the Standard Webhooks headers
 *    (`webhook-id` = the event id on every attempt, signatures under every live secret), within the sender's 15 s
 *    deadline;
 * 6. decide and record (`decideAttempt`, `record`): write the attempt (one UpdateItem) with the status: succeeded
 *    (2xx); failed (410, a destination the SSRF guard refused, the last attempt, or a manual retry that did not
 *    succeed); else pending with the next attempt time from the retry schedule, no sooner than a 429 or 503
 *    answer's `Retry-After` asks;
 * 7. 410 disables the webhook (`gone`); a webhook failing every delivery for 5 days is disabled (`failing`);
 * 8. schedule (`nextStepAfter`): a pending delivery's message is postponed (ChangeMessageVisibility) to the next
 *    attempt time, or re-sent with a delay when the wait is longer than a received message may stay invisible.
 *
 * The rules are pure functions in `delivery-steps.ts`; this file does the reading and writing. Returns the ids of
 * the messages to leave on the queue (partial batch response).
 */
export function makeDeliver(deps: DeliverDeps) {
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const log = deps.log ?? (() => {});
  const healthCache = new Map<string, { failingSince: number | null; checkedAt: number }>();

  async function deliverOne(message: ReceivedMessage): Promise<Outcome> {
    const job = parseDeliveryJob(message.body);
    if (!job) {
      log('error', 'unreadable delivery job; left for the dead-letter queue', { messageId: message.messageId });
      return { kind: 'fail' };
    }
    const startedAt = now();
    const wait = secondsUntilDue(job, startedAt);
    if (wait !== undefined) return { kind: 'postpone', seconds: wait };
    const attemptNumber = attemptNumberOf(job, message.receiveCount);

    const target = await resolveTarget(job, message.receiveCount, startedAt);
    if (!target) return DONE; // the webhook was deleted: nothing to deliver, nobody to show it to
    if (!target.enabled && skipsDisabledWebhook(job)) {
      await deps.deliveries.recordAttempt(disabledWebhookWrite(job, startedAt, attemptNumber));
      return DONE;
    }
    const body = job.body ?? (await deps.payloads.get(job.bodyRef!));
    if (body === undefined) {
      await deps.deliveries.recordAttempt(expiredPayloadWrite(job, startedAt));
      return DONE;
    }

    const paced = await deps.pacing?.pace(job);
    if (paced && !paced.go) return { kind: 'requeue', queued: pacedBackJob(paced, attemptNumber) };

    const attempt = await attemptThroughGate(job, target, body, attemptNumber);
    if ('parked' in attempt) return { kind: 'requeue', queued: attempt.parked };

    const finishedAt = now();
    const verdict = decideAttempt(job, attempt.outcome, attemptNumber, deps.schedule, random, finishedAt);
    await record(job, { ...attempt, number: attemptNumber }, verdict, finishedAt);
    await updateHealth(job, attempt.outcome.kind === 'success', finishedAt);
    await countAttempt(job, attempt.outcome, finishedAt);
    if (verdict.status === 'failed' && verdict.webhookGone) {
      await deps.directory.disableWebhook(job.projectId, job.integrationId, 'gone');
      healthCache.delete(job.integrationId);
    }
    return nextStepAfter(job, verdict, attemptNumber, { startedAt, finishedAt });
  }

  /**
   * Asks the endpoint gate, then POSTs the body with the Standard Webhooks headers. A refused job is parked (put
   * back on the queue) unless it has been parked long enough, in which case the attempt counts as timed out unsent.
   */
  async function attemptThroughGate(
    job: DeliveryJob,
    target: TargetSnapshot,
    body: string,
    attemptNumber: number,
  ): Promise<{ at: number; outcome: AttemptOutcome } | { parked: QueuedJob }> {
    const endpoint = endpointOf(target.url);
    const decision = await deps.gate.enter(endpoint);
    const at = now();
    if (!decision.admitted) {
      const parked = parkedJob(job, decision, attemptNumber, random);
      return parked ? { parked } : { at, outcome: unansweredOutcome(endpoint) };
    }
    let outcome: AttemptOutcome | undefined;
    try {
      outcome = await deps.sender.send({ url: target.url, headers: requestHeaders(job, target, body, at), body });
      failpoint('after-attempt');
      return { at, outcome };
    } finally {
      // Released before the write: the destination's place is free as soon as it answered.
      decision.release(outcome?.kind ?? 'network');
    }
  }

  function requestHeaders(job: DeliveryJob, target: TargetSnapshot, body: string, at: number) {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': deps.userAgent,
      ...standardWebhookHeaders(target.signingSecrets, job.eventId, Math.floor(at / 1000), body),
    };
    if (target.bearerToken) headers.authorization = `Bearer ${target.bearerToken}`;
    return headers;
  }

  async function record(
    job: DeliveryJob,
    attempt: { at: number; outcome: AttemptOutcome; number: number },
    verdict: AttemptVerdict,
    finishedAt: number,
  ): Promise<void> {
    await deps.deliveries.recordAttempt(attemptWrite(job, attempt, verdict, nextAttemptAtOf(verdict, finishedAt)));
    failpoint('after-attempt-record');
    if (attempt.outcome.kind !== 'success') {
      log('info', 'delivery attempt failed', {
        deliveryId: job.deliveryId,
        integrationId: job.integrationId,
        attempt: attempt.number,
        kind: attempt.outcome.kind,
        status: verdict.status,
      });
    }
  }

  async function resolveTarget(
    job: DeliveryJob,
    receiveCount: number,
    at: number,
  ): Promise<TargetSnapshot | undefined> {
    if (
      job.sealedTarget &&
      job.targetReadAt !== undefined &&
      receiveCount === 1 &&
      job.attemptsBefore === 0 &&
      at - job.targetReadAt < SNAPSHOT_MAX_AGE_MS
    ) {
      try {
        return openSnapshot(deps.secrets, job.deliveryId, job.sealedTarget);
      } catch {
        log('warn', 'delivery job snapshot unreadable; reading the webhook', { deliveryId: job.deliveryId });
      }
    }
    const fresh = await deps.directory.getWebhook(job.projectId, job.integrationId);
    return fresh ? snapshotOf(fresh) : undefined;
  }

  /**
   * Tracks "failing since" per webhook with writes only when it changes: the state read back from the store is
   * trusted for a minute, so a healthy or a dead receiver costs no health write per attempt.
   */
  async function updateHealth(job: DeliveryJob, succeeded: boolean, at: number): Promise<void> {
    const cached = healthCache.get(job.integrationId);
    const fresh = cached !== undefined && at - cached.checkedAt < HEALTH_CACHE_MS;
    try {
      if (succeeded) {
        if (fresh && cached.failingSince === null) return;
        await deps.health.recordSuccess(job.projectId, job.integrationId, at);
        healthCache.set(job.integrationId, { failingSince: null, checkedAt: at });
        return;
      }
      if (fresh && cached.failingSince !== null && at - cached.failingSince < DISABLE_AFTER_FAILING_MS) return;
      const failingSince = await deps.health.recordFailure(job.projectId, job.integrationId, at);
      healthCache.set(job.integrationId, { failingSince, checkedAt: at });
      if (at - failingSince >= DISABLE_AFTER_FAILING_MS) {
        log('warn', 'webhook failing for 5 days: disabled', {
          integrationId: job.integrationId,
          failingSince: new Date(failingSince).toISOString(),
        });
        await deps.directory.disableWebhook(job.projectId, job.integrationId, 'failing');
        healthCache.delete(job.integrationId);
      }
    } catch (error) {
      // Health bookkeeping never fails a delivery that already happened.
      log('warn', 'webhook health not updated', { integrationId: job.integrationId, error: String(error) });
    }
  }

  /** Adds the attempt to its hour's counters; like the health state, never fails a delivery that happened. */
  async function countAttempt(job: DeliveryJob, outcome: AttemptOutcome, at: number): Promise<void> {
    if (!deps.attemptStats) return;
    try {
      await deps.attemptStats.record(job.projectId, job.integrationId, {
        at,
        succeeded: outcome.kind === 'success',
        durationMs: outcome.durationMs,
      });
    } catch (error) {
      log('warn', 'webhook attempt counters not updated', { integrationId: job.integrationId, error: String(error) });
    }
  }

  async function deliverOrFail(message: ReceivedMessage): Promise<Outcome> {
    try {
      return await deliverOne(message);
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
      postponed.map((p) => ({ receiptHandle: p.message.receiptHandle, seconds: p.seconds })),
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
      const outcomes = await Promise.all(messages.map(deliverOrFail));
      const postponed: { message: ReceivedMessage; seconds: number }[] = [];
      const requeued: { message: ReceivedMessage; queued: QueuedJob }[] = [];
      const failed = new Set<string>();
      messages.forEach((message, i) => {
        const outcome = outcomes[i]!;
        if (outcome.kind === 'postpone') postponed.push({ message, seconds: outcome.seconds });
        else if (outcome.kind === 'requeue') requeued.push({ message, queued: outcome.queued });
        else if (outcome.kind === 'fail') failed.add(message.messageId);
      });
      const kept = [...(await postponeAll(postponed)), ...(await requeueAll(requeued))];
      return [...new Set([...kept, ...failed])];
    },
  };
}
