import { failpoint } from '../kernel/failpoints.ts';
import type { SecretBox } from '../kernel/secret-box.ts';
import type { CountedAttempt } from './attempt-stats.ts';
import type { GatedAttempt } from './attempt-through-gate.ts';
import {
  type AttemptVerdict,
  attemptNumberOf,
  attemptWrite,
  DONE,
  decideAttempt,
  disabledWebhookWrite,
  expiredPayloadWrite,
  nextAttemptAtOf,
  nextStepAfter,
  orderedReceive,
  orderedStep,
  type Outcome,
  pacedBackJob,
  parseDeliveryJob,
  secondsUntilDue,
  skipsDisabledWebhook,
} from './delivery-steps.ts';
import type { DeliveryJob } from './model.ts';
import type { Pacing } from './pacing.ts';
import type { AttemptOutcome, DeliveryStore, PayloadStore, WebhookDirectory } from './ports.ts';
import type { RetrySchedule } from './retry-schedule.ts';
import { openSnapshot, snapshotOf, type TargetSnapshot } from './target-snapshot.ts';

/** Snapshots older than this are not trusted: the webhook is read again. */
const SNAPSHOT_MAX_AGE_MS = 60_000;

export interface ReceivedMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
  /** SQS ApproximateReceiveCount of this receive. */
  receiveCount: number;
  /** The FIFO message group (ordered webhooks' queue); absent on the standard queue. */
  groupId?: string;
}

export interface DeliverJobDeps {
  directory: Pick<WebhookDirectory, 'getWebhook'>;
  deliveries: DeliveryStore;
  payloads: PayloadStore;
  pacing?: Pacing;
  secrets: SecretBox;
  schedule: RetrySchedule;
  /** One attempt through the endpoint gate (./attempt-through-gate.ts). */
  attempt: (job: DeliveryJob, target: TargetSnapshot, body: string, attemptNumber: number) => Promise<GatedAttempt>;
  /** Disables a webhook whose receiver answered 410. */
  disable: (job: DeliveryJob, reason: 'gone') => Promise<void>;
  now: () => number;
  random: () => number;
  log: (level: 'info' | 'warn' | 'error', message: string, details: Record<string, unknown>) => void;
}

/**
 * One delivery job of a batch, steps 1 to 8 of `makeDeliver` (./deliver.ts): due, target, pace, gate, attempt,
 * decide and record, 410, schedule. Each attempt made is added to `tally`; returns what becomes of the message.
 */
export function makeDeliverJob(deps: DeliverJobDeps) {
  const { now, log } = deps;

  async function deliverOne(message: ReceivedMessage, tally: CountedAttempt[]): Promise<Outcome> {
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
    tally: CountedAttempt[],
  ): Promise<{ step: Outcome; retryInSeconds?: number }> {
    const target = await resolveTarget(deps, job, message.receiveCount, startedAt);
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

    const attempt = await deps.attempt(job, target, body, attemptNumber);
    if ('parked' in attempt) return { step: { kind: 'requeue', queued: attempt.parked } };

    const finishedAt = now();
    const verdict = decideAttempt(job, attempt.outcome, attemptNumber, deps.schedule, deps.random, finishedAt);
    await record(job, { ...attempt, number: attemptNumber }, verdict, finishedAt);
    tally.push({
      projectId: job.projectId,
      integrationId: job.integrationId,
      at: finishedAt,
      succeeded: attempt.outcome.kind === 'success',
      durationMs: attempt.outcome.durationMs,
    });
    if (verdict.status === 'failed' && verdict.webhookGone) await deps.disable(job, 'gone');
    return {
      step: nextStepAfter(job, verdict, attemptNumber, { startedAt, finishedAt }),
      ...(verdict.status === 'pending' ? { retryInSeconds: verdict.retryInSeconds } : {}),
    };
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

  return deliverOne;
}

/**
 * The webhook as the attempt sees it: the sealed snapshot the fan-out put in the job (first receive, under a minute
 * old), else a fresh read (retries, manual retries); undefined when the webhook was deleted.
 */
async function resolveTarget(
  deps: Pick<DeliverJobDeps, 'directory' | 'secrets' | 'log'>,
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
      deps.log('warn', 'delivery job snapshot unreadable; reading the webhook', { deliveryId: job.deliveryId });
    }
  }
  const fresh = await deps.directory.getWebhook(job.projectId, job.integrationId);
  return fresh ? snapshotOf(fresh) : undefined;
}
