import type { NoticeEmailJob, NoticeMailer } from './notice-emails.ts';
import type { DeliveryQueue } from './ports.ts';
import { retryDelaySeconds, type RetrySchedule } from './retry-schedule.ts';

/**
 * A notice email's retries: after 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 4 h and 8 h (9 attempts over about 16 h),
 * long enough for an operator to fix a refused sender or recipient (SES's sandbox) the same day.
 * `NOTICE_EMAIL_RETRY_SCHEDULE` replaces the delays.
 */
export const DEFAULT_NOTICE_EMAIL_DELAYS_SECONDS: readonly number[] = [60, 300, 900, 1800, 3600, 7200, 14400, 28800];

/** What a job finds when it claims a notice's email: its own to send, already sent, or being sent by another job. */
export type NoticeEmailClaim = 'mine' | 'sent' | 'another';

/**
 * Who sends a notice's email, and whether it was sent: a repeated job (the fan-out run again, a duplicate message)
 * finds it sent, or held by the job that sends it, and sends nothing. A claim lasts a lease, so a job that died while
 * sending leaves it to its own message's next receive (or, after the lease, to any copy).
 */
export interface NoticeEmailLog {
  claim(projectId: string, eventId: string, holder: string, now: number, leaseMs: number): Promise<NoticeEmailClaim>;
  markSent(projectId: string, eventId: string, holder: string, at: number): Promise<void>;
  /** Gives a claim up (the mail server refused; the holder's own message tries again later). */
  release(projectId: string, eventId: string, holder: string): Promise<void>;
}

/** Longer than one send may take (the mailer's deadline), and than the deliver worker's batch (40 s). */
export const NOTICE_EMAIL_CLAIM_MS = 60_000;

/** A received notice-email job (its message on the `deliveries` queue). */
export interface ReceivedNoticeEmail {
  messageId: string;
  receiptHandle: string;
  /** SQS ApproximateReceiveCount: the attempt number. */
  receiveCount: number;
  job: NoticeEmailJob;
}

export interface NoticeEmailSenderDeps {
  /** Undefined when `NOTICE_SMTP_URL` is unset: the notice is logged, not mailed. */
  mailer?: NoticeMailer;
  sent: NoticeEmailLog;
  queue: Pick<DeliveryQueue, 'postpone'>;
  schedule: RetrySchedule;
  now?: () => number;
  random?: () => number;
  log?: (level: 'info' | 'warn' | 'error', message: string, details: Record<string, unknown>) => void;
}

type Step = { kind: 'done' } | { kind: 'retry'; seconds: number } | { kind: 'keep' };

/**
 * The deliver worker's use case for notice emails, one batch at a time, each email on its own:
 *
 * 1. claim the email (`NoticeEmailLog`): one already sent, or being sent by another job, is left alone;
 * 2. send it through the mailer; on success note it as sent (a failure to note it only risks a second copy);
 * 3. a mail server that refuses or does not answer: the claim is given up and the message waits in the queue for the
 *    next attempt of the schedule (its visibility postponed); after the last one the email is given up with an error
 *    log.
 *
 * Nothing here touches the event or its deliveries, which went their own way at the fan-out. Returns the ids of the
 * messages to leave on the queue (partial batch response).
 */
export function makeNoticeEmailSender(deps: NoticeEmailSenderDeps) {
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const log = deps.log ?? (() => {});

  async function sendOne({ job, receiveCount, messageId }: ReceivedNoticeEmail): Promise<Step> {
    const details = { eventId: job.eventId, projectId: job.projectId, subject: job.email.subject };
    if (!deps.mailer) {
      log('warn', 'webhook notice not mailed: NOTICE_SMTP_URL is not set', { ...details, to: job.email.to });
      return { kind: 'done' };
    }
    // The holder is the queue message: the same across its receives, another for a repeated job.
    const claim = await deps.sent.claim(job.projectId, job.eventId, messageId, now(), NOTICE_EMAIL_CLAIM_MS);
    if (claim !== 'mine') {
      log('info', 'webhook notice email already sent or being sent by another job', { ...details, claim });
      return { kind: 'done' };
    }
    try {
      await deps.mailer.send(job.email);
    } catch (error) {
      await deps.sent.release(job.projectId, job.eventId, messageId).catch(() => undefined);
      const seconds = retryDelaySeconds(deps.schedule, receiveCount, random);
      if (seconds === undefined) {
        log('error', 'webhook notice email not sent after its last attempt; given up', {
          ...details,
          attempts: receiveCount,
          error: String(error),
        });
        return { kind: 'done' };
      }
      log('warn', 'webhook notice email not sent; it will be tried again', {
        ...details,
        attempt: receiveCount,
        retryInSeconds: Math.round(seconds),
        error: String(error),
      });
      return { kind: 'retry', seconds };
    }
    try {
      await deps.sent.markSent(job.projectId, job.eventId, messageId, now());
    } catch (error) {
      log('warn', 'webhook notice mailed but not noted as sent', { ...details, error: String(error) });
    }
    log('info', 'webhook notice mailed', details);
    return { kind: 'done' };
  }

  return {
    async sendBatch(messages: ReceivedNoticeEmail[]): Promise<string[]> {
      const steps = await Promise.all(
        messages.map((m) =>
          sendOne(m).catch((error: unknown): Step => {
            log('warn', 'webhook notice email job failed; it will be received again', {
              eventId: m.job.eventId,
              error: String(error),
            });
            return { kind: 'keep' };
          }),
        ),
      );
      const retries = messages.flatMap((m, i) => {
        const step = steps[i]!;
        return step.kind === 'retry' ? [{ receiptHandle: m.receiptHandle, seconds: step.seconds }] : [];
      });
      // A retry not postponed comes back after the queue's visibility timeout instead: early, but not lost.
      if (retries.length) await deps.queue.postpone(retries);
      return messages.filter((_, i) => steps[i]!.kind !== 'done').map((m) => m.messageId);
    },
  };
}

export type NoticeEmailSender = ReturnType<typeof makeNoticeEmailSender>;
