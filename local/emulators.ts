import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ResourceNotFoundException,
  type GlobalSecondaryIndex,
} from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import dynalite from 'dynalite';
import type { buildApp } from 'fauxqs';
import { buckets } from '#shared/contract/buckets.ts';
import { deadLetterName, queues, type QueueKey } from '#shared/contract/queues.ts';
import { mainTable } from '#shared/contract/table.ts';
import { startAwsStandIns, type AwsStandIns, type AwsStandInsOptions, type StandInName } from './aws/stand-ins.ts';
import { recordTopicMessages } from './aws/sns-received.ts';
import type { S3Refusal } from './s3-post-policy.ts';
import { hasContractIndexes, rebuildWithContractIndexes } from './table-upgrade.ts';
import { returnItemOnConditionFailure } from './dynalite-fidelity.ts';
import { watchSweptWrites } from './work-signal.ts';
import { BYPASS_HEADER, throttleDynamo, throttleQueues } from './throttle.ts';
import { LOCAL_SES_CONFIGURATION_SET } from './function-wiring.ts';

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

/**
 * fauxqs writes an object's data, then its `.meta.json`, before answering the PUT; a process killed in between leaves
 * a meta file that is empty or cut short, and fauxqs then refuses to start at all. Such a PUT was never answered (so
 * never acknowledged): its files go, and the stand-in starts with every object whose write completed.
 */
function dropTornObjectWrites(root: string): void {
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.meta.json')) {
        try {
          JSON.parse(readFileSync(path, 'utf8'));
        } catch {
          rmSync(path, { force: true });
          rmSync(path.slice(0, -'.meta.json'.length), { force: true });
        }
      }
    }
  };
  if (existsSync(root)) walk(root);
}

interface StoredObject {
  etag: string;
  contentLength: number;
}
interface ObjectStore {
  putObject(bucket: string, key: string, ...rest: unknown[]): StoredObject;
}

/**
 * S3 event notifications, which fauxqs lacks: when an object lands (PUT or a browser's POST) in a bucket whose
 * definition (shared/contract/buckets.ts) reports creations to a queue, the queue receives the record S3 would send
 * on AWS, so the same worker code handles both. Returns a function that stops it.
 */
function notifyObjectsCreated(
  store: ObjectStore,
  endpoint: string,
  queueUrls: Record<QueueKey, string>,
  { SQSClient, SendMessageCommand }: typeof import('@aws-sdk/client-sqs'),
): () => void {
  const rules = Object.values(buckets).flatMap((b) =>
    b.objectCreatedNotifications.map((n) => ({ bucket: b.localName, ...n })),
  );
  if (!rules.length) return () => {};
  const sqs = new SQSClient({ region: REGION, endpoint, credentials });
  const put = store.putObject.bind(store);
  store.putObject = (bucket, key, ...rest) => {
    const stored = put(bucket, key, ...rest);
    const rule = rules.find((r) => r.bucket === bucket && key.endsWith(r.suffix));
    if (rule) {
      const record = {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: REGION,
        eventTime: new Date().toISOString(),
        eventName: 'ObjectCreated:Put',
        s3: {
          s3SchemaVersion: '1.0',
          bucket: { name: bucket, arn: `arn:aws:s3:::${bucket}` },
          object: {
            key: encodeURIComponent(key).replace(/%20/g, '+'),
            size: stored.contentLength,
            eTag: stored.etag.replace(/"/g, ''),
          },
        },
      };
      sqs
        .send(
          new SendMessageCommand({
            QueueUrl: queueUrls[rule.queue],
            MessageBody: JSON.stringify({ Records: [record] }),
          }),
        )
        .catch((error: unknown) => console.error(`S3 event for ${key} not sent: ${String(error)}`));
    }
    return stored;
  };
  return () => {
    store.putObject = put;
    sqs.destroy();
  };
}

/**
 * CORS as the AWS stack configures the buckets (infra/stack.ts): browsers may post an upload form from another
 * origin; the presigned policy is the authorization. An upload with progress events is preflighted.
 */
function answerBrowsers(app: ReturnType<typeof buildApp>): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.headers.origin) {
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-expose-headers', 'etag');
    }
    return payload;
  });
  app.options('/*', async (_request, reply) => {
    reply
      .header('access-control-allow-methods', 'PUT, POST')
      .header('access-control-allow-headers', '*')
      .header('access-control-max-age', '3600')
      .status(200)
      .send();
  });
}

