import type { GateDecision } from './endpoint-gate.ts';
import {
  bodyStoredOncePerEvent,
  deliveryJobSchema,
  type DeliveryJob,
  type DeliveryRecord,
  type DeliveryStatus,
} from './model.ts';
import type { PacingDecision } from './pacing.ts';
import type { AttemptOutcome, AttemptWrite, QueuedJob } from './ports.ts';
import { delayHonouringRetryAfter } from './retry-after.ts';
import { retryDelaySeconds, type RetrySchedule } from './retry-schedule.ts';

/**
 * The rules of one delivery attempt, as pure steps (no I/O): `deliver.ts` runs them in order
 * (parse → due? → target → gate/park → attempt → decide → record → schedule) and does the reading and writing.
 */

/** SQS lets a received message stay invisible at most 12 h; keep a margin for the time already spent. */
export const MAX_POSTPONE_SECONDS = 12 * 3600 - 300;
/** SQS's longest message delay. */
export const MAX_DELAY_SECONDS = 900;
/** First wait of a job put back behind a hanging or timed-out destination; doubles each time. */
export const PARKED_JOB_BASE_DELAY_SECONDS = 30;
/** Times a job is parked (30 s + 1 + 2 + 4 + 8 + 15 min, about half an hour) before it counts failed attempts. */
export const MAX_PARKINGS = 6;

/** What becomes of a received message once its job has been handled. */
export type Outcome =
  | { kind: 'done' }
  | { kind: 'postpone'; seconds: number }
  | { kind: 'requeue'; queued: QueuedJob }
  | { kind: 'fail' };

export const DONE: Outcome = { kind: 'done' };

/** The job a message carries; undefined when it is not one (it goes to the dead-letter queue). */
export function parseDeliveryJob(body: string): DeliveryJob | undefined {
  try {
    return deliveryJobSchema.parse(JSON.parse(body));
  } catch {
    return undefined;
  }
}

/** Seconds the message must still wait in the queue when its job is not due yet (more than a second early). */
export function secondsUntilDue(job: DeliveryJob, at: number): number | undefined {
  if (job.notBefore === undefined || job.notBefore - at <= 1_000) return undefined;
  return Math.min(MAX_POSTPONE_SECONDS, Math.ceil((job.notBefore - at) / 1000));
}

/** A message re-sent for a later attempt counts one attempt per message; otherwise each receive is one attempt. */
export function attemptNumberOf(job: DeliveryJob, receiveCount: number): number {
  return job.manual || job.notBefore !== undefined ? job.attemptsBefore + 1 : job.attemptsBefore + receiveCount;
}

/** A disabled webhook gets no automatic attempts; a manual retry and a `webhook.test` still try it. */
export function skipsDisabledWebhook(job: DeliveryJob): boolean {
  return !job.manual && job.eventType !== 'webhook.test';
}

/** Receivers are told apart by URL origin: webhooks pointing at the same host share its fate. */
export function endpointOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * The gate turned the attempt away: the job goes back on the queue without an attempt, longer each time it is put
 * back. Behind a hanging or timed-out destination only the probe needs to come back soon: the other jobs wait 30 s,
 * 1 min, 2 min... (at most 15 min, SQS's longest delay), and a recovered destination gets its backlog within that
 * delay. Undefined once a job has been parked for half an hour behind a destination that does not answer: that
 * attempt then fails unsent, as it would have timed out, and the delivery follows the retry schedule to `failed`
 * instead of waiting forever.
 */
export function parkedJob(
  job: DeliveryJob,
  refusal: Extract<GateDecision, { admitted: false }>,
  attemptNumber: number,
  random: () => number,
): QueuedJob | undefined {
  if (refusal.reason !== 'busy' && job.deferrals >= MAX_PARKINGS && !job.manual) return undefined;
  const step = refusal.reason === 'busy' ? 1 : PARKED_JOB_BASE_DELAY_SECONDS;
  const base = Math.max(refusal.retryAfterMs / 1000, step * 2 ** Math.min(10, job.deferrals));
  const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(1, Math.ceil(base * (1 + 0.2 * random()))));
  return { job: { ...job, attemptsBefore: attemptNumber - 1, deferrals: job.deferrals + 1 }, delaySeconds };
}

