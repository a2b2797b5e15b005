import {
  PutRuleCommand,
  PutTargetsCommand,
  CreateEventBusCommand,
  PutEventsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateConfigurationSetCommand,
  CreateConfigurationSetEventDestinationCommand,
  SendEmailCommand,
} from '@aws-sdk/client-sesv2';
import { CreateTopicCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import { AssumeRoleCommand } from '@aws-sdk/client-sts';
import { describe, expect, it } from 'vitest';
import { assumeRoleCalls, busEvents, newQueue, receiveMessages, topicMessages } from '#test/support/local-aws.ts';
import { startStandIns } from './stand-ins.ts';

/** What the stand-ins keep across a restart on the same folder: topics and subscriptions, buses and rules, SES sets. */
describe('the AWS stand-ins after a restart', () => {
  // Two starts of the stand-ins (each creating the service's queues and buckets): seconds on a loaded machine.
  it('keep topics, subscriptions, buses, rules, targets, configuration sets and what was received', {
    timeout: 90_000,
  }, async () => {
    const first = await startStandIns();
    const { TopicArn } = await first.sns.send(new CreateTopicCommand({ Name: 'kept-topic' }));
    const fromTopic = await newQueue(first.sqs, 'kept-from-topic');
    await first.sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: fromTopic.arn,
        Attributes: { RawMessageDelivery: 'true' },
      }),
    );
    await first.eventBridge.send(new CreateEventBusCommand({ Name: 'kept-bus' }));
    const fromBus = await newQueue(first.sqs, 'kept-from-bus');
    await first.eventBridge.send(
      new PutRuleCommand({ Name: 'kept-rule', EventBusName: 'kept-bus', EventPattern: '{"source":["app"]}' }),
    );
    await first.eventBridge.send(
      new PutTargetsCommand({ Rule: 'kept-rule', EventBusName: 'kept-bus', Targets: [{ Id: 'q', Arn: fromBus.arn }] }),
    );
    await first.ses.send(new CreateConfigurationSetCommand({ ConfigurationSetName: 'kept-set' }));
    await first.ses.send(
      new CreateConfigurationSetEventDestinationCommand({
        ConfigurationSetName: 'kept-set',
        EventDestinationName: 'topic',
        EventDestination: { Enabled: true, MatchingEventTypes: ['DELIVERY'], SnsDestination: { TopicArn } },
      }),
    );
    await first.sts.send(
      new AssumeRoleCommand({
        RoleArn: 'arn:aws:iam::123456789012:role/kept',
        RoleSessionName: 'session',
        ExternalId: 'e-1',
      }),
    );
    await first.stop(true);

    const again = await startStandIns({}, first.dir);
    try {
      await again.eventBridge.send(
        new PutEventsCommand({
          Entries: [{ EventBusName: 'kept-bus', Source: 'app', DetailType: 't', Detail: '{"n":1}' }],
        }),
      );
      expect((await receiveMessages(again.sqs, fromBus.url, 1)).map((m) => JSON.parse(m.Body!).detail)).toEqual([
        { n: 1 },
      ]);
      const { MessageId } = await again.ses.send(
        new SendEmailCommand({
          FromEmailAddress: 'a@acme.example',
          Destination: { ToAddresses: ['success@simulator.amazonses.com'] },
          ConfigurationSetName: 'kept-set',
          Content: { Simple: { Subject: { Data: 's' }, Body: { Text: { Data: 'b' } } } },
        }),
      );
      const [delivery] = await receiveMessages(again.sqs, fromTopic.url, 1);
      expect(JSON.parse(delivery!.Body!)).toMatchObject({ eventType: 'Delivery', mail: { messageId: MessageId } });
      expect(await topicMessages(again.info, TopicArn!)).toHaveLength(1);
      expect(await busEvents(again.info, 'kept-bus')).toHaveLength(1);
      expect((await assumeRoleCalls(again.info)).map((c) => c.externalId)).toEqual(['e-1']);
    } finally {
      await again.stop();
    }
  });
});
