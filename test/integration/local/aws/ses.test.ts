import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import {
  AlreadyExistsException,
  BadRequestException,
  CreateConfigurationSetCommand,
  CreateConfigurationSetEventDestinationCommand,
  GetConfigurationSetEventDestinationsCommand,
  NotFoundException,
  SendEmailCommand,
  type SendEmailCommandInput,
} from '@aws-sdk/client-sesv2';
import { CreateTopicCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EICAR } from '#local/aws/ses-events.ts';
import { newQueue, receiveMessages, sentMails, topicMessages } from '#test/support/local-aws.ts';
import { startStandIns, type StandIns } from './stand-ins.ts';

/**
 * SES v2's stand-in through its SDK client: SendEmail, configuration sets, and the mailbox simulator's events in SES's
 * JSON, routed as on AWS through an SNS topic or the default event bus to an SQS queue.
 */
let aws: StandIns;
let relay: SMTPServer;
const relayed: { rcptTo: string[]; raw: string }[] = [];
beforeAll(async () => {
  relay = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      callback(
        address.address.startsWith('nobody@')
          ? Object.assign(new Error('No such user'), { responseCode: 550 })
          : undefined,
      );
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        relayed.push({ rcptTo: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString() });
        callback();
      });
    },
  });
  relay.listen(0, '127.0.0.1');
  await once(relay.server, 'listening');
  aws = await startStandIns({ sesRelaySmtpUrl: `smtp://127.0.0.1:${(relay.server.address() as AddressInfo).port}` });
});
afterAll(async () => {
  await aws?.stop();
  await new Promise<void>((r) => relay?.close(() => r()));
});

const ALL = ['SEND', 'DELIVERY', 'BOUNCE', 'COMPLAINT', 'REJECT'] as const;
const simple = (to: string, configurationSet: string, subject = 'Hello'): SendEmailCommandInput => ({
  FromEmailAddress: 'Acme <news@acme.example>',
  Destination: { ToAddresses: [to] },
  ConfigurationSetName: configurationSet,
  Content: {
    Simple: { Subject: { Data: subject }, Body: { Text: { Data: 'Hi there' }, Html: { Data: '<p>Hi there</p>' } } },
  },
  EmailTags: [{ Name: 'channel', Value: 'ch_1' }],
});

/** The SES events in a queue subscribed (raw) to a topic, or targeted by a rule: the record, per message id. */
async function eventsByMessage(url: string, count: number, unwrap: (body: any) => any) {
  const bodies = (await receiveMessages(aws.sqs, url, count)).map((m) => unwrap(JSON.parse(m.Body!)));
  const byMessage = new Map<string, any[]>();
  for (const record of bodies)
    byMessage.set(record.mail.messageId, [...(byMessage.get(record.mail.messageId) ?? []), record]);
  return byMessage;
}