/** Held back by the webhook's rate limit: not an attempt, back on the queue until its reserved start. */
export function pacedBackJob(heldBack: Extract<PacingDecision, { go: false }>, attemptNumber: number): QueuedJob {
  return { job: { ...heldBack.job, attemptsBefore: attemptNumber - 1 }, delaySeconds: heldBack.delaySeconds };
}

/** The attempt that was never sent because its destination stopped answering while the job was parked. */
export function unansweredOutcome(endpoint: string): AttemptOutcome {
  return { kind: 'timeout', durationMs: 0, error: `not sent: ${endpoint} is not answering (attempts time out)` };
}

/** Where a delivery stands after an attempt. */
export type AttemptVerdict =
  | { status: 'succeeded' }
  /** `webhookGone`: the receiver answered 410, so the webhook is disabled (`gone`). */
  | { status: 'failed'; webhookGone: boolean }
  /** Tried again after `retryInSeconds` (jitter included). */
  | { status: 'pending'; retryInSeconds: number };

/**
 * 2xx succeeds. 410 fails the delivery and disables the webhook. A destination the address policy refused stays
 * refused: no retry. A manual retry is one attempt: anything else fails it. Otherwise the retry schedule says when
 * to try again, or, when it is exhausted, fails it; the wait is no shorter than a 429 or 503 answer's `Retry-After`
 * asks (`retry-after.ts`), read at `answeredAt` (epoch ms).
 */
export function decideAttempt(
  job: Pick<DeliveryJob, 'manual'>,
  outcome: AttemptOutcome,
  attemptNumber: number,
  schedule: RetrySchedule,
  random: () => number,
  answeredAt: number,
): AttemptVerdict {
  if (outcome.kind === 'success') return { status: 'succeeded' };
  const webhookGone = outcome.kind === 'http-error' && outcome.statusCode === 410;
  if (webhookGone || outcome.kind === 'forbidden' || job.manual) return { status: 'failed', webhookGone };
  const scheduled = retryDelaySeconds(schedule, attemptNumber, random);
  if (scheduled === undefined) return { status: 'failed', webhookGone: false };
  return { status: 'pending', retryInSeconds: delayHonouringRetryAfter(scheduled, outcome, answeredAt) };
}

/** Epoch ms of the next automatic attempt, counted from the end of this one; undefined unless pending. */
export function nextAttemptAtOf(verdict: AttemptVerdict, finishedAt: number): number | undefined {
  return verdict.status === 'pending' ? finishedAt + Math.round(verdict.retryInSeconds * 1000) : undefined;
}

/** The write of an attempt that was made (or counted as made), with its answer and the verdict. */
export function attemptWrite(
  job: DeliveryJob,
  attempt: { at: number; outcome: AttemptOutcome; number: number },
  verdict: AttemptVerdict,
  nextAttemptAt: number | undefined,
): AttemptWrite {
  const { outcome } = attempt;
  return {
    ...recordKeys(job),
    attempt: {
      at: new Date(attempt.at).toISOString(),
      ...('statusCode' in outcome ? { statusCode: outcome.statusCode } : {}),
      durationMs: outcome.durationMs,
      ...(outcome.kind === 'success' ? {} : { error: outcome.error }),
    },
    status: verdict.status,
    ...(nextAttemptAt === undefined ? {} : { nextAttemptAt }),
    ...bodyFields(job, attempt.number),
    manual: job.manual,
    ...(attempt.number === 1 && !job.manual ? { first: true } : {}),
  };
}

/** An automatic delivery to a disabled webhook fails unsent. */
export function disabledWebhookWrite(job: DeliveryJob, at: number, attemptNumber: number): AttemptWrite {
  return {
    ...unsentWrite(job, at, 'not sent: the webhook is disabled'),
    ...bodyFields(job, attemptNumber),
    manual: false,
  };
}

/** A large body lives in the transfer bucket, whose lifecycle may have expired it: nothing left to send. */
export function expiredPayloadWrite(job: DeliveryJob, at: number): AttemptWrite {
  return unsentWrite(job, at, 'not sent: the stored payload has expired');
}

function unsentWrite(job: DeliveryJob, at: number, error: string): AttemptWrite {
  return {
    ...recordKeys(job),
    attempt: { at: new Date(at).toISOString(), durationMs: 0, error },
    status: 'failed' satisfies DeliveryStatus,
    manual: job.manual,
  };
}

