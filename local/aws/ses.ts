import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { transaction } from './database.ts';
import type { Delivery, Outbox } from './outbox.ts';
import { createSesConfigurationSets } from './ses-configuration-sets.ts';
import {
  EICAR,
  EVENT_TYPES,
  DETAIL_TYPES,
  eventsFor,
  mailObject,
  simulatorOutcome,
  type Outcome,
  type SesEvent,
} from './ses-events.ts';
import { relayMail } from './ses-relay.ts';
import { AwsError, LOCAL_ACCOUNT, type AwsAnswer, type AwsRequest, type StandInService } from './wire.ts';

/** SES v2's limits: 50 recipients per message, 40 MB per message. */
const MAX_RECIPIENTS = 50;
const MAX_MESSAGE_BYTES = 40 * 1024 * 1024;
/** What the stand-in keeps of sent mail for a test to read (`GET /_local/mails`): the latest messages. */
const MAILS_KEPT = 1000;

export interface SesOptions {
  db: DatabaseSync;
  outbox: Outbox;
  region: string;
  /** Mail to addresses outside the mailbox simulator is also relayed here (an `smtp://` URL), if set. */
  relaySmtpUrl?: string;
  onError?: (error: unknown) => void;
}

interface Destination {
  ToAddresses?: string[];
  CcAddresses?: string[];
  BccAddresses?: string[];
}

/**
 * SES v2's stand-in (REST-JSON): `SendEmail` (simple or raw content, a configuration set, tags), configuration sets
 * and their event destinations (an SNS topic or the default event bus, as on AWS), `GetAccount`. Each message's events
 * (./ses-events.ts: the mailbox simulator's scenarios, Delivery for any other address, Reject for the EICAR test
 * string) go to the configuration set's destinations through the outbox, in SES's event JSON. Sent mail is kept for
 * `GET /_local/mails`; configuration sets, destinations, mail and events not yet published persist.
 */
