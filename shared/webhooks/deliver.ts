import type { SecretBox } from '../integrations/secret-box.ts';
import type { EndpointGate } from './endpoint-gate.ts';
import type { Pacing } from './pacing.ts';
import { delayHonouringRetryAfter } from './retry-after.ts';
import { deliveryJobSchema, type DeliveryJob, type DeliveryStatus } from './model.ts';
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
import { retryDelaySeconds, type RetrySchedule } from './retry-schedule.ts';
import { standardWebhookHeaders } from './signature.ts';
import { openSnapshot, snapshotOf, type TargetSnapshot } from './target-snapshot.ts';

/** A webhook failing every delivery for this long in a row is disabled (contract section 5). */
export const DISABLE_AFTER_FAILING_MS = 5 * 86400 * 1000;
/** Snapshots older than this are not trusted: the webhook is read again. */
const SNAPSHOT_MAX_AGE_MS = 60_000;
/** How long the health state learnt from the store is trusted before it is written again. */
const HEALTH_CACHE_MS = 60_000;
/** SQS lets a received message stay invisible at most 12 h; keep a margin for the time already spent. */
const MAX_POSTPONE_SECONDS = 12 * 3600 - 300;
const MAX_DELAY_SECONDS = 900;
/** First wait of a job put back behind a hanging or timed-out destination; doubles each time. */
const PARKED_JOB_BASE_DELAY_SECONDS = 30;
/** Times a job is parked (30 s + 1 + 2 + 4 + 8 + 15 min, about half an hour) before it counts failed attempts. */
const MAX_PARKINGS = 6;

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

type Outcome =
  | { kind: 'done' }
  | { kind: 'postpone'; seconds: number }
  | { kind: 'requeue'; queued: QueuedJob }
  | { kind: 'fail' };

/**
 * The deliver worker's use case, for one batch of jobs from the `deliveries` queue. For each job, concurrently:
 *
 * 1. wait in the queue if the job is not due yet (a wait longer than SQS visibility allows);
 * 2. resolve the webhook: the sealed snapshot the fan-out put in the job (first receive, under a minute old), else
 *    a fresh read (retries, manual retries); a deleted webhook ends the delivery; a disabled one fails it unsent;
 * 3. pass the endpoint gate (see `endpoint-gate.ts`): a destination that is hanging or has too many attempts in
 *    flight gets the job back on the queue with a delay, without an attempt (after half an hour of that, the
 *    attempt fails unsent and the retry schedule runs on);
 * 4. POST the body with `Authorization: Bearer` when configured and the Standard Webhooks headers (`webhook-id` =
 *    the event id on every attempt, signatures under every live secret), within the sender's 15 s deadline;
 * 5. write the attempt (one UpdateItem) with the status: succeeded (2xx); failed (410, a destination the SSRF
 *    guard refused, the last attempt, or a manual retry that did not succeed); else pending with the next attempt time from the retry schedule;
 * 6. 410 disables the webhook (`gone`); a webhook failing every delivery for 5 days is disabled (`failing`);
 * 7. a pending delivery's message is postponed (ChangeMessageVisibility) to the next attempt time, or re-sent
 *    with a delay when the wait is longer than a received message may stay invisible.
 *
 * Returns the ids of the messages to leave on the queue (partial batch response).
 */