/**
 * Presigned POST policies enforced as S3 does (./s3-post-policy.ts): fauxqs stores any form posted to a bucket, so
 * each browser upload (a multipart POST to `/<bucket>`) is checked first, against the stand-in's one secret
 * (`local`, whatever the access key id: bundles mode gives each function its own id) and region, and refused with
 * S3's status, code and XML when S3 would refuse it. A body over the stand-in's limit is S3's `EntityTooLarge` too.
 */
function enforcePostPolicies(
  app: ReturnType<typeof buildApp>,
  { checkPostPolicy, readPostForm, s3ErrorXml }: typeof import('./s3-post-policy.ts'),
): void {
  app.addHook('preHandler', async (request, reply) => {
    const contentType = request.headers['content-type'] ?? '';
    const params = request.params as { bucket?: string; '*'?: string };
    const isUpload =
      request.method === 'POST' &&
      /multipart\/form-data/i.test(contentType) &&
      params.bucket !== undefined &&
      !params['*'] &&
      Object.keys((request.query as object | undefined) ?? {}).length === 0;
    if (!isUpload) return;
    let refusal: S3Refusal | undefined;
    try {
      const form = await readPostForm(request.body as Buffer, contentType);
      refusal = checkPostPolicy(form, {
        bucket: params.bucket!,
        region: REGION,
        secretFor: () => credentials.secretAccessKey,
        now: new Date(),
      });
    } catch {
      refusal = {
        status: 400,
        code: 'MalformedPOSTRequest',
        message: 'The body of your POST request is not well-formed multipart/form-data.',
      };
    }
    if (refusal)
      return reply.status(refusal.status).header('content-type', 'application/xml').send(s3ErrorXml(refusal));
  });
  app.setErrorHandler((error: Error & { code?: string }, request, reply) => {
    const contentType = request.headers['content-type'] ?? '';
    const s3 = !/application\/x-amz-json-1\.0|application\/x-www-form-urlencoded/.test(contentType);
    if (s3 && error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return reply
        .status(400)
        .header('content-type', 'application/xml')
        .send(
          s3ErrorXml({
            status: 400,
            code: 'EntityTooLarge',
            message: 'Your proposed upload exceeds the maximum allowed size',
            extra: { MaxSizeAllowed: LOCAL_S3_BODY_LIMIT_BYTES },
          }),
        );
    throw error;
  });
}

/**
 * Ranged GETs read only their range. fauxqs keeps persisted objects' bodies on disk and reads the whole file for any
 * GET, ranged or not: a search reading a few kilobytes of a 400 MB knowledge segment cost a 400 MB read here, where
 * S3 reads the range. A GET with one `Range` of an object whose body is on disk is answered from the file at that
 * offset, with the headers fauxqs gives a ranged answer; anything else (conditional headers, an unsatisfiable or
 * multiple range, an object in memory) is left to fauxqs.
 */
function serveRangesFromDisk(
  app: ReturnType<typeof buildApp>,
  s3Store: { buckets: Map<string, Map<string, RangeableObject>> },
  s3Dir: string,
): void {
  app.addHook('preHandler', async (request, reply) => {
    const range = request.headers.range;
    const params = request.params as { bucket?: string; '*'?: string };
    if (request.method !== 'GET' || typeof range !== 'string' || !params.bucket || !params['*']) return;
    // The SDK adds `x-id=GetObject`; any other parameter (a part, a version, attributes) is fauxqs's.
    const query = Object.keys(request.query ?? {}).filter((k) => k !== 'x-id');
    if (request.headers['if-match'] || request.headers['if-none-match'] || query.length) return;
    const obj = s3Store.buckets.get(params.bucket)?.get(params['*']);
    if (!obj || obj.body.length > 0 || !(obj.contentLength > 0)) return;
    const total = obj.contentLength;
    const m = /^bytes=(\d*)-(\d*)$/.exec(range);
    if (!m || (m[1] === '' && m[2] === '')) return;
    const start = m[1] === '' ? total - Math.min(total, Number(m[2])) : Number(m[1]);
    const end = m[1] === '' || m[2] === '' ? total - 1 : Math.min(Number(m[2]), total - 1);
    if (start >= total || start > end || (m[1] === '' && Number(m[2]) === 0)) return;
    const file = join(s3Dir, 'buckets', params.bucket, 'objects', `${fileNameOfKey(params['*'])}.data`);
    const handle = await open(file, 'r');
    const body = Buffer.alloc(end - start + 1);
    try {
      await handle.read(body, 0, body.length, start);
    } finally {
      await handle.close();
    }
    for (const [k, v] of Object.entries(obj.metadata ?? {})) reply.header(`x-amz-meta-${k}`, v);
    return reply
      .status(206)
      .header('content-type', obj.contentType)
      .header('etag', obj.etag)
      .header('last-modified', obj.lastModified.toUTCString())
      .header('content-length', body.length)
      .header('content-range', `bytes ${start}-${end}/${total}`)
      .send(body);
  });
}

/** fauxqs's file name for a key: characters unsafe in file names percent-encoded, `/` kept as folders. */
function fileNameOfKey(key: string): string {
  let out = '';
  for (const ch of key) {
    const code = ch.charCodeAt(0);
    out += code < 0x20 || '<>:"|?*\\%'.includes(ch) ? `%${code.toString(16).padStart(2, '0')}` : ch;
  }
  return out;
}

interface RangeableObject {
  body: Buffer;
  contentLength: number;
  contentType: string;
  etag: string;
  lastModified: Date;
  metadata?: Record<string, string>;
}

/**
 * What the stand-in accepts in one S3 request body: a 25 MB object (knowledge PUT, a browser's presigned POST with
 * its form fields, an extract upload) with room for aws-chunked framing and form overhead. fauxqs caps every body
 * at 11 MiB and has no option for it; S3 itself takes 5 GB in one PUT, so the cap is the stand-in's, not AWS's.
 */
export const LOCAL_S3_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * Raises fauxqs's body limit for S3 requests only: a parser for every content type but the SQS (`x-amz-json-1.0`)
 * and SNS (form) protocols, which fastify still matches first by their exact type, with the same buffer handling
 * as fauxqs's own catch-all parser and a larger limit.
 */
function acceptLargeObjects(app: ReturnType<typeof buildApp>): void {
  app.addContentTypeParser(
    /^(?!application\/x-amz-json-1\.0|application\/x-www-form-urlencoded)/,
    { parseAs: 'buffer', bodyLimit: LOCAL_S3_BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  );
}

async function ensureTable(ddb: DynamoDBClient): Promise<void> {
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

async function ensureQueues(sqs: SQSClient) {
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
async function ensureSesEvents(awsEndpoint: string, sesEndpoint: string, inboundQueueUrl: string): Promise<void> {
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

async function ensureBuckets(s3: S3Client): Promise<void> {
  const { CreateBucketCommand, HeadBucketCommand } = await import('@aws-sdk/client-s3');
  for (const bucket of Object.values(buckets)) {
    try {
      await s3.send(new HeadBucketCommand({ Bucket: bucket.localName }));
    } catch {
      await s3.send(new CreateBucketCommand({ Bucket: bucket.localName }));
    }
  }
}
