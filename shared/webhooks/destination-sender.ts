import type { AwsDestination } from '../integrations/index.ts';
import type { AttemptOutcome } from './sender.ts';

/**
 * The port through which a delivery leaves for a destination in the customer's AWS account (a queue, topic, bus,
 * stream or bucket; adapter: `adapters/aws-destination-sender.ts`). The same envelope and Standard Webhooks headers
 * as an HTTP delivery, carried the way the service carries them.
 */
export interface DestinationDelivery {
  destination: AwsDestination;
  /** The project's external id, named when assuming `destination.roleArn`. */
  externalId: string;
  projectId: string;
  deliveryId: string;
  eventId: string;
  /** The event's ordering key: a FIFO queue's or topic's message group, a stream's partition key. */
  orderKey: string;
  /** The envelope, exactly as signed. */
  body: string;
  /** `webhook-id`, `webhook-timestamp`, `webhook-signature`. */
  headers: Record<string, string>;
}

/**
 * Sends one attempt; never throws. The service's refusal is an `http-error` with its status and error code (a role
 * that cannot be assumed: STS's `AccessDenied`), so it is retried on the schedule like any receiver's.
 */
export interface DestinationSender {
  send(delivery: DestinationDelivery): Promise<AttemptOutcome>;
}

/** Destinations are told apart by their resource (the endpoint gate's key, as a URL's origin is for HTTP). */
export function destinationEndpoint(destination: AwsDestination): string {
  switch (destination.type) {
    case 'sqs':
      return `sqs:${destination.queueUrl}`;
    case 'sns':
      return destination.topicArn;
    case 'eventbridge':
      return destination.eventBusArn;
    case 'kinesis':
      return destination.streamArn;
    case 's3':
      return `s3:${destination.bucket}`;
  }
}
