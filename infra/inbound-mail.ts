import { SES_OBJECT_PREFIX } from '#shared/contract/buckets.ts';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import {
  CfnConfigurationSet,
  CfnConfigurationSetEventDestination,
  ReceiptRuleSet,
  TlsPolicy,
} from 'aws-cdk-lib/aws-ses';
import { S3 } from 'aws-cdk-lib/aws-ses-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';

export { SES_OBJECT_PREFIX } from '#shared/contract/buckets.ts';

/**
 * Inbound mail on AWS: an SES receipt rule set whose rule stores each raw message (up to SES's
 * 40 MB; the worker refuses over 25 MB) in the transfer bucket and notifies the `inbound` queue through SNS, so
 * the same worker as for the local SMTP listener parses it. `recipients` limits the rule to the channels' domains
 * (empty: every verified domain of the account). SES allows one active rule set per region: activate it after
 * the first deploy (`aws ses set-active-receipt-rule-set`) and point the domain's MX record at
 * `inbound-smtp.<region>.amazonaws.com` (README).
 */
export function createInboundMail(
  scope: Construct,
  props: { bucket: IBucket; inboundQueue: IQueue; recipients: string[] },
): ReceiptRuleSet {
  const topic = new Topic(scope, 'InboundMailTopic', {
    displayName: 'Switchboard inbound mail stored',
    enforceSSL: true,
  });
  // Raw delivery: the queue message is SES's notification itself, as the worker reads it.
  topic.addSubscription(new SqsSubscription(props.inboundQueue, { rawMessageDelivery: true }));
  return new ReceiptRuleSet(scope, 'InboundMailRuleSet', {
    rules: [
      {
        ...(props.recipients.length ? { recipients: props.recipients } : {}),
        enabled: true,
        scanEnabled: true,
        tlsPolicy: TlsPolicy.REQUIRE,
        actions: [new S3({ bucket: props.bucket, objectKeyPrefix: SES_OBJECT_PREFIX, topic })],
      },
    ],
  });
}

/** The deployment's SES configuration set: SES email channels send in it unless they name their own. */
export const SES_CONFIGURATION_SET = 'switchboard';

/**
 * What SES says after it accepted a mail of an SES channel: the configuration set's Delivery, Bounce, Complaint and
 * Reject events go to an SNS topic that the `inbound` queue subscribes to (raw delivery: the queue message is the
 * event), where the inbound worker turns them into `message.delivered`, `message.failed` and `contact.opted_out`.
 */
export function createSesEvents(scope: Construct, props: { inboundQueue: IQueue }): CfnConfigurationSet {
  const topic = new Topic(scope, 'SesEventsTopic', { displayName: 'Switchboard SES sending events', enforceSSL: true });
  topic.addSubscription(new SqsSubscription(props.inboundQueue, { rawMessageDelivery: true }));
  const set = new CfnConfigurationSet(scope, 'SesConfigurationSet', { name: SES_CONFIGURATION_SET });
  const destination = new CfnConfigurationSetEventDestination(scope, 'SesEventDestination', {
    configurationSetName: SES_CONFIGURATION_SET,
    eventDestination: {
      name: 'inbound',
      enabled: true,
      matchingEventTypes: ['delivery', 'bounce', 'complaint', 'reject'],
      snsDestination: { topicArn: topic.topicArn },
    },
  });
  destination.addDependency(set);
  // SES publishes to the topic as its service principal, for this account's configuration sets only.
  topic.addToResourcePolicy(
    new PolicyStatement({
      actions: ['sns:Publish'],
      principals: [new ServicePrincipal('ses.amazonaws.com')],
      resources: [topic.topicArn],
      conditions: { StringEquals: { 'AWS:SourceAccount': Stack.of(scope).account } },
    }),
  );
  return set;
}
