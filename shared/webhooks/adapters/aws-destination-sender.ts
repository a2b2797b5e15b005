import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { AwsCredentialIdentity } from '@aws-sdk/types';
import { parseArn, parseQueueUrl, type AwsDestination } from '../../integrations/index.ts';
import { leanSdkClient } from '../../kernel/aws/clients.ts';
import type { DestinationDelivery, DestinationSender } from '../destination-sender.ts';
import type { AttemptOutcome } from '../sender.ts';
import { RoleCredentials } from './sts-role-credentials.ts';
import { destinationMessages } from './destination-messages.ts';

type Service = AwsDestination['type'];

export interface AwsDestinationSenderOptions {
  /** The deployment's region: STS's, and a bucket's until S3 says where it is. */
  region: string;
  /** Stand-ins in place of AWS (the local runner); none on AWS. */
  endpoints: Partial<Record<Service | 'sts', string>>;
  sessionSeconds: number;
  timeoutMs: number;
  /** Where private destinations are allowed (local runs), queue URLs of the stand-in's form are accepted. */
  allowLocalQueueUrls: boolean;
}

type AnyClient = SQSClient | SNSClient | EventBridgeClient | KinesisClient | S3Client;
/** Clients held at once per process (one per service, region and role; the oldest forgotten first). */
const MAX_CLIENTS = 1_000;

/**
 * Delivers into customers' AWS accounts: assumes their role (credentials kept until shortly before they expire), then
 * one call of the destination's service: SQS SendMessage, SNS Publish, EventBridge PutEvents, Kinesis PutRecord or S3
 * PutObject (what each carries: `destination-messages.ts`). A refusal (the role, the resource, a throttle) is an
 * `http-error` with the service's status and error code. Error texts never carry credentials.
 */
export class AwsDestinationSender implements DestinationSender {
  private readonly roles: RoleCredentials;
  private readonly clients = new Map<string, AnyClient>();

  constructor(private readonly options: AwsDestinationSenderOptions) {
    this.roles = new RoleCredentials({
      region: options.region,
      ...(options.endpoints.sts ? { endpoint: options.endpoints.sts } : {}),
      sessionSeconds: options.sessionSeconds,
    });
  }

  async send(delivery: DestinationDelivery): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const abort = AbortSignal.timeout(this.options.timeoutMs);
    const { destination } = delivery;
    let credentials: AwsCredentialIdentity;
    try {
      credentials = await this.roles.get(destination.roleArn, delivery.externalId, delivery.projectId);
    } catch (error) {
      return failure('sts AssumeRole', error, elapsed(), abort.aborted);
    }
    const message = destinationMessages(delivery);
    try {
      const client = this.client(destination, credentials);
      // Each client is of the command's service (keyed by the destination's type).
      const output = await (client as { send(command: unknown, options: unknown): Promise<unknown> }).send(
        message.command,
        { abortSignal: abort },
      );
      const refused = message.refusal?.(output);
      if (refused) return { kind: 'http-error', statusCode: 400, durationMs: elapsed(), error: refused };
      return { kind: 'success', statusCode: 200, durationMs: elapsed() };
    } catch (error) {
      return failure(`${destination.type} ${message.operation}`, error, elapsed(), abort.aborted);
    }
  }

  private client(destination: AwsDestination, credentials: AwsCredentialIdentity): AnyClient {
    const region = this.regionOf(destination);
    const key = `${destination.type}\n${region}\n${destination.roleArn}\n${credentials.accessKeyId}`;
    const held = this.clients.get(key);
    if (held) return held;
    // A client per credentials: renewed credentials make a new client, the old one is forgotten with its key.
    for (const [k, c] of this.clients) {
      if (k.startsWith(`${destination.type}\n${region}\n${destination.roleArn}\n`)) {
        c.destroy();
        this.clients.delete(k);
      }
    }
    const endpoint = this.options.endpoints[destination.type];
    const config = {
      region,
      credentials,
      maxAttempts: 1,
      ...(endpoint ? { endpoint } : {}),
    };
    const client = leanSdkClient(newClient(destination.type, config, endpoint !== undefined));
    this.clients.set(key, client);
    if (this.clients.size > MAX_CLIENTS) {
      const [oldest, c] = this.clients.entries().next().value!;
      c.destroy();
      this.clients.delete(oldest);
    }
    return client;
  }

  private regionOf(destination: AwsDestination): string {
    if (destination.type === 's3') return this.options.region;
    if (destination.type === 'sqs') {
      return parseQueueUrl(destination.queueUrl, this.options.allowLocalQueueUrls)?.region || this.options.region;
    }
    const arn =
      destination.type === 'sns'
        ? destination.topicArn
        : destination.type === 'eventbridge'
          ? destination.eventBusArn
          : destination.streamArn;
    return parseArn(arn)?.region || this.options.region;
  }

  destroy(): void {
    for (const client of this.clients.values()) client.destroy();
    this.clients.clear();
    this.roles.destroy();
  }
}

function newClient(
  type: Service,
  config: { region: string; credentials: AwsCredentialIdentity; maxAttempts: number; endpoint?: string },
  local: boolean,
): AnyClient {
  switch (type) {
    case 'sqs':
      // The request goes to SQS's endpoint for the region, never to the host written in the queue URL.
      return new SQSClient({ ...config, useQueueUrlAsEndpoint: false });
    case 'sns':
      return new SNSClient(config);
    case 'eventbridge':
      return new EventBridgeClient(config);
    case 'kinesis':
      return new KinesisClient(config);
    case 's3':
      return new S3Client({
        ...config,
        ...(local ? { forcePathStyle: true } : { followRegionRedirects: true }),
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
  }
}

/** AWS access key ids (long-term or temporary) that an error text might quote. */
const ACCESS_KEY = /\b(AKIA|ASIA)[A-Z0-9]{12,}\b/g;

/** A refused or failed call as an attempt's outcome: the service's status and error code, for the delivery log. */
export function failure(operation: string, error: unknown, durationMs: number, timedOut: boolean): AttemptOutcome {
  const e = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const code = e?.name ?? 'Error';
  const text = `${operation}: ${code}${e?.message ? `: ${e.message}` : ''}`.replace(ACCESS_KEY, '[access key]');
  const errorText = text.slice(0, 500);
  if (timedOut) return { kind: 'timeout', durationMs, error: `${operation}: timed out` };
  const status = e?.$metadata?.httpStatusCode;
  // 410 means "gone, stop" from an HTTP receiver; no AWS refusal means that, so it is not passed on as one.
  if (status === undefined || status === 410 || status < 300) return { kind: 'network', durationMs, error: errorText };
  return { kind: 'http-error', statusCode: status, durationMs, error: errorText };
}
