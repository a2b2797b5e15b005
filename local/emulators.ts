import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { buckets } from '#shared/contract/buckets.ts';
import type { QueueKey } from '#shared/contract/queues.ts';
import { mainTable } from '#shared/contract/table.ts';
import { startAwsStandIns, type AwsStandIns, type AwsStandInsOptions, type StandInName } from './aws/stand-ins.ts';
import { recordTopicMessages } from './aws/sns-received.ts';
import { returnItemOnConditionFailure } from './dynalite-fidelity.ts';
import { watchSweptWrites } from './work-signal.ts';
import { BYPASS_HEADER, throttleDynamo, throttleQueues } from './throttle.ts';
import {
  dropTornObjectWrites,
  notifyObjectsCreated,
  answerBrowsers,
  enforcePostPolicies,
  serveRangesFromDisk,
  acceptLargeObjects,
} from './fauxqs-s3.ts';
import { ensureTable, ensureQueues, ensureSesEvents, ensureBuckets } from './provisioning.ts';

export { LOCAL_S3_BODY_LIMIT_BYTES } from './fauxqs-s3.ts';
export { tableActive } from './provisioning.ts';

const REGION = 'us-east-1';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export interface Emulators {
  dynamoEndpoint: string;
  /** The dynalite HTTP server: tests count the DynamoDB operations it receives (`X-Amz-Target`). */
  dynamoServer: Server;
  awsEndpoint: string;
  region: string;
  tableName: string;
  queueUrls: Record<QueueKey, string>;
  dlqUrls: Record<QueueKey, string>;
  bucketNames: Record<keyof typeof buckets, string>;
  /** The STS, EventBridge, Kinesis and SES v2 stand-ins' endpoints (./aws/stand-ins.ts). */
  standInEndpoints: Record<StandInName, string>;
  stop(): Promise<void>;
}

/**
 * What the SQS + S3 + SNS stand-in (fauxqs) and the other AWS stand-ins beside it serve: their endpoints and the
 * queues and buckets they hold.
 */
export type QueuesAndBuckets = Pick<
  Emulators,
  'awsEndpoint' | 'queueUrls' | 'dlqUrls' | 'bucketNames' | 'standInEndpoints'
>;

/** Settings of the AWS stand-ins beside fauxqs. */
export type StandInSettings = Pick<AwsStandInsOptions, 'ports' | 'sesRelaySmtpUrl'>;

/** Every AWS service the runner stands in for, with its endpoint: what `GET /local/aws` lists. */
export interface LocalAws {
  region: string;
  endpoints: Record<'dynamodb' | 'sqs' | 's3' | 'sns' | StandInName, string>;
}

export function localAws(
  emulators: Pick<Emulators, 'region' | 'dynamoEndpoint' | 'awsEndpoint' | 'standInEndpoints'>,
): LocalAws {
  return {
    region: emulators.region,
    endpoints: {
      dynamodb: emulators.dynamoEndpoint,
      sqs: emulators.awsEndpoint,
      s3: emulators.awsEndpoint,
      sns: emulators.awsEndpoint,
      ...emulators.standInEndpoints,
    },
  };
}

/**
 * Starts the in-process stand-ins on 127.0.0.1 only: dynalite (DynamoDB) and fauxqs (SQS + S3), persisted under
 * `dataDir`, and creates the table, queues (with their dead-letter queues) and buckets from the same definitions
 * the CDK stack uses. `startQueuesAndBuckets` may start fauxqs elsewhere (the runner gives it a thread of its own).
 */
export async function startEmulators(
  dataDir: string,
  startQueuesAndBuckets: (
    dir: string,
    standIns: StandInSettings & { dir: string },
  ) => Promise<QueuesAndBuckets & { stop(): Promise<void> }> = startFauxqsWithQueuesAndBuckets,
  standIns: StandInSettings = {},
): Promise<Emulators> {
  mkdirSync(join(dataDir, 'dynamodb'), { recursive: true });
  const [dynamo, aws] = await Promise.all([
    startDynalite(join(dataDir, 'dynamodb')),
    startQueuesAndBuckets(join(dataDir, 'fauxqs'), { ...standIns, dir: join(dataDir, 'aws') }),
  ]);
  const ddb = new DynamoDBClient({ region: REGION, endpoint: dynamo.endpoint, credentials });
  try {
    await ensureTable(ddb);
  } finally {
    ddb.destroy();
  }
  const { stop: stopAws, ...awsInfo } = aws;
  return {
    dynamoEndpoint: dynamo.endpoint,
    dynamoServer: dynamo.server,
    region: REGION,
    tableName: mainTable.localName,
    ...awsInfo,
    async stop() {
      await stopAws();
      await dynamo.close();
    },
  };
}

