import { randomUUID } from 'node:crypto';
import { LOCAL_ACCOUNT } from './wire.ts';

/** SES's event types, as `MatchingEventTypes` names them and as the events' `eventType` spells them. */
export const EVENT_TYPES = {
  SEND: 'Send',
  REJECT: 'Reject',
  BOUNCE: 'Bounce',
  COMPLAINT: 'Complaint',
  DELIVERY: 'Delivery',
  OPEN: 'Open',
  CLICK: 'Click',
  RENDERING_FAILURE: 'Rendering Failure',
  DELIVERY_DELAY: 'DeliveryDelay',
  SUBSCRIPTION: 'Subscription',
} as const;
export type MatchingEventType = keyof typeof EVENT_TYPES;

/** The `detail-type` SES gives each kind of event on EventBridge (`source: "aws.ses"`). */
export const DETAIL_TYPES: Record<string, string> = {
  Send: 'Email Sent',
  Reject: 'Email Rejected',
  Bounce: 'Email Bounced',
  Complaint: 'Email Complaint Received',
  Delivery: 'Email Delivered',
  Open: 'Email Opened',
  Click: 'Email Clicked',
  'Rendering Failure': 'Email Rendering Failed',
  DeliveryDelay: 'Email Delivery Delayed',
  Subscription: 'Email Subscribed',
};

/** What became of one recipient: the mailbox simulator's scenarios, or a relay's answer. */
export type Outcome =
  | { kind: 'delivered'; smtpResponse: string; thenComplaint?: boolean }
  | { kind: 'bounced'; bounceType: 'Permanent' | 'Transient'; subType: string; status: string; diagnosticCode: string };

const DELIVERED = { kind: 'delivered', smtpResponse: '250 2.6.0 Message received' } as const;

/**
 * SES's mailbox simulator (`<scenario>[+label]@simulator.amazonses.com`): success and ooto are delivered, bounce
 * is a permanent bounce with 550 5.1.1, complaint is delivered then complained about, suppressionlist bounces as an
 * address on the global suppression list. Undefined for an address outside the simulator.
 */
export function simulatorOutcome(address: string): Outcome | undefined {
  const match = /^([^@+]+)(?:\+[^@]*)?@simulator\.amazonses\.com$/i.exec(address);
  if (!match) return undefined;
  switch (match[1]!.toLowerCase()) {
    case 'bounce':
      return {
        kind: 'bounced',
        bounceType: 'Permanent',
        subType: 'General',
        status: '5.1.1',
        diagnosticCode: 'smtp; 550 5.1.1 user unknown',
      };
    case 'suppressionlist':
      return {
        kind: 'bounced',
        bounceType: 'Permanent',
        subType: 'Suppressed',
        status: '5.1.1',
        diagnosticCode:
          'Amazon SES has suppressed sending to this address because it has a recent history of bouncing as an invalid address.',
      };
    case 'complaint':
      return { ...DELIVERED, thenComplaint: true };
    default:
      return DELIVERED;
  }
}

/** The `mail` object every event of one message carries. */
export interface MailObject {
  timestamp: string;
  source: string;
  sourceArn: string;
  sendingAccountId: string;
  messageId: string;
  destination: string[];
  headersTruncated: boolean;
  headers: { name: string; value: string }[];
  commonHeaders: Record<string, unknown>;
  tags: Record<string, string[]>;
}

export function mailObject(input: {
  messageId: string;
  sentAt: Date;
  source: string;
  sourceArn: string;
  destination: string[];
  headers: { name: string; value: string }[];
  configurationSet: string;
  callerAccessKeyId: string;
  emailTags: { Name: string; Value: string }[];
}): MailObject {
  const header = (name: string) => input.headers.find((h) => h.name.toLowerCase() === name)?.value;
  const list = (name: string) =>
    header(name)
      ?.split(',')
      .map((a) => a.trim())
      .filter(Boolean);
  const fromDomain = input.source.slice(input.source.lastIndexOf('@') + 1).replace(/>$/, '');
  const tags: Record<string, string[]> = {
    'ses:configuration-set': [input.configurationSet],
    'ses:source-ip': ['127.0.0.1'],
    'ses:from-domain': [fromDomain],
    'ses:caller-identity': [input.callerAccessKeyId],
  };
  for (const tag of input.emailTags) tags[tag.Name] = [...(tags[tag.Name] ?? []), tag.Value];
  return {
    timestamp: input.sentAt.toISOString(),
    source: input.source,
    sourceArn: input.sourceArn,
    sendingAccountId: LOCAL_ACCOUNT,
    messageId: input.messageId,
    destination: input.destination,
    headersTruncated: false,
    headers: input.headers,
    commonHeaders: {
      ...(list('from') ? { from: list('from') } : {}),
      ...(list('reply-to') ? { replyTo: list('reply-to') } : {}),
      ...(header('date') ? { date: header('date') } : {}),
      ...(list('to') ? { to: list('to') } : {}),
      ...(list('cc') ? { cc: list('cc') } : {}),
      messageId: input.messageId,
      ...(header('subject') !== undefined ? { subject: header('subject') } : {}),
    },
    tags,
  };
}