export function createSes(options: SesOptions): StandInService {
  const { db, outbox, region } = options;
  db.exec(`CREATE TABLE IF NOT EXISTS ses_mails (seq INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT NOT NULL UNIQUE,
    record TEXT NOT NULL, at INTEGER NOT NULL)`);
  const sets = createSesConfigurationSets(db);
  const insertMail = db.prepare('INSERT INTO ses_mails (message_id, record, at) VALUES (?, ?, ?)');
  const trimMails = db.prepare(
    `DELETE FROM ses_mails WHERE seq <= (SELECT seq FROM ses_mails ORDER BY seq DESC LIMIT 1 OFFSET ${MAILS_KEPT})`,
  );
  const sentToday = db.prepare('SELECT COUNT(*) AS n FROM ses_mails WHERE at > ?');

  /** The deliveries of `events` to the configuration set's enabled destinations that match their types. */
  function deliveries(configurationSet: string | undefined, event: SesEvent): Delivery[] {
    if (!configurationSet) return [];
    const setArn = `arn:aws:ses:${region}:${LOCAL_ACCOUNT}:configuration-set/${configurationSet}`;
    return sets.destinationsOf(configurationSet).flatMap((d): Delivery[] => {
      const matches = d.MatchingEventTypes.some((t) => EVENT_TYPES[t] === event.eventType);
      if (!d.Enabled || !matches) return [];
      const detail = JSON.stringify(event);
      if (d.SnsDestination) return [{ kind: 'sns', topicArn: d.SnsDestination.TopicArn, message: detail }];
      return [
        {
          kind: 'events',
          busArn: d.EventBridgeDestination!.EventBusArn,
          source: 'aws.ses',
          detailType: DETAIL_TYPES[event.eventType] ?? event.eventType,
          detail,
          resources: [setArn],
        },
      ];
    });
  }

  function publish(configurationSet: string | undefined, events: ReturnType<typeof eventsFor>, base: number): void {
    for (const { event, offsetMs } of events)
      for (const delivery of deliveries(configurationSet, event)) outbox.add(delivery, base + offsetMs);
  }

  async function sendEmail(input: Record<string, unknown>, caller: string): Promise<AwsAnswer> {
    const configurationSet = input.ConfigurationSetName as string | undefined;
    if (configurationSet !== undefined) sets.get(configurationSet);
    const message = await composeMessage(input);
    const recipients = [...new Set([...message.to, ...message.cc, ...message.bcc])];
    if (!recipients.length) throw new AwsError(400, 'BadRequestException', 'Missing final destination: no recipients.');
    if (recipients.length > MAX_RECIPIENTS)
      throw new AwsError(400, 'BadRequestException', `Recipient count exceeds ${MAX_RECIPIENTS}.`);
    const sender = bareAddress(message.from);
    const bad = [sender, ...recipients].find((a) => !/^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$/.test(a));
    if (bad) throw new AwsError(400, 'BadRequestException', `Illegal address: ${bad}`);

    const sentAt = new Date();
    const messageId = `0100${sentAt.getTime().toString(16).padStart(12, '0')}-${randomUUID()}-000000`;
    const mail = mailObject({
      messageId,
      sentAt,
      source: message.from,
      sourceArn:
        (input.FromEmailAddressIdentityArn as string | undefined) ??
        `arn:aws:ses:${region}:${LOCAL_ACCOUNT}:identity/${sender}`,
      destination: recipients,
      headers: message.headers,
      configurationSet: configurationSet ?? '',
      callerAccessKeyId: caller,
      emailTags: (input.EmailTags as { Name: string; Value: string }[] | undefined) ?? [],
    });
    if (!configurationSet) delete mail.tags['ses:configuration-set'];
    const rejected = message.carriesEicar;
    const relayed = rejected || !options.relaySmtpUrl ? [] : recipients.filter((r) => !simulatorOutcome(r));
    const outcomes = new Map<string, Outcome>();
    for (const r of recipients)
      if (!relayed.includes(r))
        outcomes.set(r, simulatorOutcome(r) ?? { kind: 'delivered', smtpResponse: '250 2.6.0 Message received' });
    const events = eventsFor(mail, rejected ? 'rejected' : outcomes, sentAt);
    const record = {
      messageId,
      from: sender,
      to: message.to,
      cc: message.cc,
      bcc: message.bcc,
      replyTo: message.replyTo,
      subject: message.subject,
      text: message.text,
      html: message.html,
      configurationSetName: configurationSet,
      tags: input.EmailTags ?? [],
      callerAccessKeyId: caller,
      sentAt: sentAt.toISOString(),
      events: events.map((e) => e.event.eventType),
      ...(relayed.length ? { relayedTo: relayed } : {}),
      raw: message.raw.toString('utf8'),
    };
    transaction(db, () => {
      insertMail.run(messageId, JSON.stringify(record), sentAt.getTime());
      trimMails.run();
      publish(configurationSet, events, sentAt.getTime());
    });
    if (relayed.length)
      void relayMail(options.relaySmtpUrl!, sender, relayed, message.raw).then(
        (relayOutcomes) => publish(configurationSet, eventsFor(mail, relayOutcomes, new Date()).slice(1), Date.now()),
        options.onError,
      );
    return { json: { MessageId: messageId } };
  }

  const routes: [
    string,
    RegExp,
    (match: string[], input: Record<string, unknown>, caller: string) => AwsAnswer | Promise<AwsAnswer>,
  ][] = [
    ['POST', /^\/v2\/email\/outbound-emails$/, (_m, input, caller) => sendEmail(input, caller)],
    [
      'GET',
      /^\/v2\/email\/account$/,
      () => ({
        json: {
          DedicatedIpAutoWarmupEnabled: false,
          EnforcementStatus: 'HEALTHY',
          ProductionAccessEnabled: true,
          SendingEnabled: true,
          SendQuota: {
            Max24HourSend: 50_000,
            MaxSendRate: 14,
            SentLast24Hours: (sentToday.get(Date.now() - 86_400_000) as { n: number }).n,
          },
        },
      }),
    ],
    ...sets.routes,
  ];

  return {
    async handle(request: AwsRequest) {
      const method = request.method;
      for (const [verb, path, handler] of routes) {
        const match = path.exec(request.url.pathname);
        if (verb !== method || !match) continue;
        let input: Record<string, unknown> = {};
        if (request.body.length) {
          try {
            input = JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
          } catch {
            throw new AwsError(400, 'BadRequestException', 'The request body is not valid JSON.');
          }
        }
        return handler(match.slice(1).map(decodeURIComponent), input, request.accessKeyId);
      }
      throw new AwsError(404, 'NotFoundException', `No operation at ${method} ${request.url.pathname}`);
    },
    inspect(path, query) {
      if (path !== 'mails') return undefined;
      const to = query.get('to')?.toLowerCase();
      const messageId = query.get('messageId');
      const rows = db.prepare('SELECT record FROM ses_mails ORDER BY seq').all() as { record: string }[];
      const mails = rows
        .map((r) => JSON.parse(r.record) as { messageId: string; to: string[]; cc: string[]; bcc: string[] })
        .filter((m) => !messageId || m.messageId === messageId)
        .filter((m) => !to || [...m.to, ...m.cc, ...m.bcc].some((a) => a.toLowerCase() === to));
      return { mails };
    },
  };
}

