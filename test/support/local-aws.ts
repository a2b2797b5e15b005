import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { S3Client } from '@aws-sdk/client-s3';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';
import type { Published } from '#local/aws/sns-received.ts';
import type { LocalAws } from '#local/emulators.ts';

/**
 * The local runner's AWS stand-ins for tests: the official SDK clients pointed at them (any credentials work), and
 * readers for what arrived where AWS offers no read API (a topic, a bus) or where a test wants everything at once
 * (a stream, the mail SES sent, the roles STS was asked for). `info` is what `GET /local/aws` answers.
 */
export function localAwsClients(info: LocalAws, accessKeyId = 'test') {
  const base = { region: info.region, credentials: { accessKeyId, secretAccessKey: 'test' } };
  return {
    sqs: new SQSClient({ ...base, endpoint: info.endpoints.sqs }),
    sns: new SNSClient({ ...base, endpoint: info.endpoints.sns }),
    eventBridge: new EventBridgeClient({ ...base, endpoint: info.endpoints.eventbridge }),
    kinesis: new KinesisClient({ ...base, endpoint: info.endpoints.kinesis }),
    sts: new STSClient({ ...base, endpoint: info.endpoints.sts }),
    ses: new SESv2Client({ ...base, endpoint: info.endpoints.ses }),
    s3: new S3Client({ ...base, endpoint: info.endpoints.s3, forcePathStyle: true }),
    destroy() {
      for (const client of [this.sqs, this.sns, this.eventBridge, this.kinesis, this.sts, this.ses, this.s3])
        client.destroy();
    },
  };
}

export type LocalAwsClients = ReturnType<typeof localAwsClients>;

/** What a running service's `GET /local/aws` answers, and a client of each stand-in it lists. */
export async function openLocalAws(baseUrl: string) {
  const info = (await (await fetch(`${baseUrl}/local/aws`)).json()) as LocalAws;
  return { info, aws: localAwsClients(info) };
}

async function read<T>(endpoint: string, path: string, query: Record<string, string | undefined>): Promise<T> {
  const params = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
  const response = await fetch(`${endpoint}/_local/${path}?${params}`);
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export type TopicMessage = Published & { callerAccessKeyId: string; receivedAt: string };

/** What an SNS topic received (each Publish / PublishBatch entry), oldest first. */
export async function topicMessages(info: LocalAws, topicArn: string): Promise<TopicMessage[]> {
  return (await read<{ messages: TopicMessage[] }>(info.endpoints.sns, 'received', { topicArn })).messages;
}

export interface BusEvent {
  event: {
    id: string;
    source: string;
    'detail-type': string;
    detail: unknown;
    resources: string[];
    time: string;
  } & Record<string, unknown>;
  callerAccessKeyId: string;
  receivedAt: string;
}

/** What an event bus received (by name or ARN; `default` if none), oldest first, as its targets get each event. */
export async function busEvents(info: LocalAws, eventBusName?: string): Promise<BusEvent[]> {
  return (await read<{ events: BusEvent[] }>(info.endpoints.eventbridge, 'received', { eventBusName })).events;
}

export interface StreamRecord {
  shardId: string;
  sequenceNumber: string;
  partitionKey: string;
  /** Base64. */
  data: string;
  approximateArrivalTimestamp: string;
  callerAccessKeyId: string;
}

/** Every record a Kinesis stream holds (by name or ARN), in arrival order across its shards. */
export async function streamRecords(info: LocalAws, stream: string): Promise<StreamRecord[]> {
  const query = stream.startsWith('arn:') ? { streamArn: stream } : { streamName: stream };
  return (await read<{ records: StreamRecord[] }>(info.endpoints.kinesis, 'received', query)).records;
}

export interface SentMail {
  messageId: string;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject?: string;
  text?: string;
  html?: string;
  configurationSetName?: string;
  /** The events SES made of it, in order (`Send`, `Delivery`, `Bounce`, `Complaint`, `Reject`). */
  events: string[];
  raw: string;
  sentAt: string;
}

/** The mail SES sent, oldest first; only to `to` (any of To, Cc, Bcc) or only `messageId` if given. */
export async function sentMails(info: LocalAws, filter: { to?: string; messageId?: string } = {}): Promise<SentMail[]> {
  return (await read<{ mails: SentMail[] }>(info.endpoints.ses, 'mails', filter)).mails;
}

export interface AssumeRoleCall {
  roleArn: string;
  roleSessionName: string;
  externalId?: string;
  durationSeconds: number;
  callerAccessKeyId: string;
  at: string;
  /** `AccessDenied` for a refused call; otherwise the credentials' key and expiry. */
  refused?: string;
  accessKeyId?: string;
  expiration?: string;
}

/** Every AssumeRole call STS answered (of `roleArn` only, if given), oldest first. */
export async function assumeRoleCalls(info: LocalAws, roleArn?: string): Promise<AssumeRoleCall[]> {
  return (await read<{ calls: AssumeRoleCall[] }>(info.endpoints.sts, 'assume-role-calls', { roleArn })).calls;
}

/** A new SQS queue (standard, or FIFO for a `.fifo` name): its URL and ARN. */
export async function newQueue(sqs: SQSClient, name: string): Promise<{ url: string; arn: string }> {
  const fifo = name.endsWith('.fifo') ? { FifoQueue: 'true' } : undefined;
  const url = (await sqs.send(new CreateQueueCommand({ QueueName: name, ...(fifo ? { Attributes: fifo } : {}) })))
    .QueueUrl!;
  const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] })))
    .Attributes!.QueueArn!;
  return { url, arn };
}

/**
 * Receives (and deletes) messages from a queue until `count` have arrived or `timeoutMs` passes (at least one
 * receive: with 0, what is there now).
 */
export async function receiveMessages(
  sqs: SQSClient,
  url: string,
  count: number,
  timeoutMs = 10_000,
): Promise<Message[]> {
  const got: Message[] = [];
  const deadline = Date.now() + timeoutMs;
  do {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: timeoutMs > 0 ? 1 : 0,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );
    for (const m of Messages) {
      got.push(m);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
    }
  } while (got.length < count && Date.now() < deadline);
  return got;
}
