import { describe, expect, it } from 'vitest';
import {
  attemptNumberOf,
  attemptWrite,
  decideAttempt,
  MAX_DELAY_SECONDS,
  MAX_PARKINGS,
  MAX_POSTPONE_SECONDS,
  nextStepAfter,
  pacedBackJob,
  parkedJob,
  parseDeliveryJob,
  secondsUntilDue,
} from '#shared/webhooks/delivery-steps.ts';
import { type DeliveryJob, deliveryJobFor } from '#shared/webhooks/model.ts';
import type { AttemptOutcome } from '#shared/webhooks/ports.ts';
import { parseRetrySchedule } from '#shared/webhooks/retry-schedule.ts';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const schedule = parseRetrySchedule('5,300');
const noJitter = () => 0;

const delivery = {
  projectId: 'prj_1',
  integrationId: 'int_1',
  deliveryId: 'dlv_1',
  eventId: 'evt_1',
  eventType: 'message.sent',
  body: '{"id":"evt_1"}',
};
const newJob = (overrides: Partial<DeliveryJob> = {}): DeliveryJob => ({
  ...deliveryJobFor(delivery, {
    manual: false,
    acceptedAt: T0,
    sealedTarget: 'sealed',
    targetReadAt: T0,
    ordered: false,
  }),
  ...overrides,
});

const success: AttemptOutcome = { kind: 'success', statusCode: 204, durationMs: 12 };
const httpError = (statusCode: number): AttemptOutcome => ({
  kind: 'http-error',
  statusCode,
  durationMs: 30,
  error: `HTTP ${statusCode}`,
});
const timeout: AttemptOutcome = { kind: 'timeout', durationMs: 15_000, error: 'timed out after 15 s' };

describe('deliveryJobFor', () => {
  it('makes the fan-out job: first attempt, sealed snapshot, a job the deliver worker accepts', () => {
    const job = newJob();
    expect(job).toEqual({
      v: 1,
      ...delivery,
      acceptedAt: T0,
      attemptsBefore: 0,
      manual: false,
      deferrals: 0,
      sealedTarget: 'sealed',
      targetReadAt: T0,
    });
    expect(parseDeliveryJob(JSON.stringify(job))).toEqual(job);
  });

  it('makes the manual retry job: after the recorded attempts, no snapshot, the stored body reference kept', () => {
    const { body: _, ...withoutBody } = delivery;
    const job = deliveryJobFor(
      { ...withoutBody, bodyRef: 'payloads/evt_1.json' },
      { manual: true, acceptedAt: T0, attemptsBefore: 3, ordered: false },
    );
    expect(job).toEqual({
      v: 1,
      ...withoutBody,
      bodyRef: 'payloads/evt_1.json',
      acceptedAt: T0,
      attemptsBefore: 3,
      manual: true,
      deferrals: 0,
    });
    expect(Object.keys(job)).not.toContain('body');
    expect(Object.keys(job)).not.toContain('sealedTarget');
  });
});