/** `Name <a@b.c>` → `a@b.c`. */
function bareAddress(address: string): string {
  return (/<([^<>]+)>\s*$/.exec(address)?.[1] ?? address).trim();
}

interface ComposedMessage {
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject?: string;
  text?: string;
  html?: string;
  headers: { name: string; value: string }[];
  raw: Buffer;
  carriesEicar: boolean;
}

/** The message as SES would send it: simple content composed into MIME, raw content as given; its headers read back. */
async function composeMessage(input: Record<string, unknown>): Promise<ComposedMessage> {
  const content = (input.Content ?? {}) as {
    Simple?: {
      Subject?: { Data?: string };
      Body?: { Text?: { Data?: string }; Html?: { Data?: string } };
      Headers?: { Name: string; Value: string }[];
    };
    Raw?: { Data?: string };
    Template?: unknown;
  };
  const destination = (input.Destination ?? {}) as Destination;
  const replyTo = (input.ReplyToAddresses as string[] | undefined) ?? [];
  const kinds = (['Simple', 'Raw', 'Template'] as const).filter((k) => content[k] !== undefined);
  if (kinds.length !== 1)
    throw new AwsError(400, 'BadRequestException', 'Exactly one of Simple, Raw or Template content is required.');
  if (kinds[0] === 'Template')
    throw new AwsError(400, 'BadRequestException', 'The local stand-in sends simple and raw content only.');
  let raw: Buffer;
  const from = input.FromEmailAddress as string | undefined;
  if (content.Simple) {
    if (!from) throw new AwsError(400, 'BadRequestException', 'Missing required parameter FromEmailAddress.');
    const { default: MailComposer } = await import('nodemailer/lib/mail-composer');
    raw = await new Promise<Buffer>((resolve, reject) =>
      new MailComposer({
        from,
        to: destination.ToAddresses,
        cc: destination.CcAddresses,
        replyTo,
        subject: content.Simple!.Subject?.Data,
        text: content.Simple!.Body?.Text?.Data,
        html: content.Simple!.Body?.Html?.Data,
        headers: Object.fromEntries((content.Simple!.Headers ?? []).map((h) => [h.Name, h.Value])),
      })
        .compile()
        .build((error, built) => (error ? reject(error) : resolve(built))),
    );
  } else {
    if (typeof content.Raw?.Data !== 'string')
      throw new AwsError(400, 'BadRequestException', 'Raw content needs Data.');
    raw = Buffer.from(content.Raw.Data, 'base64');
  }
  if (raw.length > MAX_MESSAGE_BYTES)
    throw new AwsError(400, 'BadRequestException', 'Message length is more than 40 MB.');
  const { simpleParser } = await import('mailparser');
  const parsed = await simpleParser(raw, {
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipImageLinks: true,
    skipTextLinks: true,
  });
  const headers = parsed.headerLines.map(({ line }) => {
    const colon = line.indexOf(':');
    return {
      name: line.slice(0, colon),
      value: line
        .slice(colon + 1)
        .replace(/\r?\n[ \t]+/g, ' ')
        .trim(),
    };
  });
  const addresses = (field: unknown) =>
    (Array.isArray(field) ? field : field ? [field] : []).flatMap((a: { value: { address?: string }[] }) =>
      a.value.map((v) => v.address ?? '').filter(Boolean),
    );
  const sender = from ?? addresses(parsed.from)[0];
  if (!sender) throw new AwsError(400, 'BadRequestException', "Missing required header 'From'.");
  const given = destination.ToAddresses || destination.CcAddresses || destination.BccAddresses;
  const carriesEicar = [
    parsed.text,
    parsed.html || undefined,
    ...parsed.attachments.map((a) => a.content.toString('latin1')),
  ].some((part) => typeof part === 'string' && part.includes(EICAR));
  return {
    from: sender,
    to: given ? (destination.ToAddresses ?? []) : addresses(parsed.to),
    cc: given ? (destination.CcAddresses ?? []) : addresses(parsed.cc),
    bcc: given ? (destination.BccAddresses ?? []) : addresses(parsed.bcc),
    replyTo,
    ...(parsed.subject !== undefined ? { subject: parsed.subject } : {}),
    ...(parsed.text !== undefined ? { text: parsed.text } : {}),
    ...(typeof parsed.html === 'string' ? { html: parsed.html } : {}),
    headers,
    raw,
    carriesEicar,
  };
}
