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
  orderedReceive,
  orderedStep,
  type Outcome,
  parkedJob,
  pacedBackJob,
  parseDeliveryJob,
  secondsUntilDue,
  skipsDisabledWebhook,
  unansweredOutcome,
} from './delivery-steps.ts';
import type { CountedAttempt, WebhookAttemptStats } from './attempt-stats.ts';
import type { EndpointGate } from './endpoint-gate.ts';
import type { DeliveryJob } from './model.ts';
import type { Pacing } from './pacing.ts';
import type {
  AttemptOutcome,
  DeliveryQueue,
  DeliveryStore,
  HealthFold,
  PayloadStore,
  QueuedJob,
  WebhookDirectory,
  WebhookHealthStore,
  WebhookSender,
} from './ports.ts';
import type { RetrySchedule } from './retry-schedule.ts';
import { standardWebhookHeaders } from './signature.ts';
import { openSnapshot, snapshotOf, type TargetSnapshot } from './target-snapshot.ts';
import type { WebhookNotices } from './notices.ts';

/** A webhook failing every delivery for this long in a row is disabled (contract section 5). */
export const DISABLE_AFTER_FAILING_MS = 5 * 86400 * 1000;
/** Snapshots older than this are not trusted: the webhook is read again. */
const SNAPSHOT_MAX_AGE_MS = 60_000;
/** How long "this webhook is not failing", learnt from the store, spares a success its health write. */
const HEALTH_CACHE_MS = 60_000;
/**
 * A deliver batch holding several messages of one FIFO group (AWS may hand over up to 10) attempts them one after
 * another; past this much of the batch's time the rest wait for the next receive (Lambda gives the batch 40 s).
 */
export const ORDERED_GROUP_BUDGET_MS = 20_000;

export interface ReceivedMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
  /** SQS ApproximateReceiveCount of this receive. */
  receiveCount: number;
  /** The FIFO message group (ordered webhooks' queue); absent on the standard queue. */
  groupId?: string;
}

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

/** What a batch's attempts add up to, written once the batch is done. */
type Tally = CountedAttempt[];

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
 * The rules are pure functions in `delivery-steps.ts`; this file does the reading and writing. Returns the ids of
 * the messages to leave on the queue (partial batch response).
 */
