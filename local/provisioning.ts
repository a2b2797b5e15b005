import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  type GlobalSecondaryIndex,
} from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { buckets } from '#shared/contract/buckets.ts';
import { deadLetterName, queues, type QueueKey } from '#shared/contract/queues.ts';
import { mainTable } from '#shared/contract/table.ts';
import { hasContractIndexes, rebuildWithContractIndexes } from './table-upgrade.ts';
import { LOCAL_SES_CONFIGURATION_SET } from './function-wiring.ts';

/**
 * What the runner makes on the stand-ins at start, from shared/contract's definitions: the table (upgraded in
 * place when its indexes changed), the queues with their dead-letter queues, the buckets and SES's event routing.
 */

const REGION = 'us-east-1';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export async function ensureTable(ddb: DynamoDBClient): Promise<void> {
  try {
    const { Table } = await ddb.send(new DescribeTableCommand({ TableName: mainTable.localName }));
    if (Table && !hasContractIndexes(Table)) await rebuildWithContractIndexes(ddb, () => createTable(ddb));
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  await createTable(ddb);
}

async function createTable(ddb: DynamoDBClient): Promise<void> {
  const gsis: GlobalSecondaryIndex[] = mainTable.globalSecondaryIndexes.map((g) => ({
    IndexName: g.indexName,
    KeySchema: [
      { AttributeName: g.partitionKey, KeyType: 'HASH' },
      { AttributeName: g.sortKey, KeyType: 'RANGE' },
    ],
    Projection: { ProjectionType: g.projection },
  }));
  const attributes = new Set<string>([
    mainTable.partitionKey,
    mainTable.sortKey,
    ...mainTable.globalSecondaryIndexes.flatMap((g) => [g.partitionKey, g.sortKey]),
  ]);
  await ddb.send(
    new CreateTableCommand({
      TableName: mainTable.localName,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: mainTable.partitionKey, KeyType: 'HASH' },
        { AttributeName: mainTable.sortKey, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      GlobalSecondaryIndexes: gsis,
    }),
  );
  await tableActive(ddb, mainTable.localName);
}

/**
 * dynalite answers CreateTable while the table is still CREATING and refuses items until a timer marks it ACTIVE,
 * which a loaded machine can delay past the first write: waits for ACTIVE, as a caller on AWS would.
 */
export async function tableActive(ddb: DynamoDBClient, tableName: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const { Table } = await ddb.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    if (attempt >= 200) throw new Error(`table ${tableName} not ACTIVE after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function ensureQueues(sqs: SQSClient) {
  const { CreateQueueCommand, GetQueueAttributesCommand, GetQueueUrlCommand, SetQueueAttributesCommand } = await import(
    '@aws-sdk/client-sqs'
  );
  /**
   * Creates a queue, or brings one a data folder already holds to today's settings (a visibility timeout or a
   * redrive policy changed since it was made), as a deploy updates the queue on AWS: SQS refuses a CreateQueue whose
   * attributes differ from the existing queue's (QueueNameExists), which would stop `npm start` on an older folder.
   */
  const ensure = async (QueueName: string, Attributes: Record<string, string>): Promise<string> => {
    try {
      return (await sqs.send(new CreateQueueCommand({ QueueName, Attributes }))).QueueUrl!;
    } catch (error) {
      // The SQS stand-in names it with its JSON protocol's prefix (AWS.SimpleQueueService.QueueNameExists).
      if (!/QueueNameExists$/.test((error as { name?: string }).name ?? '')) throw error;
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName }));
      const { FifoQueue: _fixedAtCreation, ...settable } = Attributes;
      await sqs.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: settable }));
      return QueueUrl!;
    }
  };
  const queueUrls = {} as Record<QueueKey, string>;
  const dlqUrls = {} as Record<QueueKey, string>;
  await Promise.all(
    (Object.keys(queues) as QueueKey[]).map(async (key) => {
      const q = queues[key];
      const fifo: Record<string, string> = 'fifo' in q && q.fifo ? { FifoQueue: 'true' } : {};
      const dlq = await ensure(deadLetterName(q), { MessageRetentionPeriod: String(14 * 86400), ...fifo });
      const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ['QueueArn'] })))
        .Attributes!.QueueArn!;
      queueUrls[key] = await ensure(q.localName, {
        VisibilityTimeout: String(q.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(q.retentionSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: q.maxReceiveCount }),
        ...fifo,
      });
      dlqUrls[key] = dlq;
    }),
  );
  return { queueUrls, dlqUrls };
}

/**
 * As infra/ does on AWS: the configuration set whose Delivery, Bounce, Complaint and Reject events go to an SNS topic
 * that the `inbound` queue subscribes to (raw delivery: the event itself is the queue message). Idempotent.
 */
export async function ensureSesEvents(
  awsEndpoint: string,
  sesEndpoint: string,
  inboundQueueUrl: string,
): Promise<void> {
  const [sns, ses, { GetQueueAttributesCommand, SQSClient }] = await Promise.all([
    import('@aws-sdk/client-sns'),
    import('@aws-sdk/client-sesv2'),
    import('@aws-sdk/client-sqs'),
  ]);
  const snsClient = new sns.SNSClient({ region: REGION, endpoint: awsEndpoint, credentials });
  const sesClient = new ses.SESv2Client({ region: REGION, endpoint: sesEndpoint, credentials });
  const sqsClient = new SQSClient({ region: REGION, endpoint: awsEndpoint, credentials });
  try {
    const topic = await snsClient.send(new sns.CreateTopicCommand({ Name: 'switchboard-ses-events' }));
    const queueArn = (
      await sqsClient.send(new GetQueueAttributesCommand({ QueueUrl: inboundQueueUrl, AttributeNames: ['QueueArn'] }))
    ).Attributes!.QueueArn!;
    const subscriptions = await snsClient.send(new sns.ListSubscriptionsByTopicCommand({ TopicArn: topic.TopicArn }));
    if (!subscriptions.Subscriptions?.some((s) => s.Endpoint === queueArn))
      await snsClient.send(
        new sns.SubscribeCommand({
          TopicArn: topic.TopicArn,
          Protocol: 'sqs',
          Endpoint: queueArn,
          Attributes: { RawMessageDelivery: 'true' },
        }),
      );
    try {
      await sesClient.send(
        new ses.CreateConfigurationSetCommand({ ConfigurationSetName: LOCAL_SES_CONFIGURATION_SET }),
      );
    } catch (error) {
      if ((error as { name?: string }).name !== 'AlreadyExistsException') throw error;
    }
    const destination = {
      Enabled: true,
      MatchingEventTypes: ['DELIVERY' as const, 'BOUNCE' as const, 'COMPLAINT' as const, 'REJECT' as const],
      SnsDestination: { TopicArn: topic.TopicArn! },
    };
    try {
      await sesClient.send(
        new ses.CreateConfigurationSetEventDestinationCommand({
          ConfigurationSetName: LOCAL_SES_CONFIGURATION_SET,
          EventDestinationName: 'inbound',
          EventDestination: destination,
        }),
      );
    } catch (error) {
      if ((error as { name?: string }).name !== 'AlreadyExistsException') throw error;
    }
  } finally {
    snsClient.destroy();
    sesClient.destroy();
    sqsClient.destroy();
  }
}

export async function ensureBuckets(s3: S3Client): Promise<void> {
  const { CreateBucketCommand, HeadBucketCommand } = await import('@aws-sdk/client-s3');
  for (const bucket of Object.values(buckets)) {
    try {
      await s3.send(new HeadBucketCommand({ Bucket: bucket.localName }));
    } catch {
      await s3.send(new CreateBucketCommand({ Bucket: bucket.localName }));
    }
  }
}
