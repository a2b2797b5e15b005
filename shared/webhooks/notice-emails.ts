import { type EventEnvelope, type EventMessage, NOTICE_EVENT_TYPES } from '../events/index.ts';
import { failpoint } from '../kernel/failpoints.ts';
import type { Project } from '../projects/index.ts';
import type { EventSideEffects } from './fanout.ts';

/** One notice email. */
export interface NoticeEmail {
  to: string;
  subject: string;
  text: string;
  /** `Message-ID`, derived from the event id: a notice mailed twice (a fan-out retried) threads as one. */
  messageId: string;
}

/** Where notice emails leave (adapter: `adapters/smtp-notice-mailer.ts`, the SMTP server in `NOTICE_SMTP_URL`). */
export interface NoticeMailer {
  send(email: NoticeEmail): Promise<void>;
}

/**
 * A notice's email as a job of its own on the `deliveries` queue, sent by the deliver worker
 * (`send-notice-email.ts`) with its own retries: the mail server's answer never holds the event's fan-out.
 */
export interface NoticeEmailJob {
  v: 1;
  kind: 'notice-email';
  projectId: string;
  eventId: string;
  email: NoticeEmail;
}

/** Where the fan-out queues notice emails (adapter: `SqsJsonQueue` on `deliveries`). */
export interface NoticeEmailQueue {
  send(job: NoticeEmailJob): Promise<void>;
}

export function isNoticeEmailJob(value: unknown): value is NoticeEmailJob {
  const job = value as Partial<NoticeEmailJob> | null;
  const email = job?.email as Partial<NoticeEmail> | undefined;
  return (
    typeof job === 'object' &&
    job !== null &&
    job.kind === 'notice-email' &&
    typeof job.projectId === 'string' &&
    typeof job.eventId === 'string' &&
    typeof email?.to === 'string' &&
    typeof email.subject === 'string' &&
    typeof email.text === 'string' &&
    typeof email.messageId === 'string'
  );
}

export interface NoticeEmailsDeps {
  projects: { get(projectId: string): Promise<Project | undefined> };
  queue: NoticeEmailQueue;
  /** The console's base URL, linked from the email when known. */
  consoleUrl?: string;
}

const isNotice = (type: string) => (NOTICE_EVENT_TYPES as readonly string[]).includes(type);

/** The email of a notice event: what happened to which webhook, and what to do about it. */
export function noticeEmailOf(envelope: EventEnvelope, project: Project, to: string, consoleUrl?: string): NoticeEmail {
  const data = envelope.data as {
    integrationId?: string;
    consecutiveFailures?: number;
    since?: string;
    reason?: string;
  };
  const webhook = data.integrationId ?? 'a webhook';
  const where = `project "${project.name}" (${project.projectId})`;
  const [subject, what] =
    envelope.type === 'webhook.failing'
      ? [
          `Webhook ${webhook} is failing`,
          `Webhook ${webhook} of ${where} has failed ${data.consecutiveFailures} delivery attempts in a row since ` +
            `${data.since}. Deliveries are retried on the schedule; if every attempt keeps failing for 5 days the ` +
            'webhook is disabled.',
        ]
      : [
          `Webhook ${webhook} was disabled`,
          `Webhook ${webhook} of ${where} was disabled: ` +
            (data.reason === 'gone'
              ? 'its receiver answered 410 Gone.'
              : 'every delivery attempt to it failed for 5 days in a row.') +
            ' No events are sent to it until it is enabled again (PATCH enabled: true); its failed deliveries can be ' +
            'recovered then (POST …/recover).',
        ];
  return {
    to,
    subject: `[Switchboard] ${subject}`,
    text: [
      what,
      '',
      `Event: ${envelope.type} ${envelope.id} at ${envelope.timestamp}.`,
      ...(consoleUrl ? [`Console: ${consoleUrl}`] : []),
      '',
      'You get this email because this address is the project’s contactEmail.',
    ].join('\n'),
    messageId: `<${envelope.id}@notices.switchboard>`,
  };
}

/**
 * A notice's email: the fan-out of a `webhook.failing` or `webhook.disabled` event, for a project with a
 * `contactEmail`, queues the email as a job of its own ({@link NoticeEmailJob}) before it queues the event's
 * deliveries. Only a failure to queue it has the event received again; sending it, and retrying a mail server that
 * refuses or does not answer, is the job's business, so the notice's deliveries and the project's later events never
 * wait for the mail server.
 */
export function makeNoticeEmails(deps: NoticeEmailsDeps): EventSideEffects {
  return {
    async handle(event: EventMessage, envelope: () => Promise<EventEnvelope | undefined>): Promise<void> {
      if (!isNotice(event.eventType)) return;
      const project = await deps.projects.get(event.projectId);
      const to = project?.contactEmail;
      if (!project || !to) return;
      const parsed = await envelope();
      if (!parsed) return;
      await deps.queue.send({
        v: 1,
        kind: 'notice-email',
        projectId: event.projectId,
        eventId: event.eventId,
        email: noticeEmailOf(parsed, project, to, deps.consoleUrl),
      });
      failpoint('after-notice-email-queued');
    },
  };
}
