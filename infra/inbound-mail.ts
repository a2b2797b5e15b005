import { SES_OBJECT_PREFIX } from '#shared/contract/buckets.ts';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { ReceiptRuleSet, TlsPolicy } from 'aws-cdk-lib/aws-ses';
import { S3 } from 'aws-cdk-lib/aws-ses-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

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
