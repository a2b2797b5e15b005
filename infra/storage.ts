import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  EventType,
  HttpMethods,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { SqsDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { secrets as secretDefinitions, type SecretKey } from '#shared/contract/access.ts';
import { buckets as bucketDefinitions, type BucketKey } from '#shared/contract/buckets.ts';
import { queues as queueDefinitions, type QueueKey } from '#shared/contract/queues.ts';
import { mainTable, previousConversationIndex } from '#shared/contract/table.ts';
import { pascal } from './functions.ts';
import type { DeploymentSettings } from './settings.ts';

/**
 * The stack's storage from shared/contract's definitions: the table with its indexes, the queues with their
 * dead-letter queues, the buckets (with the upload notifications) and the secrets a function declares.
 */

export function createTable(scope: Construct, keepPreviousConversationIndex = false): Table {
  const table = new Table(scope, mainTable.constructId, {
    partitionKey: { name: mainTable.partitionKey, type: AttributeType.STRING },
    sortKey: { name: mainTable.sortKey, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: mainTable.ttlAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  // The previous conversation index first, where it is kept: it is the one the deployment already has.
  const indexes = keepPreviousConversationIndex
    ? [previousConversationIndex, ...mainTable.globalSecondaryIndexes]
    : mainTable.globalSecondaryIndexes;
  for (const gsi of indexes) {
    table.addGlobalSecondaryIndex({
      indexName: gsi.indexName,
      partitionKey: { name: gsi.partitionKey, type: AttributeType.STRING },
      sortKey: { name: gsi.sortKey, type: AttributeType.STRING },
      projectionType: ProjectionType[gsi.projection],
    });
  }
  return table;
}

export function createQueues(scope: Construct) {
  const queues = {} as Record<QueueKey, Queue>;
  const deadLetterQueues = {} as Record<QueueKey, Queue>;
  for (const key of Object.keys(queueDefinitions) as QueueKey[]) {
    const q = queueDefinitions[key];
    const name = pascal(key);
    // FIFO queues in high-throughput mode: ordering, deduplication and the throughput limit per message group (a
    // conversation, a webhook's conversation), not per queue.
    const fifo =
      'fifo' in q && q.fifo
        ? {
            fifo: true,
            deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
            fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
          }
        : {};
    deadLetterQueues[key] = new Queue(scope, `${name}DeadLetterQueue`, {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      ...(fifo.fifo ? { fifo: true } : {}),
    });
    queues[key] = new Queue(scope, `${name}Queue`, {
      visibilityTimeout: Duration.seconds(q.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(q.retentionSeconds),
      deadLetterQueue: { queue: deadLetterQueues[key], maxReceiveCount: q.maxReceiveCount },
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      ...fifo,
    });
  }
  return { queues, deadLetterQueues };
}

/**
 * S3 event notifications to queues (a browser upload landing in the knowledge bucket → the ingest queue). CDK adds
 * the queue policy: only S3, only from this bucket and account, may send.
 */
export function notifyObjectsCreated(buckets: Record<BucketKey, Bucket>, queues: Record<QueueKey, Queue>): void {
  for (const key of Object.keys(bucketDefinitions) as BucketKey[]) {
    for (const { suffix, queue } of bucketDefinitions[key].objectCreatedNotifications)
      buckets[key].addEventNotification(EventType.OBJECT_CREATED, new SqsDestination(queues[queue]), { suffix });
  }
}

export function createBuckets(scope: Construct): Record<BucketKey, Bucket> {
  const buckets = {} as Record<BucketKey, Bucket>;
  for (const key of Object.keys(bucketDefinitions) as BucketKey[]) {
    const temporary = bucketDefinitions[key].expiringPrefixes;
    const browserUploads = temporary.length > 0 || bucketDefinitions[key].objectCreatedNotifications.length > 0;
    buckets[key] = new Bucket(scope, `${pascal(key)}Bucket`, {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        ...temporary.map(({ prefix, days }) => ({
          id: `expire-${prefix.replace(/\W+/g, '')}`,
          prefix,
          expiration: Duration.days(days),
        })),
      ],
      // Browsers may upload straight to a presigned URL or POST form; its signature (and policy) is the authorization.
      ...(browserUploads
        ? {
            cors: [
              {
                allowedMethods: [HttpMethods.PUT, HttpMethods.POST],
                allowedOrigins: ['*'],
                allowedHeaders: ['*'],
                maxAge: 3600,
              },
            ],
          }
        : {}),
    });
  }
  return buckets;
}

/** Only the secrets a function declares (the model key only with an OpenAI-compatible provider). */
export function createSecrets(
  scope: Construct,
  wanted: Set<SecretKey>,
  settings: DeploymentSettings,
): Partial<Record<SecretKey, Secret>> {
  const secrets: Partial<Record<SecretKey, Secret>> = {};
  if (wanted.has('adminKey')) {
    secrets.adminKey = new Secret(scope, 'AdminKeySecret', {
      description: secretDefinitions.adminKey.description,
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
    });
  }
  if (wanted.has('secretsKey')) {
    // 43 characters of the base64 alphabet decode to 32 bytes: an AES-256 key in the form SECRETS_KEY takes.
    secrets.secretsKey = new Secret(scope, 'SecretsKeySecret', {
      description: secretDefinitions.secretsKey.description,
      generateSecretString: { passwordLength: 43, excludePunctuation: true, includeSpace: false },
    });
  }
  if (wanted.has('modelApiKey') && settings.modelProvider === 'openai') {
    secrets.modelApiKey = new Secret(scope, 'ModelApiKeySecret', {
      description: `${secretDefinitions.modelApiKey.description} (set it: aws secretsmanager put-secret-value)`,
    });
  }
  return secrets;
}
