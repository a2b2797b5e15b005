import { type EventEnvelope, type EventMessage, NOTICE_EVENT_TYPES } from '../events/index.ts';
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

export interface NoticeEmailsDeps {
  projects: { get(projectId: string): Promise<Project | undefined> };
  /** Undefined when `NOTICE_SMTP_URL` is unset: notices are logged, not mailed (contract §18). */
  mailer?: NoticeMailer;
  /** The console's base URL, linked from the email when known. */
  consoleUrl?: string;
  log?: (level: 'info' | 'warn' | 'error', message: string, details: Record<string, unknown>) => void;
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
 * A notice's email (contract §18): the fan-out of a `webhook.failing` or `webhook.disabled` event mails the project's
 * `contactEmail`, when it has one, before it queues the event's deliveries; a mail that cannot be sent has the event
 * received again (so it is retried as the deliveries are). Without a mailer (`NOTICE_SMTP_URL` unset) the notice is
 * logged instead.
 */
export function makeNoticeEmails(deps: NoticeEmailsDeps): EventSideEffects {
  const log = deps.log ?? (() => {});
  return {
    async handle(event: EventMessage, envelope: () => Promise<EventEnvelope | undefined>): Promise<void> {
      if (!isNotice(event.eventType)) return;
      const project = await deps.projects.get(event.projectId);
      const to = project?.contactEmail;
      if (!project || !to) return;
      const parsed = await envelope();
      if (!parsed) return;
      const email = noticeEmailOf(parsed, project, to, deps.consoleUrl);
      if (!deps.mailer) {
        log('warn', 'webhook notice not mailed: NOTICE_SMTP_URL is not set', {
          eventId: event.eventId,
          type: event.eventType,
          to,
          subject: email.subject,
        });
        return;
      }
      await deps.mailer.send(email);
      log('info', 'webhook notice mailed', { eventId: event.eventId, type: event.eventType });
    },
  };
}