/**
 * fauxqs (SQS + S3 + SNS) persisted under `dir`, with the queues (and their dead-letter queues) and buckets created,
 * and the other AWS stand-ins (./aws/stand-ins.ts) beside it, persisted under `standIns.dir`.
 */
export async function startFauxqsWithQueuesAndBuckets(
  dir: string,
  standIns: StandInSettings & { dir?: string } = {},
): Promise<QueuesAndBuckets & { stop(): Promise<void> }> {
  mkdirSync(join(dir, 's3'), { recursive: true });
  const others = await startAwsStandIns({ ...standIns, region: REGION });
  // Loaded here, not with the module: the runner's main thread imports this module for dynalite only.
  const [fauxqs, sqsSdk, { S3Client }] = await Promise.all([
    startFauxqs(dir, others.database).catch(async (error: unknown) => {
      await others.stop();
      throw error;
    }),
    import('@aws-sdk/client-sqs'),
    import('@aws-sdk/client-s3'),
  ]);
  others.connect(fauxqs.endpoint);
  const sqs = new sqsSdk.SQSClient({ region: REGION, endpoint: fauxqs.endpoint, credentials });
  const s3 = new S3Client({ region: REGION, endpoint: fauxqs.endpoint, credentials, forcePathStyle: true });
  try {
    const [queueSetup] = await Promise.all([ensureQueues(sqs), ensureBuckets(s3)]);
    await ensureSesEvents(fauxqs.endpoint, others.endpoints.ses, queueSetup.queueUrls.inbound);
    const stopNotifying = notifyObjectsCreated(fauxqs.s3Store, fauxqs.endpoint, queueSetup.queueUrls, sqsSdk);
    return {
      awsEndpoint: fauxqs.endpoint,
      ...queueSetup,
      bucketNames: Object.fromEntries(
        Object.entries(buckets).map(([k, b]) => [k, b.localName]),
      ) as Emulators['bucketNames'],
      standInEndpoints: others.endpoints,
      stop: async () => {
        stopNotifying();
        await fauxqs.close();
        await others.stop();
      },
    };
  } finally {
    sqs.destroy();
    s3.destroy();
  }
}

