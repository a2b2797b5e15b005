import { createHash } from 'node:crypto';
import { PutEventsCommand, type PutEventsCommandOutput } from '@aws-sdk/client-eventbridge';
import { PutRecordCommand } from '@aws-sdk/client-kinesis';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { PublishCommand } from '@aws-sdk/client-sns';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { DestinationDelivery } from '../destination-sender.ts';

/** The one call a delivery makes, and how to read a refusal the service answers with 200 (PutEvents' entries). */
export interface DestinationMessage {
  operation: string;
  command: unknown;
  refusal?: (output: unknown) => string | undefined;
}

/** EventBridge's `source` on every event we put (sources starting `aws.` are AWS's own). */
export const EVENT_SOURCE = 'switchboard';

/**
 * What each service receives: the envelope exactly as signed, and the Standard Webhooks headers where the service
 * has a place for them:
 * - SQS, SNS: the body is the envelope; the headers are String message attributes; a FIFO queue or topic groups by
 *   the ordering key (deduplicated by the delivery id within the service's 5 minutes);
 * - EventBridge: `detail` holds the headers beside the parsed envelope (`envelope`); `detail-type` the webhook's
 *   `detailType`, else the event type;
 * - Kinesis: the record is the envelope, partitioned by the ordering key (records have no attributes);
 * - S3: one object per event at `<prefix><yyyy>/<mm>/<dd>/<eventId>.json` (the event's UTC date), the headers as its
 *   metadata.
 */
export function destinationMessages(delivery: DestinationDelivery): DestinationMessage {
  const { destination, body, headers } = delivery;
  const attributes = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, { DataType: 'String', StringValue: value }]),
  );
  switch (destination.type) {
    case 'sqs': {
      const fifo = destination.queueUrl.endsWith('.fifo');
      return {
        operation: 'SendMessage',
        command: new SendMessageCommand({
          QueueUrl: destination.queueUrl,
          MessageBody: body,
          MessageAttributes: attributes,
          ...(fifo ? groupOf(delivery) : {}),
        }),
      };
    }
    case 'sns': {
      const fifo = destination.topicArn.endsWith('.fifo');
      return {
        operation: 'Publish',
        command: new PublishCommand({
          TopicArn: destination.topicArn,
          Message: body,
          MessageAttributes: attributes,
          ...(fifo ? groupOf(delivery) : {}),
        }),
      };
    }
    case 'eventbridge':
      return {
        operation: 'PutEvents',
        command: new PutEventsCommand({
          Entries: [
            {
              EventBusName: destination.eventBusArn,
              Source: EVENT_SOURCE,
              DetailType: destination.detailType ?? eventTypeOf(body),
              Detail: `{${Object.entries(headers)
                .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
                .join(',')},"envelope":${body}}`,
            },
          ],
        }),
        refusal: (output) => {
          const entry = (output as PutEventsCommandOutput).Entries?.[0];
          if (!(output as PutEventsCommandOutput).FailedEntryCount && !entry?.ErrorCode) return undefined;
          return `eventbridge PutEvents: ${entry?.ErrorCode ?? 'Failed'}: ${entry?.ErrorMessage ?? 'entry refused'}`;
        },
      };
    case 'kinesis':
      return {
        operation: 'PutRecord',
        command: new PutRecordCommand({
          StreamARN: destination.streamArn,
          Data: Buffer.from(body),
          PartitionKey: fitted(delivery.orderKey, 256),
        }),
      };
    case 's3':
      return {
        operation: 'PutObject',
        command: new PutObjectCommand({
          Bucket: destination.bucket,
          Key: `${destination.prefix ?? ''}${datePath(body)}/${delivery.eventId}.json`,
          Body: body,
          ContentType: 'application/json',
          Metadata: headers,
        }),
      };
  }
}

/** FIFO: the ordering key is the message group (hashed when it does not fit SQS's 128 characters and alphabet). */
function groupOf(delivery: DestinationDelivery) {
  return { MessageGroupId: fitted(delivery.orderKey, 128), MessageDeduplicationId: delivery.deliveryId };
}

const GROUP_ALPHABET = /^[\x21-\x7e]+$/;

function fitted(key: string, max: number): string {
  if (key.length <= max && GROUP_ALPHABET.test(key)) return key;
  return `sha256:${createHash('sha256').update(key).digest('base64url')}`;
}

function envelopeOf(body: string): { type?: unknown; timestamp?: unknown } {
  try {
    return JSON.parse(body) as { type?: unknown; timestamp?: unknown };
  } catch {
    return {};
  }
}

function eventTypeOf(body: string): string {
  const type = envelopeOf(body).type;
  return typeof type === 'string' ? type : 'event';
}

/** `yyyy/mm/dd` of the event's `timestamp`, in UTC. */
function datePath(body: string): string {
  const timestamp = envelopeOf(body).timestamp;
  const at = new Date(typeof timestamp === 'string' ? timestamp : Date.now());
  const day = Number.isNaN(at.getTime()) ? new Date() : at;
  return day.toISOString().slice(0, 10).replaceAll('-', '/');
}