describe('the SES stand-in', () => {
  it('publishes the mailbox simulator events to an SNS topic in SES event JSON, as SES does', async () => {
    const { TopicArn } = await aws.sns.send(new CreateTopicCommand({ Name: 'ses-events' }));
    const queue = await newQueue(aws.sqs, 'ses-events-sns');
    await aws.sns.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: queue.arn }));
    await aws.ses.send(new CreateConfigurationSetCommand({ ConfigurationSetName: 'via-sns' }));
    await aws.ses.send(
      new CreateConfigurationSetEventDestinationCommand({
        ConfigurationSetName: 'via-sns',
        EventDestinationName: 'to-topic',
        EventDestination: { Enabled: true, MatchingEventTypes: [...ALL], SnsDestination: { TopicArn } },
      }),
    );
    const ids: Record<string, string> = {};
    for (const scenario of ['success', 'bounce', 'complaint', 'suppressionlist'])
      ids[scenario] = (
        await aws.ses.send(new SendEmailCommand(simple(`${scenario}@simulator.amazonses.com`, 'via-sns')))
      ).MessageId!;
    // SNS's envelope around each record: the record is its Message.
    const events = await eventsByMessage(queue.url, 2 + 2 + 3 + 2, (envelope) => {
      expect(envelope.Type).toBe('Notification');
      expect(envelope.TopicArn).toBe(TopicArn);
      return JSON.parse(envelope.Message);
    });
    const types = (scenario: string) => events.get(ids[scenario]!)?.map((e) => e.eventType);
    expect(types('success')).toEqual(['Send', 'Delivery']);
    expect(types('bounce')).toEqual(['Send', 'Bounce']);
    expect(types('complaint')).toEqual(['Send', 'Delivery', 'Complaint']);
    expect(types('suppressionlist')).toEqual(['Send', 'Bounce']);

    const [, bounce] = events.get(ids.bounce!)!;
    expect(bounce.bounce).toMatchObject({
      bounceType: 'Permanent',
      bounceSubType: 'General',
      bouncedRecipients: [{ emailAddress: 'bounce@simulator.amazonses.com', action: 'failed', status: '5.1.1' }],
      feedbackId: expect.any(String),
    });
    expect(bounce.mail).toMatchObject({
      messageId: ids.bounce,
      source: 'Acme <news@acme.example>',
      destination: ['bounce@simulator.amazonses.com'],
      sendingAccountId: '000000000000',
      commonHeaders: { subject: 'Hello', to: ['bounce@simulator.amazonses.com'], messageId: ids.bounce },
      tags: { 'ses:configuration-set': ['via-sns'], channel: ['ch_1'] },
    });
    expect(bounce.mail.headers.map((h: { name: string }) => h.name)).toContain('Subject');
    expect(events.get(ids.suppressionlist!)![1].bounce).toMatchObject({
      bounceType: 'Permanent',
      bounceSubType: 'Suppressed',
    });
    const [, delivery, complaint] = events.get(ids.complaint!)!;
    expect(delivery.delivery).toMatchObject({
      recipients: ['complaint@simulator.amazonses.com'],
      smtpResponse: expect.stringMatching(/^250 /),
    });
    expect(complaint.complaint).toMatchObject({
      complainedRecipients: [{ emailAddress: 'complaint@simulator.amazonses.com' }],
      complaintFeedbackType: 'abuse',
    });
  });

  it('puts events on the default event bus as aws.ses, routed by a rule to an SQS queue', async () => {
    const queue = await newQueue(aws.sqs, 'ses-events-bus');
    await aws.eventBridge.send(
      new PutRuleCommand({
        Name: 'ses-verdicts',
        EventPattern: JSON.stringify({
          source: ['aws.ses'],
          'detail-type': ['Email Delivered', 'Email Bounced', 'Email Complaint Received'],
        }),
      }),
    );
    await aws.eventBridge.send(new PutTargetsCommand({ Rule: 'ses-verdicts', Targets: [{ Id: 'q', Arn: queue.arn }] }));
    await aws.ses.send(new CreateConfigurationSetCommand({ ConfigurationSetName: 'via-bus' }));
    await aws.ses.send(
      new CreateConfigurationSetEventDestinationCommand({
        ConfigurationSetName: 'via-bus',
        EventDestinationName: 'to-bus',
        EventDestination: {
          Enabled: true,
          MatchingEventTypes: ['DELIVERY', 'BOUNCE', 'COMPLAINT'],
          EventBridgeDestination: { EventBusArn: 'arn:aws:events:us-east-1:000000000000:event-bus/default' },
        },
      }),
    );
    const { MessageId } = await aws.ses.send(
      new SendEmailCommand({
        ...simple('complaint@simulator.amazonses.com', 'via-bus'),
        Destination: { ToAddresses: ['complaint+a@simulator.amazonses.com', 'bounce+b@simulator.amazonses.com'] },
      }),
    );
    const messages = (await receiveMessages(aws.sqs, queue.url, 3)).map((m) => JSON.parse(m.Body!));
    expect(messages.map((m) => [m.source, m['detail-type'], m.detail.eventType])).toEqual([
      ['aws.ses', 'Email Delivered', 'Delivery'],
      ['aws.ses', 'Email Bounced', 'Bounce'],
      ['aws.ses', 'Email Complaint Received', 'Complaint'],
    ]);
    expect(messages[0].resources).toEqual(['arn:aws:ses:us-east-1:000000000000:configuration-set/via-bus']);
    expect(messages[1].detail.mail.messageId).toBe(MessageId);
    expect(messages[1].detail.bounce.bouncedRecipients.map((r: { emailAddress: string }) => r.emailAddress)).toEqual([
      'bounce+b@simulator.amazonses.com',
    ]);
  });

  it('sends raw content, records every mail, rejects the EICAR test file, and relays other addresses', async () => {
    const raw = [
      'From: Support <help@acme.example>',
      'To: customer@example.net',
      'Subject: Raw one',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Plain body',
      '',
    ].join('\r\n');
    const sent = await aws.ses.send(new SendEmailCommand({ Content: { Raw: { Data: Buffer.from(raw) } } }));
    const [mail] = await sentMails(aws.info, { messageId: sent.MessageId });
    expect(mail).toMatchObject({
      from: 'help@acme.example',
      to: ['customer@example.net'],
      subject: 'Raw one',
      text: 'Plain body\n',
    });
    expect(mail!.raw).toContain('Subject: Raw one');
    await expect
      .poll(() => relayed.find((r) => r.raw.includes('Subject: Raw one'))?.rcptTo, { timeout: 10_000 })
      .toEqual(['customer@example.net']);

    const virus = await aws.ses.send(
      new SendEmailCommand({
        ...simple('success@simulator.amazonses.com', 'via-sns'),
        Content: { Simple: { Subject: { Data: 'x' }, Body: { Text: { Data: EICAR } } } },
      }),
    );
    expect((await sentMails(aws.info, { messageId: virus.MessageId }))[0]!.events).toEqual(['Reject']);
    const simulated = await sentMails(aws.info, { to: 'success@simulator.amazonses.com' });
    expect(simulated.at(-2)!.events).toEqual(['Send', 'Delivery']);

    // The relay refuses the address with 550: a permanent bounce, published once the relay answered.
    const refused = await aws.ses.send(new SendEmailCommand(simple('nobody@example.net', 'via-sns')));
    const topicArn = 'arn:aws:sns:us-east-1:000000000000:ses-events';
    await expect
      .poll(
        async () =>
          (await topicMessages(aws.info, topicArn))
            .map((m) => JSON.parse(m.message))
            .filter((e) => e.mail.messageId === refused.MessageId)
            .map((e) => [e.eventType, e.bounce?.bounceType, e.bounce?.bouncedRecipients[0].diagnosticCode]),
        { timeout: 10_000 },
      )
      .toEqual([
        ['Send', undefined, undefined],
        ['Bounce', 'Permanent', expect.stringMatching(/^smtp; 550/)],
      ]);
  });

  it('answers with the exceptions the SDK names', async () => {
    const unknown = await aws.ses
      .send(new SendEmailCommand(simple('success@simulator.amazonses.com', 'no-such-set')))
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(NotFoundException);
    expect((unknown as NotFoundException).$metadata.httpStatusCode).toBe(404);
    const twice = await aws.ses
      .send(new CreateConfigurationSetCommand({ ConfigurationSetName: 'via-sns' }))
      .catch((e: unknown) => e);
    expect(twice).toBeInstanceOf(AlreadyExistsException);
    const otherBus = await aws.ses
      .send(
        new CreateConfigurationSetEventDestinationCommand({
          ConfigurationSetName: 'via-sns',
          EventDestinationName: 'custom-bus',
          EventDestination: {
            Enabled: true,
            MatchingEventTypes: ['BOUNCE'],
            EventBridgeDestination: { EventBusArn: 'arn:aws:events:us-east-1:000000000000:event-bus/mine' },
          },
        }),
      )
      .catch((e: unknown) => e);
    expect(otherBus).toBeInstanceOf(BadRequestException);
    const badAddress = await aws.ses
      .send(new SendEmailCommand(simple('not-an-address', 'via-sns')))
      .catch((e: unknown) => e);
    expect(badAddress).toBeInstanceOf(BadRequestException);
    const missing = await aws.ses
      .send(new GetConfigurationSetEventDestinationsCommand({ ConfigurationSetName: 'nope' }))
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundException);
  });
});