/** dynalite on 127.0.0.1 (LevelDB under `path`, or in memory), without the table. */
export async function startDynalite(
  path?: string,
): Promise<{ endpoint: string; server: Server; close(): Promise<void> }> {
  const server = dynalite({ ...(path ? { path } : {}), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const items = itemReader(endpoint);
  const indexKeyNames = [...new Set(mainTable.globalSecondaryIndexes.map((g) => g.partitionKey))];
  throttleDynamo(server, (key) => items.read(key, indexKeyNames));
  returnItemOnConditionFailure(server, (key) => items.read(key));
  watchSweptWrites(server);
  return {
    endpoint,
    server,
    close: async () => {
      items.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * How the stand-in's own layers read an item as it is now: a consistent GetItem (of `attributes` alone when given),
 * marked so the throttle lets it through and call counters leave it out. The client is made on the first read.
 */
function itemReader(endpoint: string) {
  let client: DynamoDBClient | undefined;
  return {
    read: async (key: Record<string, unknown>, attributes?: readonly string[]) => {
      if (!client) {
        client = new DynamoDBClient({ region: REGION, endpoint, credentials });
        client.middlewareStack.add(
          (next) => (args) => {
            (args.request as { headers: Record<string, string> }).headers[BYPASS_HEADER] = '1';
            return next(args);
          },
          { step: 'build', name: 'localThrottleBypass' },
        );
      }
      const out = await client.send(
        new GetItemCommand({
          TableName: mainTable.localName,
          Key: key as never,
          ConsistentRead: true,
          ...(attributes
            ? {
                ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(', '),
                ExpressionAttributeNames: Object.fromEntries(attributes.map((a, i) => [`#a${i}`, a])),
              }
            : {}),
        }),
      );
      return out.Item as never;
    },
    destroy: () => client?.destroy(),
  };
}

/** dynalite in memory with the main table created: for adapter tests. */
export async function startDynamoWithTable(): Promise<{ endpoint: string; tableName: string; close(): Promise<void> }> {
  const dynamo = await startDynalite();
  const ddb = new DynamoDBClient({ region: REGION, endpoint: dynamo.endpoint, credentials });
  try {
    await ensureTable(ddb);
  } finally {
    ddb.destroy();
  }
  return { ...dynamo, tableName: mainTable.localName };
}

/**
 * fauxqs through `buildApp(...).listen({ host: '127.0.0.1' })` (its `startFauxqs` binds every interface), with the
 * same SQLite persistence `startFauxqs` would wire: queues, in-flight messages and their visibility deadlines,
 * and S3 objects as files. The stores are not in the package's exports, so they are loaded by file URL.
 */
async function startFauxqs(dir: string, standInDatabase: AwsStandIns['database']) {
  const { buildApp } = await import('fauxqs');
  const dist = new URL('.', import.meta.resolve('fauxqs'));
  const load = (path: string) => import(new URL(path, dist).href);
  const [{ SqsStore }, { SnsStore }, { S3Store }, { PersistenceManager }, { FileS3Persistence }] = await Promise.all([
    load('./sqs/sqsStore.js'),
    load('./sns/snsStore.js'),
    load('./s3/s3Store.js'),
    load('./persistence.js'),
    load('./s3/fileS3Persistence.js'),
  ]);
  const sqsStore = new SqsStore();
  const snsStore = new SnsStore();
  const s3Store = new S3Store();
  const persistence = new PersistenceManager(dir);
  // WAL with synchronous=NORMAL: a committed message survives the process dying (kill -9 included) and loses at
  // most the last transactions on a power cut; FULL costs ~8 ms of blocked event loop per SQS call (0.1 ms here).
  persistence.db?.exec('PRAGMA synchronous = NORMAL');
  dropTornObjectWrites(join(dir, 's3'));
  const s3Persistence = new FileS3Persistence(join(dir, 's3'));
  releaseMessagesHeldByTheLastRun(persistence.db);
  persistence.loadSqsAndSns(sqsStore, snsStore);
  s3Persistence.loadS3(s3Store);
  sqsStore.persistence = persistence;
  snsStore.persistence = persistence;
  for (const queue of sqsStore.allQueues()) queue.persistence = persistence;
  s3Store.persistence = s3Persistence;

  const app = buildApp({
    logger: false,
    defaultRegion: REGION,
    host: '127.0.0.1',
    stores: { sqsStore, snsStore, s3Store },
  });
  acceptLargeObjects(app);
  serveRangesFromDisk(app, s3Store, join(dir, 's3'));
  throttleQueues(app as never);
  recordTopicMessages(app, standInDatabase);
  enforcePostPolicies(app, await import('./s3-post-policy.ts'));
  answerBrowsers(app);
  app.addHook('preClose', () => {
    persistence.close();
    s3Persistence.close();
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { endpoint: address.replace('localhost', '127.0.0.1'), s3Store, close: () => app.close() };
}

/**
 * Messages a worker of the previous run had received and not yet deleted when that run ended (a crash, `kill -9`):
 * on AWS they come back once their visibility timeout passes (60 s for most queues); here the process that held them
 * is certainly gone, so they are visible again at once and the work they carry resumes with the restart. Only
 * receives are released: a message postponed further than its queue's visibility timeout (a webhook retry waiting
 * for its schedule) keeps its time.
 */
function releaseMessagesHeldByTheLastRun(
  db:
    | { prepare(sql: string): { run(...values: unknown[]): unknown; all(...values: unknown[]): unknown[] } }
    | undefined,
): void {
  if (!db) return;
  const now = Date.now();
  const queuesRows = db.prepare('SELECT name, attributes FROM sqs_queues').all() as {
    name: string;
    attributes: string;
  }[];
  const release = db.prepare(
    'UPDATE sqs_messages SET visibility_deadline = 1 WHERE queue_name = ? AND receipt_handle IS NOT NULL AND visibility_deadline > ? AND visibility_deadline <= ?',
  );
  for (const row of queuesRows) {
    const timeout = Number((JSON.parse(row.attributes) as Record<string, string>).VisibilityTimeout ?? 30);
    release.run(row.name, now, now + timeout * 1000);
  }
}