export function makeDeliver(deps: DeliverDeps) {
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const log = deps.log ?? (() => {});
  /** Webhooks known (from the store, within {@link HEALTH_CACHE_MS}) not to be failing. */
  const notFailing = new Map<string, number>();
  /**
   * Webhooks known (from the store, within {@link HEALTH_CACHE_MS}) to be failing with their notice already written:
   * more failures change nothing anyone reads until a success or the 5 days, so a batch of failures writes nothing
   * (a dead endpoint at thousands of deliveries a second would otherwise write its project's partition per batch).
   */
  const failingNoticed = new Map<string, number>();

  async function deliverOne(message: ReceivedMessage, tally: Tally): Promise<Outcome> {
    const job = parseDeliveryJob(message.body);
    if (!job) {
      log('error', 'unreadable delivery job; left for the dead-letter queue', { messageId: message.messageId });
      // A FIFO group waits behind its message: come back soon, so it reaches the dead-letter queue soon.
      return message.groupId === undefined ? { kind: 'fail' } : { kind: 'postpone', seconds: 1 };
    }
    const startedAt = now();
    let attemptNumber = attemptNumberOf(job, message.receiveCount);
    let deferrals = job.deferrals;
    if (job.ordered && (message.receiveCount > 1 || job.manual)) {
      const record = await deps.deliveries.get(job.projectId, job.integrationId, job.deliveryId);
      const receive = orderedReceive(job, record, message.receiveCount, startedAt);
      if (receive.kind === 'done') return DONE;
      if (receive.kind === 'postpone') return receive;
      ({ attemptNumber, deferrals } = receive);
    } else {
      const wait = secondsUntilDue(job, startedAt);
      if (wait !== undefined) return { kind: 'postpone', seconds: wait };
    }
    const outcome = await attemptJob({ ...job, deferrals }, message, attemptNumber, startedAt, tally);
    return job.ordered ? orderedStep(outcome.step, outcome.retryInSeconds) : outcome.step;
  }

  async function attemptJob(
    job: DeliveryJob,
    message: ReceivedMessage,
    attemptNumber: number,
    startedAt: number,
    tally: Tally,
  ): Promise<{ step: Outcome; retryInSeconds?: number }> {
    const target = await resolveTarget(job, message.receiveCount, startedAt);
    if (!target) return { step: DONE }; // the webhook was deleted: nothing to deliver, nobody to show it to
    if (!target.enabled && skipsDisabledWebhook(job)) {
      await deps.deliveries.recordAttempt(disabledWebhookWrite(job, startedAt, attemptNumber));
      return { step: DONE };
    }
    const body = job.body ?? (await deps.payloads.get(job.bodyRef!));
    if (body === undefined) {
      await deps.deliveries.recordAttempt(expiredPayloadWrite(job, startedAt));
      return { step: DONE };
    }

    const paced = await deps.pacing?.pace(job);
    if (paced && !paced.go) return { step: { kind: 'requeue', queued: pacedBackJob(paced, attemptNumber) } };

    const attempt = await attemptThroughGate(job, target, body, attemptNumber);
    if ('parked' in attempt) return { step: { kind: 'requeue', queued: attempt.parked } };

    const finishedAt = now();
    const verdict = decideAttempt(job, attempt.outcome, attemptNumber, deps.schedule, random, finishedAt);
    await record(job, { ...attempt, number: attemptNumber }, verdict, finishedAt);
    tally.push({
      projectId: job.projectId,
      integrationId: job.integrationId,
      at: finishedAt,
      succeeded: attempt.outcome.kind === 'success',
      durationMs: attempt.outcome.durationMs,
    });
    if (verdict.status === 'failed' && verdict.webhookGone) await disable(job, 'gone');
    return {
      step: nextStepAfter(job, verdict, attemptNumber, { startedAt, finishedAt }),
      ...(verdict.status === 'pending' ? { retryInSeconds: verdict.retryInSeconds } : {}),
    };
  }

  async function disable(job: Pick<DeliveryJob, 'projectId' | 'integrationId'>, reason: 'gone' | 'failing') {
    notFailing.delete(job.integrationId);
    failingNoticed.delete(job.integrationId);
    if (deps.notices) await deps.notices.disable(job.projectId, job.integrationId, reason);
    else await deps.directory.disableWebhook(job.projectId, job.integrationId, reason);
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
      ...standardWebhookHeaders(
        { secrets: target.signingSecrets, keys: target.signingKeys ?? [] },
        job.eventId,
        Math.floor(at / 1000),
        body,
      ),
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

  /** The chart's counters: one update per webhook and hour for the whole batch. */
  async function countAttempts(tally: Tally): Promise<void> {
    if (!deps.attemptStats || !tally.length) return;
    try {
      await deps.attemptStats.add(tally);
    } catch (error) {
      // The counters never fail deliveries that already happened (the delivery log stays exact).
      log('warn', 'webhook attempt counters not updated', { attempts: tally.length, error: String(error) });
    }
  }

  /**
   * Each webhook's failing streak, folded from the batch's attempts in the order they ended: one update per webhook,
   * none for a webhook known not to be failing whose attempts all succeeded. A streak long enough is noticed once; a
   * streak 5 days old disables the webhook.
   */
  async function updateHealth(tally: Tally, at: number): Promise<void> {
    const byWebhook = new Map<string, { projectId: string; integrationId: string; fold: HealthFold }>();
    for (const a of [...tally].sort((x, y) => x.at - y.at)) {
      let entry = byWebhook.get(a.integrationId);
      if (!entry) {
        entry = { projectId: a.projectId, integrationId: a.integrationId, fold: { failuresAfter: 0 } };
        byWebhook.set(a.integrationId, entry);
      }
      if (a.succeeded) entry.fold = { lastSuccessAt: a.at, failuresAfter: 0 };
      else {
        entry.fold.failuresAfter++;
        entry.fold.firstFailureAt ??= a.at;
      }
    }
    await Promise.all(
      [...byWebhook.values()].map(async ({ projectId, integrationId, fold }) => {
        try {
          const knownHealthy = at - (notFailing.get(integrationId) ?? -Infinity) < HEALTH_CACHE_MS;
          if (fold.failuresAfter === 0 && knownHealthy) return;
          const knownNoticed = at - (failingNoticed.get(integrationId) ?? -Infinity) < HEALTH_CACHE_MS;
          if (fold.lastSuccessAt === undefined && knownNoticed) return;
          const streak = await deps.health.fold(projectId, integrationId, fold, at);
          if (streak.failingSince === null) {
            notFailing.set(integrationId, at);
            failingNoticed.delete(integrationId);
            if (notFailing.size > 10_000) notFailing.clear();
            return;
          }
          notFailing.delete(integrationId);
          if (streak.noticed && at - streak.failingSince < DISABLE_AFTER_FAILING_MS - HEALTH_CACHE_MS) {
            failingNoticed.set(integrationId, at);
            if (failingNoticed.size > 10_000) failingNoticed.clear();
          } else failingNoticed.delete(integrationId);
          if (at - streak.failingSince >= DISABLE_AFTER_FAILING_MS) {
            log('warn', 'webhook failing for 5 days: disabled', {
              integrationId,
              failingSince: new Date(streak.failingSince).toISOString(),
            });
            await disable({ projectId, integrationId }, 'failing');
          } else if (deps.notices && !streak.noticed && streak.consecutiveFailures >= deps.notices.failingAfter) {
            await deps.notices.failing(projectId, integrationId, {
              consecutiveFailures: streak.consecutiveFailures,
              failingSince: streak.failingSince,
            });
          }
        } catch (error) {
          // Health bookkeeping never fails deliveries that already happened.
          log('warn', 'webhook health not updated', { integrationId, error: String(error) });
        }
      }),
    );
  }

  async function deliverOrFail(message: ReceivedMessage, tally: Tally): Promise<Outcome> {
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

  /**
   * The batch's messages, concurrently, but those of one FIFO group one after another in the order received: once
   * one of them is not done (waiting for its retry, put back, failed), the later ones of its group wait as long
   * without an attempt (they must not overtake it), and so do those left when the group's time budget is spent.
   */
  async function runAll(messages: ReceivedMessage[], tally: Tally): Promise<Outcome[]> {
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
          outcomes[i] = await deliverOrFail(messages[i]!, tally);
          if (outcomes[i]!.kind !== 'done') blocked = outcomes[i];
        }
      }),
    );
    return outcomes;
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
      const tally: Tally = [];
      const outcomes = await runAll(messages, tally);
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
      await Promise.all([countAttempts(tally), updateHealth(tally, now())]);
      const kept = [...(await postponeAll(postponed)), ...(await requeueAll(requeued))];
      return [...new Set([...kept, ...failed])];
    },
  };
}