/**
 * After a pending attempt, the message waits for the next one: postponed in place (ChangeMessageVisibility) when
 * the wait fits in what a received message may stay invisible, else re-sent with a delay and a `notBefore`, read
 * afresh (no snapshot) when it comes back.
 */
export function nextStepAfter(
  job: DeliveryJob,
  verdict: AttemptVerdict,
  attemptNumber: number,
  times: { startedAt: number; finishedAt: number },
): Outcome {
  if (verdict.status !== 'pending') return DONE;
  const delaySeconds = verdict.retryInSeconds;
  const elapsedSeconds = (times.finishedAt - times.startedAt) / 1000;
  if (job.notBefore === undefined && delaySeconds + elapsedSeconds <= MAX_POSTPONE_SECONDS) {
    return { kind: 'postpone', seconds: delaySeconds };
  }
  return {
    kind: 'requeue',
    queued: {
      job: {
        ...job,
        attemptsBefore: attemptNumber,
        notBefore: nextAttemptAtOf(verdict, times.finishedAt),
        sealedTarget: undefined,
        targetReadAt: undefined,
      },
      delaySeconds: Math.min(MAX_DELAY_SECONDS, Math.ceil(delaySeconds)),
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

/**
 * What the first attempt keeps on the record for a retry by hand after the message is gone: a small body itself, a
 * large one's S3 key (a body in between is stored once per event by the fan-out), and the ordering key.
 */
function bodyFields(job: DeliveryJob, attemptNumber: number): { body?: string; bodyRef?: string; orderKey?: string } {
  if (attemptNumber !== 1 || job.manual) return {};
  return {
    ...(job.bodyRef ? { bodyRef: job.bodyRef } : {}),
    ...(job.body !== undefined && !bodyStoredOncePerEvent(job.body) ? { body: job.body } : {}),
    ...(job.orderKey !== undefined ? { orderKey: job.orderKey } : {}),
  };
}

/**
 * What a received ordered job (`job.ordered`, FIFO queue) is about to do, read from its delivery record: an ordered
 * job is never re-sent (it would lose its place in its group), so its message keeps the body it was sent with and the
 * record says where the delivery stands. Done: it succeeded (a late duplicate), ended `failed`, or its manual attempt
 * already ran (a crash after recording it). Not due: its next attempt is later than this receive (a wait longer than
 * a message may stay invisible is postponed in steps). Otherwise the attempt's number, and how many times the message
 * was put back without an attempt (the endpoint gate's parking count).
 */
export function orderedReceive(
  job: DeliveryJob,
  record: Pick<DeliveryRecord, 'status' | 'attempts' | 'nextAttemptAt'> | undefined,
  receiveCount: number,
  at: number,
):
  | { kind: 'done' }
  | { kind: 'postpone'; seconds: number }
  | { kind: 'attempt'; attemptNumber: number; deferrals: number } {
  const recorded = record?.attempts.length ?? 0;
  const byThisMessage = Math.max(0, recorded - job.attemptsBefore);
  if (job.manual) {
    if (byThisMessage > 0) return { kind: 'done' };
  } else if (record?.status === 'succeeded' || record?.status === 'failed') {
    return { kind: 'done' };
  } else if (record?.nextAttemptAt !== undefined && record.nextAttemptAt - at > 1_000) {
    return { kind: 'postpone', seconds: Math.min(MAX_POSTPONE_SECONDS, Math.ceil((record.nextAttemptAt - at) / 1000)) };
  }
  return {
    kind: 'attempt',
    attemptNumber: (job.manual ? job.attemptsBefore : Math.max(recorded, job.attemptsBefore)) + 1,
    deferrals: Math.max(0, receiveCount - 1 - byThisMessage),
  };
}

/**
 * An ordered job's next step: what would re-send a job (put back by the gate or the pacer, a retry longer than a
 * message may stay invisible) postpones its message in place instead, for as long (at most
 * {@link MAX_POSTPONE_SECONDS}; the record's `nextAttemptAt` holds back an early receive).
 */
export function orderedStep(outcome: Outcome, retryInSeconds?: number): Outcome {
  if (outcome.kind !== 'requeue') return outcome;
  const seconds = retryInSeconds ?? outcome.queued.delaySeconds ?? 1;
  return { kind: 'postpone', seconds: Math.min(MAX_POSTPONE_SECONDS, Math.max(1, Math.ceil(seconds))) };
}