describe('delivery steps', () => {
  it('parse: a message that is not a delivery job is refused', () => {
    expect(parseDeliveryJob('not json')).toBeUndefined();
    expect(parseDeliveryJob(JSON.stringify({ ...newJob(), attemptsBefore: -1 }))).toBeUndefined();
  });

  it('due: a job more than a second early waits in the queue, at most what SQS visibility allows', () => {
    expect(secondsUntilDue(newJob(), T0)).toBeUndefined();
    expect(secondsUntilDue(newJob({ notBefore: T0 + 1_000 }), T0)).toBeUndefined();
    expect(secondsUntilDue(newJob({ notBefore: T0 + 1_500 }), T0)).toBe(2);
    expect(secondsUntilDue(newJob({ notBefore: T0 + 48 * 3600_000 }), T0)).toBe(MAX_POSTPONE_SECONDS);
  });

  it('attempt number: each receive counts for an in-place retry, one per message otherwise', () => {
    expect(attemptNumberOf(newJob(), 3)).toBe(3);
    expect(attemptNumberOf(newJob({ attemptsBefore: 4, notBefore: T0 }), 2)).toBe(5);
    expect(attemptNumberOf(newJob({ attemptsBefore: 2, manual: true }), 5)).toBe(3);
  });

  it('decide: 2xx succeeds', () => {
    expect(decideAttempt(newJob(), success, 1, schedule, noJitter, T0)).toEqual({ status: 'succeeded' });
  });

  it('decide: 410 fails the delivery and disables the webhook, even with retries left', () => {
    expect(decideAttempt(newJob(), httpError(410), 1, schedule, noJitter, T0)).toEqual({
      status: 'failed',
      webhookGone: true,
    });
  });

  it('decide: any other failure retries on the schedule, jitter only lengthening the wait', () => {
    expect(decideAttempt(newJob(), httpError(500), 1, schedule, noJitter, T0)).toEqual({
      status: 'pending',
      retryInSeconds: 5,
    });
    expect(decideAttempt(newJob(), timeout, 2, schedule, () => 0.5, T0)).toEqual({
      status: 'pending',
      retryInSeconds: 330,
    });
  });

  it('decide: the schedule exhausted fails the delivery; the webhook stays enabled', () => {
    expect(decideAttempt(newJob(), httpError(503), schedule.maxAttempts, schedule, noJitter, T0)).toEqual({
      status: 'failed',
      webhookGone: false,
    });
  });

  it('decide: a manual retry is one attempt: a failure fails it at once', () => {
    expect(decideAttempt(newJob({ manual: true }), httpError(500), 1, schedule, noJitter, T0)).toEqual({
      status: 'failed',
      webhookGone: false,
    });
  });

  it('decide: a 429 or 503 waits what Retry-After asks (seconds or a date) when it is longer than the schedule', () => {
    const withRetryAfter = (statusCode: number, retryAfter: string): AttemptOutcome => ({
      kind: 'http-error',
      statusCode,
      durationMs: 30,
      error: `HTTP ${statusCode}`,
      retryAfter,
    });
    expect(decideAttempt(newJob(), withRetryAfter(429, '120'), 1, schedule, noJitter, T0)).toEqual({
      status: 'pending',
      retryInSeconds: 120,
    });
    const inTenMinutes = new Date(T0 + 600_000).toUTCString();
    expect(decideAttempt(newJob(), withRetryAfter(503, inTenMinutes), 1, schedule, noJitter, T0)).toEqual({
      status: 'pending',
      retryInSeconds: 600,
    });
    // Shorter than the schedule, unreadable, or on a status that does not carry it: the schedule's wait.
    for (const outcome of [withRetryAfter(503, '2'), withRetryAfter(429, 'soon'), withRetryAfter(500, '600')]) {
      expect(decideAttempt(newJob(), outcome, 1, schedule, noJitter, T0)).toEqual({
        status: 'pending',
        retryInSeconds: 5,
      });
    }
    // The last attempt and a manual retry fail whatever the receiver asks.
    expect(decideAttempt(newJob(), withRetryAfter(429, '60'), schedule.maxAttempts, schedule, noJitter, T0)).toEqual({
      status: 'failed',
      webhookGone: false,
    });
    expect(decideAttempt(newJob({ manual: true }), withRetryAfter(429, '60'), 1, schedule, noJitter, T0)).toEqual({
      status: 'failed',
      webhookGone: false,
    });
  });

  it('pace: a job held back by the rate limit goes back with its reserved start, without counting an attempt', () => {
    const held = { ...newJob({ attemptsBefore: 2, notBefore: T0 }), pacedStartAt: T0 + 3_000 };
    expect(pacedBackJob({ go: false, job: held, delaySeconds: 3 }, 3)).toEqual({
      job: { ...held, attemptsBefore: 2 },
      delaySeconds: 3,
    });
  });

  it('park: a busy destination puts the job back without counting an attempt, longer each time', () => {
    const busy = { admitted: false as const, reason: 'busy' as const, retryAfterMs: 0 };
    expect(parkedJob(newJob(), busy, 1, noJitter)).toEqual({
      job: { ...newJob(), attemptsBefore: 0, deferrals: 1 },
      delaySeconds: 1,
    });
    expect(parkedJob(newJob({ deferrals: 3 }), busy, 1, noJitter)?.delaySeconds).toBe(8);
    expect(parkedJob(newJob({ deferrals: 20 }), busy, 1, noJitter)?.delaySeconds).toBe(MAX_DELAY_SECONDS);
  });

  it('park: behind a hanging destination jobs wait 30 s, doubling, and after half an hour the attempt fails', () => {
    const stuck = { admitted: false as const, reason: 'stuck' as const, retryAfterMs: 5_000 };
    expect(parkedJob(newJob(), stuck, 1, noJitter)?.delaySeconds).toBe(30);
    expect(parkedJob(newJob({ deferrals: 1 }), stuck, 1, noJitter)?.delaySeconds).toBe(60);
    expect(parkedJob(newJob({ deferrals: MAX_PARKINGS }), stuck, 1, noJitter)).toBeUndefined();
    expect(parkedJob(newJob({ deferrals: MAX_PARKINGS, manual: true }), stuck, 1, noJitter)).toBeDefined();
  });

  it('record: the first attempt stores a small body for manual retries, not one stored once per event; later ones do not', () => {
    const larger = { ...newJob(), body: JSON.stringify({ id: 'evt_1', pad: 'x'.repeat(600) }) };
    const once = attemptWrite(larger, { at: T0, outcome: success, number: 1 }, { status: 'succeeded' }, undefined);
    expect(once).not.toHaveProperty('body');
    const parked = attemptWrite(
      { ...newJob(), body: undefined, bodyRef: 'payloads/evt_1' },
      { at: T0, outcome: success, number: 1 },
      { status: 'succeeded' },
      undefined,
    );
    expect(parked).toMatchObject({ bodyRef: 'payloads/evt_1' });
    const first = attemptWrite(
      newJob(),
      { at: T0, outcome: httpError(500), number: 1 },
      { status: 'pending', retryInSeconds: 5 },
      T0 + 5_000,
    );
    expect(first).toMatchObject({
      attempt: { at: '2026-11-21T10:00:00.000Z', statusCode: 500, durationMs: 30, error: 'HTTP 500' },
      status: 'pending',
      nextAttemptAt: T0 + 5_000,
      body: delivery.body,
      manual: false,
    });
    const second = attemptWrite(newJob(), { at: T0, outcome: success, number: 2 }, { status: 'succeeded' }, undefined);
    expect(second).not.toHaveProperty('body');
    expect(second).not.toHaveProperty('nextAttemptAt');
    expect(second.attempt).toEqual({ at: '2026-11-21T10:00:00.000Z', statusCode: 204, durationMs: 12 });
  });

  it('schedule: a wait that fits in SQS visibility postpones the message; a longer one re-sends it with notBefore', () => {
    const times = { startedAt: T0, finishedAt: T0 + 2_000 };
    expect(nextStepAfter(newJob(), { status: 'succeeded' }, 1, times)).toEqual({ kind: 'done' });
    expect(nextStepAfter(newJob(), { status: 'pending', retryInSeconds: 300 }, 1, times)).toEqual({
      kind: 'postpone',
      seconds: 300,
    });
    const requeue = nextStepAfter(newJob(), { status: 'pending', retryInSeconds: 36_000 * 2 }, 3, times);
    expect(requeue).toEqual({
      kind: 'requeue',
      queued: {
        job: expect.objectContaining({ attemptsBefore: 3, notBefore: T0 + 2_000 + 72_000_000 }),
        delaySeconds: MAX_DELAY_SECONDS,
      },
    });
    const requeuedJob = requeue.kind === 'requeue' ? requeue.queued.job : undefined;
    expect(JSON.parse(JSON.stringify(requeuedJob))).not.toHaveProperty('sealedTarget');
  });
});