/** One event record as SES publishes it (to SNS as the message, to EventBridge as the `detail`). */
export type SesEvent = { eventType: string; mail: MailObject } & Record<string, unknown>;

const REPORTING_MTA = 'a8-1.smtp-out.amazonses.com';
const feedbackId = (messageId: string) => `${messageId.split('-')[0]}-${randomUUID()}-000000`;

/**
 * When the recipient's mail server answers, after the send: SES reports a Delivery or Bounce once the receiving MTA has
 * answered (the mailbox simulator's take about a second), never in the same instant as the SendEmail answer. A sender
 * records SES's message id just after that answer, and events that came first would only be retried.
 */
const MTA_ANSWER_MS = 500;
/** A complaint comes from the recipient's provider after delivery. */
const COMPLAINT_MS = 1000;

/**
 * The events one message causes, in the order SES sends them: Send; then, per outcome, one Delivery (every delivered
 * recipient), one Bounce (every bounced recipient, SES combines them), one Complaint; or one Reject alone.
 */
export function eventsFor(
  mail: MailObject,
  outcomes: Map<string, Outcome> | 'rejected',
  now: Date,
): { event: SesEvent; offsetMs: number }[] {
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  if (outcomes === 'rejected')
    return [{ event: { eventType: 'Reject', mail, reject: { reason: 'Bad content' } }, offsetMs: 0 }];
  const events: { event: SesEvent; offsetMs: number }[] = [
    { event: { eventType: 'Send', mail, send: {} }, offsetMs: 0 },
  ];
  const delivered = [...outcomes].filter(([, o]) => o.kind === 'delivered');
  const bounced = [...outcomes].filter(([, o]) => o.kind === 'bounced') as [
    string,
    Extract<Outcome, { kind: 'bounced' }>,
  ][];
  if (delivered.length)
    events.push({
      offsetMs: MTA_ANSWER_MS,
      event: {
        eventType: 'Delivery',
        mail,
        delivery: {
          timestamp: at(MTA_ANSWER_MS),
          processingTimeMillis: MTA_ANSWER_MS,
          recipients: delivered.map(([address]) => address),
          smtpResponse: (delivered[0]![1] as { smtpResponse: string }).smtpResponse,
          reportingMTA: REPORTING_MTA,
        },
      },
    });
  for (const bounceType of ['Permanent', 'Transient'] as const) {
    const ofType = bounced.filter(([, o]) => o.bounceType === bounceType);
    if (!ofType.length) continue;
    events.push({
      offsetMs: MTA_ANSWER_MS,
      event: {
        eventType: 'Bounce',
        mail,
        bounce: {
          bounceType,
          bounceSubType: ofType[0]![1].subType,
          bouncedRecipients: ofType.map(([address, o]) => ({
            emailAddress: address,
            action: 'failed',
            status: o.status,
            diagnosticCode: o.diagnosticCode,
          })),
          timestamp: at(MTA_ANSWER_MS),
          feedbackId: feedbackId(mail.messageId),
          reportingMTA: `dsn; ${REPORTING_MTA}`,
        },
      },
    });
  }
  const complained = delivered.filter(([, o]) => o.kind === 'delivered' && o.thenComplaint);
  if (complained.length)
    events.push({
      offsetMs: COMPLAINT_MS,
      event: {
        eventType: 'Complaint',
        mail,
        complaint: {
          complainedRecipients: complained.map(([address]) => ({ emailAddress: address })),
          timestamp: at(COMPLAINT_MS),
          feedbackId: feedbackId(mail.messageId),
          userAgent: 'Amazon SES Mailbox Simulator',
          complaintFeedbackType: 'abuse',
          arrivalDate: at(2),
        },
      },
    });
  return events;
}

/** The EICAR test string: SES rejects a message carrying it as a virus (how AWS says to test Reject events). */
export const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';