export function makeDeliver(deps: DeliverDeps) {
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const log = deps.log ?? (() => {});
  const healthCache = new Map<string, { failingSince: number | null; checkedAt: number }>();

  async function deliverOne(message: ReceivedMessage): Promise<Outcome> {
    let job: DeliveryJob;
    try {
      job = deliveryJobSchema.parse(JSON.parse(message.body));
    } catch {
      log('error', 'unreadable delivery job; left for the dead-letter queue', { messageId: message.messageId });
      return { kind: 'fail' };
    }
    const startedAt = now();
    if (job.notBefore !== undefined && job.notBefore - startedAt > 1_000) {
      return {
        kind: 'postpone',
        seconds: Math.min(MAX_POSTPONE_SECONDS, Math.ceil((job.notBefore - startedAt) / 1000)),
      };
    }
    // A message re-sent for a later attempt counts one attempt per message; otherwise each receive is one attempt.
    const attemptNumber =
      job.manual || job.notBefore !== undefined ? job.attemptsBefore + 1 : job.attemptsBefore + message.receiveCount;

    const target = await resolveTarget(job, message.receiveCount, startedAt);
    if (!target) return { kind: 'done' }; // the webhook was deleted: nothing to deliver, nobody to show it to
    if (!target.enabled && !job.manual && job.eventType !== 'webhook.test') {
      await deps.deliveries.recordAttempt({
        ...recordKeys(job),
        attempt: { at: new Date(startedAt).toISOString(), durationMs: 0, error: 'not sent: the webhook is disabled' },
        status: 'failed',
        ...bodyFields(job, attemptNumber),
        manual: false,
      });
      return { kind: 'done' };
    }

    const body = job.body ?? (await deps.payloads.get(job.bodyRef!));
    if (body === undefined) {
      // A large body lives in the transfer bucket, whose lifecycle may have expired it: nothing left to send.
      await deps.deliveries.recordAttempt({
        ...recordKeys(job),
        attempt: {
          at: new Date(startedAt).toISOString(),
          durationMs: 0,
          error: 'not sent: the stored payload has expired',
        },
        status: 'failed',
        manual: job.manual,
      });
      return { kind: 'done' };
    }

    const paced = await deps.pacing?.pace(job);
    if (paced && !paced.go) {
      // Held back by the webhook's rate limit: not an attempt, back on the queue until its reserved start.
      const queued = { job: { ...paced.job, attemptsBefore: attemptNumber - 1 }, delaySeconds: paced.delaySeconds };
      return { kind: 'requeue', queued };
    }

    const endpoint = endpointOf(target.url);
    const decision = await deps.gate.enter(endpoint);
    let outcome: AttemptOutcome | undefined;
    const attemptAt = now();
    if (!decision.admitted) {
      if (decision.reason === 'busy' || job.deferrals < MAX_PARKINGS || job.manual) {
        // Whatever the gate says, and longer each time the same job is put back. Behind a hanging or timed-out
        // destination only the probe needs to come back soon: the other jobs wait 30 s, 1 min, 2 min... (at most
        // 15 min, SQS's longest delay), and a recovered destination gets its backlog within that delay.
        const step = decision.reason === 'busy' ? 1 : PARKED_JOB_BASE_DELAY_SECONDS;
        const base = Math.max(decision.retryAfterMs / 1000, step * 2 ** Math.min(10, job.deferrals));
        const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(1, Math.ceil(base * (1 + 0.2 * random()))));
        return {
          kind: 'requeue',
          queued: { job: { ...job, attemptsBefore: attemptNumber - 1, deferrals: job.deferrals + 1 }, delaySeconds },
        };
      }
      // Parked for half an hour and the destination still does not answer: this attempt fails unsent, as it would
      // have timed out, and the delivery follows the retry schedule to `failed` instead of waiting forever.
      outcome = { kind: 'timeout', durationMs: 0, error: `not sent: ${endpoint} is not answering (attempts time out)` };
    } else {
      try {
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          'user-agent': deps.userAgent,
          ...standardWebhookHeaders(target.signingSecrets, job.eventId, Math.floor(attemptAt / 1000), body),
        };
        if (target.bearerToken) headers.authorization = `Bearer ${target.bearerToken}`;
        outcome = await deps.sender.send({ url: target.url, headers, body });
      } finally {
        // Released before the write: the destination's place is free as soon as it answered.
        decision.release(outcome?.kind ?? 'network');
      }
    }

    const gone = outcome.kind === 'http-error' && outcome.statusCode === 410;
    let status: DeliveryStatus;
    let delaySeconds: number | undefined;
    if (outcome.kind === 'success') status = 'succeeded';
    // A destination the address policy refused stays refused: no retry.
    else if (gone || outcome.kind === 'forbidden' || job.manual) status = 'failed';
    else {
      delaySeconds = retryDelaySeconds(deps.schedule, attemptNumber, random);
      if (delaySeconds !== undefined) delaySeconds = delayHonouringRetryAfter(delaySeconds, outcome, now());
      status = delaySeconds === undefined ? 'failed' : 'pending';
    }
    const finishedAt = now();
    const nextAttemptAt = delaySeconds === undefined ? undefined : finishedAt + Math.round(delaySeconds * 1000);
    await deps.deliveries.recordAttempt({
      ...recordKeys(job),
      attempt: {
        at: new Date(attemptAt).toISOString(),
        ...('statusCode' in outcome ? { statusCode: outcome.statusCode } : {}),
        durationMs: outcome.durationMs,
        ...(outcome.kind === 'success' ? {} : { error: outcome.error }),
      },
      status,
      ...(nextAttemptAt === undefined ? {} : { nextAttemptAt }),
      ...bodyFields(job, attemptNumber),
      manual: job.manual,
    });
    if (outcome.kind !== 'success') {
      log('info', 'delivery attempt failed', {
        deliveryId: job.deliveryId,
        integrationId: job.integrationId,
        attempt: attemptNumber,
        kind: outcome.kind,
        status,
      });
    }

    await updateHealth(job, outcome.kind === 'success', finishedAt);
    if (gone) {
      await deps.directory.disableWebhook(job.projectId, job.integrationId, 'gone');
      healthCache.delete(job.integrationId);
    }

    if (status !== 'pending' || delaySeconds === undefined) return { kind: 'done' };
    const elapsedSeconds = (finishedAt - startedAt) / 1000;
    if (job.notBefore === undefined && delaySeconds + elapsedSeconds <= MAX_POSTPONE_SECONDS) {
      return { kind: 'postpone', seconds: delaySeconds };
    }
    return {
      kind: 'requeue',
      queued: {
        job: {
          ...job,
          attemptsBefore: attemptNumber,
          notBefore: nextAttemptAt,
          sealedTarget: undefined,
          targetReadAt: undefined,
        },
        delaySeconds: Math.min(MAX_DELAY_SECONDS, Math.ceil(delaySeconds)),
      },
    };
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

  return {
    async deliverBatch(messages: ReceivedMessage[]): Promise<string[]> {
      const outcomes = await Promise.all(
        messages.map(async (m): Promise<Outcome> => {
          try {
            return await deliverOne(m);
          } catch (error) {
            log('error', 'delivery job failed; it will be received again', {
              messageId: m.messageId,
              error: String(error),
            });
            return { kind: 'fail' };
          }
        }),
      );
      const failed = new Set<string>();
      const postponed = messages.map((m, i) => ({ m, o: outcomes[i]! })).filter((x) => x.o.kind === 'postpone');
      if (postponed.length) {
        const notPostponed = await deps.queue.postpone(
          postponed.map((x) => ({ receiptHandle: x.m.receiptHandle, seconds: (x.o as { seconds: number }).seconds })),
        );
        // Every postponed message stays on the queue: that is how it comes back. One that could not be postponed
        // comes back after the queue's visibility timeout instead, a little early but not lost.
        postponed.forEach((x) => failed.add(x.m.messageId));
        if (notPostponed.size) log('warn', 'could not postpone some retries', { count: notPostponed.size });
      }
      const requeued = messages.map((m, i) => ({ m, o: outcomes[i]! })).filter((x) => x.o.kind === 'requeue');
      if (requeued.length) {
        const notSent = await deps.queue.enqueue(requeued.map((x) => (x.o as { queued: QueuedJob }).queued));
        // A job that could not be re-sent stays on the queue and comes back after the visibility timeout.
        for (const index of notSent) failed.add(requeued[index]!.m.messageId);
      }
      messages.forEach((m, i) => outcomes[i]!.kind === 'fail' && failed.add(m.messageId));
      return [...failed];
    },
  };
}

function recordKeys(job: DeliveryJob) {
  return {
    projectId: job.projectId,
    integrationId: job.integrationId,
    deliveryId: job.deliveryId,
    eventId: job.eventId,
    eventType: job.eventType,
  };
}

/** The body goes on the record with the first attempt, so it can be retried by hand after the message is gone. */
function bodyFields(job: DeliveryJob, attemptNumber: number): { body?: string; bodyRef?: string } {
  if (attemptNumber !== 1 || job.manual) return {};
  return job.bodyRef ? { bodyRef: job.bodyRef } : { body: job.body };
}

/** Receivers are told apart by URL origin: webhooks pointing at the same host share its fate. */
function endpointOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
