import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { beforeAll, describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { gatewayResponses, integrationTimeoutMs, INTEGRATION_MARGIN_MS } from '#infra/api.ts';
import { BUCKET_NOTIFICATIONS_HANDLER } from '#infra/acknowledgements.ts';
import { FAILED_ATTEMPT_LOG_MESSAGE } from '#infra/alarms.ts';
import { CATCH_ALL_THROTTLE } from '#infra/capacity-plan.ts';
import { defaultFloorInputs } from '#infra/cost.ts';
import { entryPoint, projectRoot } from '#infra/bundling.ts';
import { functionSpecs, sharedDefinitions, type FunctionSpec } from '#infra/functions.ts';
import { buckets } from '#shared/contract/buckets.ts';
import { queues, queueUrlEnv, type QueueKey } from '#shared/contract/queues.ts';
import { binaryMediaTypes, fallbackFunction, routes } from '#shared/contract/routes.ts';
import { mainTable } from '#shared/contract/table.ts';
import { queueWorkers, scheduledWorkers } from '#shared/contract/workers.ts';
import { DEFAULT_RETRY_DELAYS_SECONDS, RETRY_JITTER } from '#shared/webhooks/index.ts';
import type { Config } from '#shared/kernel/config.ts';
import type { HttpEvent } from '#shared/http/types.ts';
import { siteSettings, wireSite } from '#shared/site/index.ts';
import { metricNames } from '#shared/contract/metrics.ts';
import { defaultSynth, synth, type Synthesized } from './synth.ts';

type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, any> };

let s: Synthesized;
let resources: Record<string, Resource>;
const specs = functionSpecs();

/** Synthesis bundles every function the first time (seconds, more on a loaded machine). */
const SYNTH_TIMEOUT_MS = 600_000;

beforeAll(() => {
  s = defaultSynth();
  resources = s.template.toJSON().Resources as Record<string, Resource>;
}, SYNTH_TIMEOUT_MS);

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
/** The project's functions: every Lambda but CDK's deploy-time handler of S3 bucket notifications. */
const projectFunctions = () =>
  ofType('AWS::Lambda::Function').filter(([id]) => !id.startsWith(BUCKET_NOTIFICATIONS_HANDLER));
const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  s.stack.resolve((construct.node.defaultChild as { logicalId: string }).logicalId) as string;
const fnId = (fn: string) => logicalId(s.stack.functions[fn]!);
const roleId = (fn: string) => logicalId(s.stack.roles[fn]!);
const asArray = <T>(v: T | T[]) => (Array.isArray(v) ? v : [v]);

/** `/api/v1/ai/health` for an AWS::ApiGateway::Resource, by walking its parents. */
function resourcePath(id: string): string {
  const r = resources[id]!;
  const parent = r.Properties.ParentId as { Ref?: string };
  return `${parent.Ref ? resourcePath(parent.Ref) : ''}/${r.Properties.PathPart}`;
}

/** Every method as `{ method, path, fn logical id, timeout }`. */
function methods() {
  return ofType('AWS::ApiGateway::Method').map(([, m]) => {
    const ref = m.Properties.ResourceId as { Ref?: string };
    const uri = JSON.stringify(m.Properties.Integration.Uri);
    const target = /"Fn::GetAtt":\["([^"]+)","Arn"\]/.exec(uri)?.[1];
    return {
      method: m.Properties.HttpMethod as string,
      path: ref.Ref ? resourcePath(ref.Ref) : '/',
      target,
      type: m.Properties.Integration.Type as string,
      timeout: m.Properties.Integration.TimeoutInMillis as number | undefined,
      transferMode: m.Properties.Integration.ResponseTransferMode as string | undefined,
      uri,
    };
  });
}

/** The statements of every policy attached to a function's role. */
type Statement = { Sid?: string; Action: string | string[]; Resource: unknown; Effect: string };

function allStatementsOf(fn: string): Statement[] {
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId(fn)))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
}

/** What Lambda itself needs from the role, not what the function declares: see the "observability" tests. */
const XRAY_ACTIONS = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
function isPlatformStatement(fn: string, st: Statement): boolean {
  if (JSON.stringify([...asArray(st.Action)].sort()) === JSON.stringify(XRAY_ACTIONS)) return true;
  const scheduleDlq = s.stack.node.tryFindChild(`${pascalKey(fn)}ScheduleDeadLetterQueue`);
  return (
    scheduleDlq !== undefined &&
    JSON.stringify(st.Resource) === JSON.stringify({ 'Fn::GetAtt': [logicalId(scheduleDlq as never), 'Arn'] })
  );
}

/** The statements a function's declaration produced (the platform's X-Ray and failure-destination grants aside). */
function statementsOf(fn: string): Statement[] {
  return allStatementsOf(fn).filter((st) => !isPlatformStatement(fn, st));
}

describe('functions', () => {
  it('builds one Lambda per function folder the definitions name, each from its own handler.ts', () => {
    const names = new Set([
      ...routes.map((r) => r.fn),
      fallbackFunction,
      ...queueWorkers.map((w) => w.fn),
      ...scheduledWorkers.map((w) => w.fn),
    ]);
    expect(specs.map((x) => x.fn).sort()).toEqual([...names].sort());
    expect(projectFunctions()).toHaveLength(names.size);
    for (const fn of names) {
      expect(existsSync(entryPoint(fn)), `functions/${fn}/handler.ts`).toBe(true);
      expect(resources[fnId(fn)]?.Type).toBe('AWS::Lambda::Function');
    }
  });

  it('no function on AWS honours failpoints or throttles: the stack sets neither, and every function runs as `aws`', () => {
    for (const fn of specs.map((x) => x.fn)) {
      const env = resources[fnId(fn)]!.Properties.Environment.Variables as Record<string, unknown>;
      expect(env, fn).not.toHaveProperty('FAILPOINTS');
      expect(env, fn).not.toHaveProperty('THROTTLES');
      expect(env, fn).not.toHaveProperty('THROTTLES_FILE');
      expect(env.SWITCHBOARD_RUNTIME, fn).toBe('aws');
    }
    expect(JSON.stringify(s.template.toJSON())).not.toContain('FAILPOINTS');
    expect(JSON.stringify(s.template.toJSON())).not.toContain('THROTTLES');
  });

  it('deploys every function folder that exists (a handler.ts no definition names would never reach AWS)', () => {
    const folders = readdirSync(join(projectRoot, 'functions'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(projectRoot, 'functions', d.name, 'handler.ts')))
      .map((d) => d.name);
    expect(folders.filter((f) => !specs.some((x) => x.fn === f))).toEqual([]);
  });

  it.each(specs.map((x) => [x.fn, x] as const))(
    '%s: Node 22 on arm64 (x86_64 only for native addons), its memory and timeout, source maps on',
    (fn, spec: FunctionSpec) => {
      const props = resources[fnId(fn)]!.Properties;
      expect(props.Runtime).toBe('nodejs22.x');
      expect(props.Handler).toBe('index.handler');
      const native = s.stack.bundles.get(fn)!.unbundled.includes('@napi-rs/canvas');
      expect(props.Architectures).toEqual([native ? 'x86_64' : 'arm64']);
      expect(props.MemorySize).toBe(spec.memoryMb);
      expect(props.Timeout).toBe(spec.timeoutSeconds);
      const heapCap = Math.max(0, ...spec.routes.map((r) => r.maxOldSpaceMb ?? 0));
      const nodeOptions = heapCap ? `--enable-source-maps --max-old-space-size=${heapCap}` : '--enable-source-maps';
      expect(props.Environment.Variables).toMatchObject({
        SWITCHBOARD_RUNTIME: 'aws',
        NODE_OPTIONS: nodeOptions,
        POWERTOOLS_SERVICE_NAME: fn,
        TABLE_NAME: { Ref: logicalId(s.stack.node.findChild(mainTable.constructId) as never) },
      });
      if (fn === 'extract') expect(nodeOptions).toContain('--max-old-space-size=256');
      expect(props.LoggingConfig).toMatchObject({
        LogFormat: 'JSON',
        LogGroup: { Ref: logicalId(s.stack.functions[fn]!.logGroup as never) },
      });
    },
  );

  it('keeps every function log group for the configured retention', () => {
    for (const [, group] of ofType('AWS::Logs::LogGroup')) expect(group.Properties.RetentionInDays).toBe(30);
  });

  it('a queue worker consumes its queue with partial batch responses and its batch settings', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(queueWorkers.length);
    for (const worker of queueWorkers) {
      const queueId = logicalId(s.stack.node.findChild(`${pascalKey(worker.queue)}Queue`) as never);
      const mapping = mappings.find(([, m]) => m.Properties.FunctionName.Ref === fnId(worker.fn))?.[1];
      expect(mapping, worker.fn).toBeDefined();
      expect(mapping!.Properties).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
        BatchSize: s.stack.plan.workerBatching[worker.fn]!.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: s.stack.plan.workerConcurrency[worker.fn] },
      });
      const window = s.stack.plan.workerBatching[worker.fn]!.windowSeconds;
      // Lambda refuses a batch above 10 without a batching window.
      if (s.stack.plan.workerBatching[worker.fn]!.batchSize > 10) expect(window).toBeGreaterThan(0);
      if (window > 0) expect(mapping!.Properties.MaximumBatchingWindowInSeconds).toBe(window);
      // AWS refuses an event source whose queue hides a message for less time than the function may run.
      expect(queues[worker.queue].visibilityTimeoutSeconds).toBeGreaterThanOrEqual(worker.timeoutSeconds);
      expect(resources[fnId(worker.fn)]!.Properties.Environment.Variables[queueUrlEnv(worker.queue)]).toEqual({
        Ref: queueId,
      });
    }
  });

  it('runs each scheduled worker on its EventBridge rate, without retries of a missed run', () => {
    const rules = ofType('AWS::Events::Rule');
    expect(rules).toHaveLength(scheduledWorkers.length);
    for (const worker of scheduledWorkers) {
      const rule = rules.find(([, r]) =>
        r.Properties.Targets.some((t: any) => JSON.stringify(t.Arn).includes(fnId(worker.fn))),
      )?.[1];
      expect(rule, worker.fn).toBeDefined();
      const minutes = worker.everyMinutesOnAws;
      expect(rule!.Properties.ScheduleExpression).toBe(`rate(${minutes} ${minutes === 1 ? 'minute' : 'minutes'})`);
      expect(rule!.Properties.State).toBe('ENABLED');
      expect(rule!.Properties.Targets[0].RetryPolicy).toMatchObject({ MaximumRetryAttempts: 0 });
    }
    expect(scheduledWorkers.some((w) => w.fn === 'credit-sweeper' && w.everyMinutesOnAws === 1)).toBe(true);
  });
});

describe('API', () => {
  it('is one Regional REST API, binary only for multipart and PDF, never for JSON', () => {
    const apis = ofType('AWS::ApiGateway::RestApi');
    expect(apis).toHaveLength(1);
    const props = apis[0]![1].Properties;
    expect(props.EndpointConfiguration).toEqual({ Types: ['REGIONAL'] });
    expect(props.BinaryMediaTypes).toEqual(binaryMediaTypes);
    expect(props.BinaryMediaTypes).toEqual(expect.arrayContaining(['multipart/form-data', 'application/pdf']));
    expect(props.BinaryMediaTypes.some((t: string) => /json|\*/.test(t))).toBe(false);
  });

  it('sends every route to its own function through a proxy integration that gives up just before the function does', () => {
    const all = methods();
    for (const route of routes) {
      const m = all.find((x) => x.path === route.path && x.method === route.method);
      expect(m, `${route.method} ${route.path}`).toBeDefined();
      expect(m!.type).toBe('AWS_PROXY');
      expect(m!.target).toBe(fnId(route.fn));
      expect(m!.timeout).toBe(integrationTimeoutMs(route.timeoutSeconds));
      expect(m!.timeout).toBeLessThan(route.timeoutSeconds * 1000);
    }
    // Distinct function folders are distinct Lambdas: no two public endpoints share one.
    const byFn = new Map(
      routes.map((r) => [r.fn, all.find((x) => x.path === r.path && x.method === r.method)!.target]),
    );
    expect(new Set(byFn.values()).size).toBe(byFn.size);
  });

  it(
    'picks up a route added to shared/contract without any change in infra/',
    () => {
      const extra = {
        method: 'POST' as const,
        path: '/api/v1/ai/ping',
        fn: 'legacy-send',
        timeoutSeconds: 7,
        memoryMb: 256,
        access: {},
      };
      const grown = synth({ props: { definitions: { ...sharedDefinitions, routes: [...routes, extra] } } });
      const res = grown.template.toJSON().Resources as Record<string, Resource>;
      const resourceId = Object.entries(res).find(
        ([, r]) => r.Type === 'AWS::ApiGateway::Resource' && r.Properties.PathPart === 'ping',
      )?.[0];
      expect(resourceId).toBeDefined();
      const methodsOnIt = Object.values(res).filter(
        (r) => r.Type === 'AWS::ApiGateway::Method' && r.Properties.ResourceId.Ref === resourceId,
      );
      const post = methodsOnIt.find((m) => m.Properties.HttpMethod === 'POST')!;
      expect(JSON.stringify(post.Properties.Integration.Uri)).toContain(
        logicalId(grown.stack.functions['legacy-send']!),
      );
      expect(post.Properties.Integration.TimeoutInMillis).toBe(6_500);
      // And its wrong methods reach the fallback like every other path.
      expect(
        JSON.stringify(methodsOnIt.find((m) => m.Properties.HttpMethod === 'ANY')!.Properties.Integration.Uri),
      ).toContain(logicalId(grown.stack.functions[fallbackFunction]!));
    },
    SYNTH_TIMEOUT_MS,
  );

  it('streams the responses of routes whose function streams (chat completions), and only those', () => {
    const all = methods();
    const streaming = routes.filter((r) => r.responseStreaming);
    expect(streaming.map((r) => r.path)).toContain('/api/v1/ai/chat/completions');
    for (const route of routes) {
      const m = all.find((x) => x.path === route.path && x.method === route.method)!;
      if (route.responseStreaming) {
        expect(m.transferMode, route.path).toBe('STREAM');
        // Lambda's streaming invocation, not the buffered one.
        expect(m.uri, route.path).toContain('response-streaming-invocations');
      } else {
        expect(m.transferMode ?? 'BUFFERED', route.path).toBe('BUFFERED');
      }
    }
  });

  it('gives completion more than its 90 s model budget, at the function and at the integration', () => {
    const completion = routes.find((r) => r.fn === 'completion');
    expect(completion, 'the completion route').toBeDefined();
    expect(completion!.timeoutSeconds).toBeGreaterThan(90);
    expect(integrationTimeoutMs(completion!.timeoutSeconds)).toBeGreaterThan(90_000);
    expect(INTEGRATION_MARGIN_MS).toBeGreaterThan(0);
  });

  it('answers unknown paths and wrong methods with the fallback function: ANY on every resource and /{proxy+}', () => {
    const all = methods();
    const fallback = fnId(fallbackFunction);
    const paths = ['/', ...ofType('AWS::ApiGateway::Resource').map(([id]) => resourcePath(id))];
    for (const path of paths) {
      const any = all.find((m) => m.path === path && m.method === 'ANY');
      expect(any, `ANY ${path}`).toBeDefined();
      const ownAny = routes.find((r) => r.path === path && r.method === 'ANY');
      expect(any!.target).toBe(ownAny ? fnId(ownAny.fn) : fallback);
    }
    expect(all.find((m) => m.path === '/{proxy+}')?.target).toBe(fallback);
    // Known path, wrong method: the method routes win, everything else reaches the fallback (which answers 405 + Allow).
    const health = all.filter((m) => m.path === '/api/v1/ai/health');
    expect(health.map((m) => m.method).sort()).toEqual(['ANY', 'GET']);
  });

  it("has no resource under /local: the local runner's own paths (GET /local/aws) reach the fallback on AWS", () => {
    const paths = ofType('AWS::ApiGateway::Resource').map(([id]) => resourcePath(id));
    expect(paths.filter((p) => p === '/local' || p.startsWith('/local/'))).toEqual([]);
    expect(methods().find((m) => m.path === '/{proxy+}')?.target).toBe(fnId(fallbackFunction));
  });

  it("customizes API Gateway's own answers with the contract's error body and codes", () => {
    const responses = ofType('AWS::ApiGateway::GatewayResponse').map(([, r]) => r.Properties);
    const expected: Record<string, [string | undefined, string]> = {
      REQUEST_TOO_LARGE: ['413', 'PAYLOAD_TOO_LARGE'],
      THROTTLED: ['429', 'RATE_LIMITED'],
      QUOTA_EXCEEDED: ['429', 'RATE_LIMITED'],
      MISSING_AUTHENTICATION_TOKEN: ['404', 'NOT_FOUND'],
      RESOURCE_NOT_FOUND: ['404', 'NOT_FOUND'],
      INTEGRATION_TIMEOUT: ['504', 'GATEWAY_TIMEOUT'],
      INTEGRATION_FAILURE: ['502', 'INTERNAL_ERROR'],
      DEFAULT_4XX: [undefined, 'BAD_REQUEST'],
      DEFAULT_5XX: [undefined, 'INTERNAL_ERROR'],
    };
    for (const [type, [status, code]] of Object.entries(expected)) {
      const r = responses.find((x) => x.ResponseType === type);
      expect(r, type).toBeDefined();
      expect(r!.StatusCode).toBe(status);
      const body = JSON.parse(String(r!.ResponseTemplates['application/json']).replace('$context.requestId', 'req-1'));
      expect(body).toEqual({ success: false, error: code, message: expect.any(String), requestId: 'req-1' });
      expect(r!.ResponseParameters['gatewayresponse.header.x-request-id']).toBe('context.requestId');
    }
    expect(
      responses.find((x) => x.ResponseType === 'THROTTLED')!.ResponseParameters['gatewayresponse.header.Retry-After'],
    ).toBe("'1'");
    expect(responses).toHaveLength(gatewayResponses.length);
  });

  it('throttles each route on its own (the stage default only for the catch-alls), writes JSON access logs and error execution logs', () => {
    const stage = ofType('AWS::ApiGateway::Stage')[0]![1].Properties;
    expect(stage.MethodSettings[0]).toEqual(
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        LoggingLevel: 'ERROR',
        ThrottlingRateLimit: CATCH_ALL_THROTTLE.rate,
        ThrottlingBurstLimit: CATCH_ALL_THROTTLE.burst,
        DataTraceEnabled: false,
      }),
    );
    expect(stage.MethodSettings.slice(1)).toEqual(
      routes.map((r) =>
        expect.objectContaining({
          HttpMethod: r.method === 'ANY' ? '*' : r.method,
          ResourcePath: `/${r.path.replace(/\//g, '~1')}`,
          ThrottlingRateLimit: s.stack.plan.methodThrottles[`${r.method} ${r.path}`]!.rate,
          ThrottlingBurstLimit: s.stack.plan.methodThrottles[`${r.method} ${r.path}`]!.burst,
        }),
      ),
    );
    expect(stage.AccessLogSetting.DestinationArn).toBeDefined();
    expect(JSON.parse(stage.AccessLogSetting.Format)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
    });
  });
});

describe('queues', () => {
  it.each(Object.keys(queues) as QueueKey[])(
    '%s: a dead-letter queue, encryption, TLS only, the defined visibility and redrive',
    (key) => {
      const q = queues[key];
      const queueId = logicalId(s.stack.node.findChild(`${pascalKey(key)}Queue`) as never);
      const dlqId = logicalId(s.stack.node.findChild(`${pascalKey(key)}DeadLetterQueue`) as never);
      const queue = resources[queueId]!.Properties;
      expect(queue).toMatchObject({
        VisibilityTimeout: q.visibilityTimeoutSeconds,
        MessageRetentionPeriod: q.retentionSeconds,
        SqsManagedSseEnabled: true,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: q.maxReceiveCount },
      });
      // A dead letter keeps its original enqueue time: the DLQ must keep messages at least as long as the queue.
      expect(resources[dlqId]!.Properties.MessageRetentionPeriod).toBeGreaterThanOrEqual(q.retentionSeconds);
      expect(resources[dlqId]!.Properties.SqsManagedSseEnabled).toBe(true);
      for (const id of [queueId, dlqId]) {
        s.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: id }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({
                Effect: 'Deny',
                Action: 'sqs:*',
                Condition: { Bool: { 'aws:SecureTransport': 'false' } },
              }),
            ]),
          },
        });
      }
    },
  );

  it('keeps a webhook delivery through the whole retry schedule: every attempt is a receive, every delay fits a visibility change', () => {
    const q = queues.deliveries;
    const attempts = DEFAULT_RETRY_DELAYS_SECONDS.length + 1;
    const longestSpan = DEFAULT_RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0) * (1 + RETRY_JITTER);
    expect(q.maxReceiveCount).toBeGreaterThanOrEqual(attempts);
    expect(q.retentionSeconds).toBeGreaterThan(longestSpan);
    // SQS's visibility timeout tops out at 12 h: the longest delay with its jitter must fit.
    expect(Math.max(...DEFAULT_RETRY_DELAYS_SECONDS) * (1 + RETRY_JITTER)).toBeLessThanOrEqual(43_200);
  });
});

describe('data', () => {
  it('the table: on demand, point-in-time recovery, TTL, deletion protection, the shared keys and GSI', () => {
    s.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: mainTable.ttlAttribute, Enabled: true },
        DeletionProtectionEnabled: true,
        KeySchema: [
          { AttributeName: mainTable.partitionKey, KeyType: 'HASH' },
          { AttributeName: mainTable.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: mainTable.globalSecondaryIndexes.map((g) => ({
          IndexName: g.indexName,
          KeySchema: [
            { AttributeName: g.partitionKey, KeyType: 'HASH' },
            { AttributeName: g.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: g.projection },
        })),
      },
    });
  });

  it.each(Object.values(buckets).map((b) => [b.key, b] as const))(
    'the %s bucket: private, encrypted, TLS only, temporary prefixes expire',
    (key, bucket) => {
      const id = logicalId(s.stack.node.findChild(`${pascalKey(key)}Bucket`) as never);
      const props = resources[id]!.Properties;
      expect(props.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(
        props.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm,
      ).toBe('AES256');
      const rules = props.LifecycleConfiguration.Rules as {
        Prefix?: string;
        ExpirationInDays?: number;
        Status: string;
      }[];
      for (const { prefix, days } of bucket.expiringPrefixes) {
        expect(rules).toContainEqual(
          expect.objectContaining({ Prefix: prefix, ExpirationInDays: days, Status: 'Enabled' }),
        );
      }
      // Nothing outside the temporary prefixes expires.
      expect(
        rules
          .filter((r) => r.ExpirationInDays !== undefined)
          .map((r) => r.Prefix)
          .sort(),
      ).toEqual(bucket.expiringPrefixes.map((p) => p.prefix).sort());
      expect(resources[id]!).toMatchObject({ DeletionPolicy: 'Retain' });
      s.template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    },
  );

  it('reports a browser upload landing in the knowledge bucket to the ingest queue, and only that bucket may send', () => {
    const bucketId = logicalId(s.stack.node.findChild('KnowledgeBucket') as never);
    const queueId = logicalId(s.stack.node.findChild('IngestQueue') as never);
    const notification = ofType('Custom::S3BucketNotifications')[0]![1] as any;
    expect(notification.Properties.BucketName).toEqual({ Ref: bucketId });
    expect(notification.Properties.NotificationConfiguration.QueueConfigurations).toEqual([
      {
        Events: ['s3:ObjectCreated:*'],
        Filter: { Key: { FilterRules: [{ Name: 'suffix', Value: '.upload' }] } },
        QueueArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      },
    ]);
    const policy = ofType('AWS::SQS::QueuePolicy').find(([, p]) =>
      JSON.stringify(p.Properties.Queues).includes(queueId),
    )![1] as any;
    const allow = policy.Properties.PolicyDocument.Statement.filter((st: any) => st.Effect === 'Allow');
    expect(allow).toHaveLength(1);
    expect(allow[0].Principal).toEqual({ Service: 's3.amazonaws.com' });
    expect(allow[0].Condition).toEqual({ ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [bucketId, 'Arn'] } } });
  });

  it('generates the admin key and the secrets key in Secrets Manager and hands functions their ARNs, never values', () => {
    const secrets = ofType('AWS::SecretsManager::Secret');
    expect(secrets.map(([, x]) => x.Properties.GenerateSecretString?.PasswordLength).sort()).toEqual([43, 48]);
    for (const [, fn] of projectFunctions()) {
      const env = fn.Properties.Environment.Variables as Record<string, unknown>;
      for (const plain of ['ADMIN_KEY', 'SECRETS_KEY', 'OPENAI_API_KEY']) expect(env[plain]).toBeUndefined();
      for (const [name, value] of Object.entries(env)) {
        if (name.endsWith('_SECRET_ARN')) expect(secrets.map(([id]) => id)).toContain((value as { Ref: string }).Ref);
      }
    }
  });
});

describe('least privilege', () => {
  const tableId = () => logicalId(s.stack.node.findChild(mainTable.constructId) as never);

  it.each(specs.map((x) => [x.fn, x] as const))(
    '%s: its own role, no managed policy, only what it declares',
    (fn, spec: FunctionSpec) => {
      const fnProps = resources[fnId(fn)]!.Properties;
      expect(fnProps.Role).toEqual({ 'Fn::GetAtt': [roleId(fn), 'Arn'] });
      expect(resources[roleId(fn)]!.Properties.ManagedPolicyArns).toBeUndefined();
      const statements = statementsOf(fn);
      const env = fnProps.Environment.Variables as Record<string, unknown>;

      for (const st of statements) {
        expect(st.Effect).toBe('Allow');
        for (const action of asArray(st.Action)) {
          expect(action, `${fn}: ${action}`).not.toContain('*');
          expect(['dynamodb:Scan', 'dynamodb:ConditionCheckItem']).not.toContain(action);
        }
        const resourcesOf = asArray(st.Resource as unknown);
        if (resourcesOf.includes('*'))
          expect(
            asArray(st.Action).every((a) => a.startsWith('textract:')),
            `${fn}: * only for Textract`,
          ).toBe(true);
      }
      const actions = new Set(statements.flatMap((st) => asArray(st.Action)));
      const has = (a: string) => actions.has(a);

      // Logs: its own log group only.
      expect(statements.find((st) => st.Sid === 'OwnLogs')?.Resource).toEqual({
        'Fn::GetAtt': [logicalId(s.stack.functions[fn]!.logGroup as never), 'Arn'],
      });

      // Table.
      expect(has('dynamodb:GetItem')).toBe(Boolean(spec.access.table?.read));
      expect(has('dynamodb:PutItem') || has('dynamodb:UpdateItem')).toBe(Boolean(spec.access.table?.write));
      for (const st of statements.filter((x) => asArray(x.Action).some((a) => a.startsWith('dynamodb:')))) {
        for (const r of asArray(st.Resource as unknown)) {
          const text = JSON.stringify(r);
          expect(text).toContain(tableId());
          if (text.includes('/index/'))
            expect(spec.access.table?.indexes?.some((i) => text.includes(`/index/${i}`))).toBe(true);
        }
      }

      // Queues: send only to the declared ones; consume only its own.
      const sendResources = statements
        .filter((x) => asArray(x.Action).includes('sqs:SendMessage'))
        .flatMap((x) => asArray(x.Resource as unknown))
        .map((r) => JSON.stringify(r));
      const declaredQueues = (spec.access.sendTo ?? []).map((k) =>
        logicalId(s.stack.node.findChild(`${pascalKey(k)}Queue`) as never),
      );
      expect(sendResources.length).toBe(declaredQueues.length);
      for (const id of declaredQueues) expect(sendResources.some((r) => r.includes(id))).toBe(true);
      for (const k of spec.access.sendTo ?? []) expect(env[queueUrlEnv(k)]).toBeDefined();
      const consumes = statements.filter((x) => asArray(x.Action).includes('sqs:ReceiveMessage'));
      if (spec.queueWorker) {
        expect(consumes.flatMap((x) => asArray(x.Resource as unknown)).map((r) => JSON.stringify(r))).toEqual([
          JSON.stringify({
            'Fn::GetAtt': [
              logicalId(s.stack.node.findChild(`${pascalKey(spec.queueWorker.queue)}Queue`) as never),
              'Arn',
            ],
          }),
        ]);
      } else {
        expect(consumes).toEqual([]);
      }

      // Buckets: only the declared ones, objects only under the declared prefixes.
      for (const st of statements.filter((x) => asArray(x.Action).some((a) => a.startsWith('s3:')))) {
        for (const r of asArray(st.Resource as unknown)) {
          const text = JSON.stringify(r);
          const key = (Object.keys(buckets) as (keyof typeof buckets)[]).find((k) =>
            text.includes(logicalId(s.stack.node.findChild(`${pascalKey(k)}Bucket`) as never)),
          );
          expect(key, `${fn}: ${text}`).toBeDefined();
          const declared = spec.access.buckets?.[key!];
          expect(declared, `${fn} declares ${key}`).toBeDefined();
          expect(env[buckets[key!].envVar]).toBeDefined();
          const prefixes = [...(declared!.read ?? []), ...(declared!.write ?? []), ...(declared!.delete ?? [])];
          if (asArray(st.Action).includes('s3:ListBucket')) expect(declared!.list).toBe(true);
          else expect(prefixes.some((p) => text.includes(`/${p}*`))).toBe(true);
        }
      }

      // Bedrock, Textract, secrets: only when declared.
      expect(has('bedrock:InvokeModel')).toBe(Boolean(spec.access.bedrock?.invoke));
      expect(has('bedrock:CountTokens')).toBe(Boolean(spec.access.bedrock?.countTokens));
      expect(has('textract:DetectDocumentText')).toBe(Boolean(spec.access.textract));
      const secretResources = statements
        .filter((x) => asArray(x.Action).includes('secretsmanager:GetSecretValue'))
        .flatMap((x) => asArray(x.Resource as unknown));
      const wanted = (spec.access.secrets ?? []).filter((k) => k !== 'modelApiKey'); // the model key exists only with provider openai
      expect(secretResources).toHaveLength(wanted.length);
    },
  );

  it('the fallback touches nothing but its log group', () => {
    expect(statementsOf(fallbackFunction).map((st) => st.Sid)).toEqual(['OwnLogs']);
  });

  it('health reads its table items, writes the rate limit, lists the knowledge bucket and counts tokens: nothing else', () => {
    const actions = statementsOf('health')
      .flatMap((st) => asArray(st.Action))
      .sort();
    expect(actions).toEqual(
      [
        'bedrock:CountTokens',
        'dynamodb:BatchGetItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        's3:ListBucket',
      ].sort(),
    );
    const bedrock = statementsOf('health').find((st) => st.Sid === 'BedrockCountTokens')!;
    expect(JSON.stringify(bedrock.Resource)).toContain('foundation-model/amazon.nova-lite-v1:0');
  });

  it('every function but the fallback declares what it touches (shared/contract: access)', () => {
    const undeclared = specs.filter((x) => !x.accessDeclared && !x.isFallback).map((x) => x.fn);
    expect(
      undeclared,
      "add `access: {...}` to these functions' route/worker definitions (`access: {}` if they touch nothing)",
    ).toEqual([]);
  });

  it(
    'with an OpenAI-compatible provider, the model key is a secret the model functions may read, and Bedrock is not granted',
    () => {
      const openai = synth({
        settings: {
          modelProvider: 'openai',
          openaiBaseUrl: 'https://models.example.com/v1',
          openaiModel: 'gpt-4o-mini',
        },
      });
      const res = openai.template.toJSON().Resources as Record<string, Resource>;
      const statements = Object.values(res)
        .filter((r) => r.Type === 'AWS::IAM::Policy')
        .flatMap((p) => p.Properties.PolicyDocument.Statement);
      expect(statements.flatMap((st: any) => asArray(st.Action)).some((a: string) => a.startsWith('bedrock:'))).toBe(
        false,
      );
      const modelKey = Object.entries(res).find(
        ([id, r]) => r.Type === 'AWS::SecretsManager::Secret' && id.startsWith('ModelApiKeySecret'),
      );
      expect(modelKey).toBeDefined();
      const readers = specs.filter((x) => x.access.secrets?.includes('modelApiKey')).map((x) => x.fn);
      for (const fn of readers) {
        const id = logicalId(openai.stack.functions[fn]!);
        expect(res[id]!.Properties.Environment.Variables).toMatchObject({
          MODEL_PROVIDER: 'openai',
          OPENAI_BASE_URL: 'https://models.example.com/v1',
          OPENAI_API_KEY_SECRET_ARN: { Ref: modelKey![0] },
        });
      }
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    'with Bedrock embeddings, the embeddings model joins the models the Bedrock-declaring functions may invoke',
    () => {
      const withEmbeddings = synth({ settings: { embeddingsProvider: 'bedrock' } });
      const res = withEmbeddings.template.toJSON().Resources as Record<string, Resource>;
      for (const spec of specs.filter((x) => x.access.bedrock?.invoke)) {
        const role = logicalId(withEmbeddings.stack.roles[spec.fn]! as never);
        const statements = Object.values(res)
          .filter(
            (r) =>
              r.Type === 'AWS::IAM::Policy' && (r.Properties.Roles as { Ref: string }[]).some((x) => x.Ref === role),
          )
          .flatMap((p) => p.Properties.PolicyDocument.Statement as { Sid?: string; Resource: unknown }[]);
        const invoke = JSON.stringify(statements.find((st) => st.Sid === 'BedrockInvoke')?.Resource);
        expect(invoke, spec.fn).toContain('foundation-model/amazon.titan-embed-text-v2:0');
        expect(invoke, spec.fn).toContain('foundation-model/amazon.nova-lite-v1:0');
        expect(
          res[logicalId(withEmbeddings.stack.functions[spec.fn]!)]!.Properties.Environment.Variables
            .EMBEDDINGS_PROVIDER,
        ).toBe('bedrock');
      }
    },
    SYNTH_TIMEOUT_MS,
  );
});

describe('alarms', () => {
  it('alarm on every dead-letter queue, the 5xx rate and throttles, all to one topic', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    for (const key of Object.keys(queues) as QueueKey[]) {
      const dlqId = logicalId(s.stack.node.findChild(`${pascalKey(key)}DeadLetterQueue`) as never);
      expect(
        alarms.some(
          (a) =>
            a.MetricName === 'ApproximateNumberOfMessagesVisible' &&
            JSON.stringify(a.Dimensions).includes(dlqId) &&
            a.Threshold === 1,
        ),
        key,
      ).toBe(true);
    }
    expect(alarms.some((a) => a.MetricName === '5XXError' && a.Namespace === 'AWS/ApiGateway')).toBe(true);
    const throttled = alarms.filter((a) => JSON.stringify(a.Metrics ?? []).includes('"Throttles"'));
    const covered = new Set(
      throttled.flatMap((a) => JSON.stringify(a.Metrics).match(/[A-Za-z]+Function[0-9A-F]{8}/g) ?? []),
    );
    for (const spec of specs) expect(covered.has(fnId(spec.fn)), spec.fn).toBe(true);
    // The alarm topic (the other topic carries SES's inbound-mail notifications to the inbound queue).
    const topic = ofType('AWS::SNS::Topic').find(([id]) => id.startsWith('AlarmTopic'))![0];
    for (const a of alarms) expect(a.AlarmActions).toEqual([{ Ref: topic }]);
  });

  it('the idle floor in the README counts the alarm metrics and secrets this stack creates', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const metrics = alarms.reduce(
      (n, a) => n + (a.MetricName ? 1 : (a.Metrics as { MetricStat?: unknown }[]).filter((m) => m.MetricStat).length),
      0,
    );
    expect(defaultFloorInputs()).toEqual({
      alarmMetrics: metrics,
      secrets: ofType('AWS::SecretsManager::Secret').length,
    });
  });

  it('alarms on the webhook failure rate: failed attempts (from the deliver log) over attempts (receives)', () => {
    const deliver = queueWorkers.find((w) => w.queue === 'deliveries');
    const filters = ofType('AWS::Logs::MetricFilter');
    const alarm = ofType('AWS::CloudWatch::Alarm').find(([id]) => id.startsWith('WebhookFailureRateAlarm'))?.[1];
    if (!deliver) {
      expect(alarm).toBeUndefined();
      return;
    }
    expect(filters.map(([, f]) => f.Properties.FilterPattern)).toEqual([
      `{ $.message = "${FAILED_ATTEMPT_LOG_MESSAGE}" }`,
    ]);
    expect(filters[0]![1].Properties.LogGroupName.Ref).toBe(
      logicalId(s.stack.functions[deliver.fn]!.logGroup as never),
    );
    expect(JSON.stringify(alarm!.Properties.Metrics)).toContain('NumberOfMessagesReceived');
    // The deliver code still logs the line the filter counts.
    const sources = readdirSync(join(projectRoot, 'shared', 'webhooks'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => readFileSync(join(projectRoot, 'shared', 'webhooks', f), 'utf8'))
      .join('\n');
    expect(sources).toContain(`'${FAILED_ATTEMPT_LOG_MESSAGE}'`);
  });
});

function pascalKey(key: string): string {
  return key
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');
}

describe('channel ingress', () => {
  it('SES stores inbound mail in the transfer bucket and notifies the inbound queue, raw, through SNS', () => {
    const rules = ofType('AWS::SES::ReceiptRule').map(([, r]) => r.Properties.Rule);
    expect(rules).toHaveLength(1);
    const s3Action = rules[0].Actions.find((a: any) => a.S3Action)?.S3Action;
    expect(s3Action.ObjectKeyPrefix).toBe('payloads/inbound/email/ses/');
    expect(JSON.stringify(s3Action.BucketName)).toContain('TransferBucket');
    const topicId = ofType('AWS::SNS::Topic').find(([id]) => id.startsWith('InboundMailTopic'))![0];
    expect(s3Action.TopicArn).toEqual({ Ref: topicId });
    const subscription = ofType('AWS::SNS::Subscription').find(
      ([, sub]) => JSON.stringify(sub.Properties.TopicArn) === JSON.stringify({ Ref: topicId }),
    )![1].Properties;
    expect(subscription).toMatchObject({ Protocol: 'sqs', RawMessageDelivery: true });
    expect(JSON.stringify(subscription.Endpoint)).toContain('InboundQueue');
    expect(ofType('AWS::SES::ReceiptRuleSet')).toHaveLength(1);
  });

  it('the public inbound functions and the management API know the public base URL; the inbound ones only read the table', () => {
    for (const fn of ['inbound-twilio', 'inbound-whatsapp', 'admin']) {
      const env = resources[fnId(fn)]!.Properties.Environment.Variables;
      expect(JSON.stringify(env.PUBLIC_BASE_URL), fn).toMatch(/execute-api.*prod/);
    }
    for (const fn of ['inbound-twilio', 'inbound-whatsapp']) {
      const policy = JSON.stringify(
        ofType('AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(roleId(fn))),
      );
      expect(policy, fn).toContain('dynamodb:GetItem');
      expect(policy, fn).not.toMatch(/dynamodb:(PutItem|UpdateItem|DeleteItem)/);
    }
  });
});

describe('console', () => {
  /** The template's value as CloudFormation gives it in `region`, the buckets named `names` (by logical id). */
  const resolveIn = (region: string, names: Record<string, string>) => {
    const resolve = (v: any): string => {
      if (typeof v === 'string') return v;
      if (v.Ref) return { 'AWS::Region': region, 'AWS::URLSuffix': 'amazonaws.com' }[v.Ref as string] ?? names[v.Ref]!;
      if (v['Fn::Join']) return v['Fn::Join'][1].map(resolve).join(v['Fn::Join'][0]);
      throw new Error(`not resolved here: ${JSON.stringify(v)}`);
    };
    return resolve;
  };

  it("allows, in the page's Content-Security-Policy, the bucket addresses the AWS SDK presigns for uploads and media", async () => {
    const bucketId = (key: string) =>
      ofType('AWS::S3::Bucket').find(([id]) => id.startsWith(`${pascalKey(key)}Bucket`))![0];
    const env = resources[fnId('console')]!.Properties.Environment.Variables;
    const site = mkdtempSync(join(tmpdir(), 'console-site-'));
    writeFileSync(join(site, 'index.html'), '<!doctype html><title>console</title>');
    try {
      for (const region of ['us-east-1', 'eu-west-1']) {
        const names = { [bucketId('knowledge')]: 'acme-knowledge-1x2y', [bucketId('transfer')]: 'acme-transfer-3z4w' };
        // The console function as deployed: no S3_ENDPOINT, the stack's environment.
        const settings = siteSettings.parse({
          SITE_STORE_ORIGINS: resolveIn(region, names)(env.SITE_STORE_ORIGINS),
          SITE_DIR: site,
        });
        const serve = wireSite(
          { cfg: {} as Config },
          { moduleUrl: import.meta.url, portalOrigins: async () => [], settings },
        );
        const page = await serve({
          path: '/portal',
          queryStringParameters: { project: 'prj_1' },
        } as unknown as HttpEvent);
        expect(page.statusCode).toBe(200);
        const csp = String(page.headers!['content-security-policy']);
        const directive = (name: string) =>
          csp
            .split(';')
            .map((d) => d.trim().split(/\s+/))
            .find(([n]) => n === name)!
            .slice(1);

        const s3 = new S3Client({ region, credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } });
        // Knowledge files: the console posts the presigned form with XMLHttpRequest (connect-src).
        const upload = await createPresignedPost(s3, { Bucket: names[bucketId('knowledge')]!, Key: 'k.upload' });
        expect(directive('connect-src'), region).toContain(new URL(upload.url).origin);
        // Received media: previewed from presigned GETs of the transfer bucket (img-src).
        const media = await getSignedUrl(
          s3,
          new GetObjectCommand({ Bucket: names[bucketId('transfer')]!, Key: 'media/a' }),
        );
        expect(directive('img-src'), region).toContain(new URL(media).origin);
        expect(directive('connect-src')).not.toContain('*');
      }
    } finally {
      rmSync(site, { recursive: true, force: true });
    }
  });
});

describe('observability', () => {
  const alarmsById = () => Object.fromEntries(ofType('AWS::CloudWatch::Alarm').map(([id, a]) => [id, a.Properties]));
  const dimensionRefs = (a: Record<string, any>) => JSON.stringify(a.Dimensions ?? a.Metrics ?? []);

  it('traces every function actively and the API stage, with no X-Ray SDK in any bundle', () => {
    for (const spec of specs) {
      // The two X-Ray actions have no resource type: "*" is what AWS documents for them.
      const xray = allStatementsOf(spec.fn).filter((st) => asArray(st.Action).some((a) => a.startsWith('xray:')));
      expect(
        xray.map((st) => [[...asArray(st.Action)].sort(), st.Resource]),
        spec.fn,
      ).toEqual([[XRAY_ACTIONS, '*']]);
      expect(resources[fnId(spec.fn)]!.Properties.TracingConfig, spec.fn).toEqual({ Mode: 'Active' });
      const bundle = s.stack.bundles.get(spec.fn)!;
      const inputs = Object.keys({ ...bundle.inputs, ...bundle.lazyInputs });
      expect(
        inputs.filter((i) => /aws-xray-sdk|powertools\/tracer/.test(i)),
        spec.fn,
      ).toEqual([]);
    }
    const stages = ofType('AWS::ApiGateway::Stage');
    expect(stages.length).toBe(1);
    expect(stages[0]![1].Properties.TracingEnabled).toBe(true);
  });

  it('alarms on every worker failing, every function near its timeout, and every queue falling behind', () => {
    const alarms = Object.values(alarmsById());
    for (const spec of specs) {
      const fn = fnId(spec.fn);
      const errors = alarms.filter((a) => a.MetricName === 'Errors' && dimensionRefs(a).includes(fn));
      expect(errors.length, `${spec.fn} errors`).toBe(spec.queueWorker || spec.scheduledWorker ? 1 : 0);
      const duration = alarms.find((a) => a.MetricName === 'Duration' && dimensionRefs(a).includes(fn));
      expect(duration?.ExtendedStatistic, spec.fn).toBe('p99');
      expect(duration?.Threshold, spec.fn).toBe(spec.timeoutSeconds * 1000 * 0.8);
    }
    for (const key of Object.keys(queues) as QueueKey[]) {
      const queueId = logicalId(s.stack.node.findChild(`${pascalKey(key)}Queue`) as never);
      const age = alarms.find(
        (a) => a.MetricName === 'ApproximateAgeOfOldestMessage' && dimensionRefs(a).includes(queueId),
      );
      expect(age?.Threshold, key).toBeGreaterThanOrEqual(600);
    }
    const table = logicalId(s.stack.node.findChild(mainTable.constructId) as never);
    const throttles = alarms.find((a) => JSON.stringify(a.Metrics ?? []).includes('WriteThrottleEvents'));
    expect(JSON.stringify(throttles?.Metrics)).toContain('ReadThrottleEvents');
    expect(JSON.stringify(throttles?.Metrics)).toContain(table);
    // Each index has its own throttle alarm (the table's counts leave its indexes out).
    for (const index of mainTable.globalSecondaryIndexes) {
      const indexAlarm = alarms.find((a) =>
        (a.Metrics ?? []).some(
          (m: { MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string; Value: unknown }[] } } }) =>
            m.MetricStat?.Metric.MetricName === 'WriteThrottleEvents' &&
            m.MetricStat.Metric.Dimensions.some(
              (d) => d.Name === 'GlobalSecondaryIndexName' && d.Value === index.indexName,
            ),
        ),
      );
      expect(indexAlarm, index.indexName).toBeDefined();
      expect(JSON.stringify(indexAlarm?.Metrics)).toContain('ReadThrottleEvents');
      expect(JSON.stringify(indexAlarm?.Metrics)).toContain(table);
      expect(indexAlarm?.Threshold).toBe(1);
      expect(indexAlarm?.AlarmActions, index.indexName).toHaveLength(1);
    }
    expect(alarms.some((a) => JSON.stringify(a.Metrics ?? []).includes('"4XXError"'))).toBe(true);
    expect(alarms.some((a) => a.MetricName === 'Latency' && a.Namespace === 'AWS/ApiGateway')).toBe(true);
  });

  it('never drops a failed sweeper run silently: no retries, a dead-letter queue with an alarm, and an alarm when it stops running', () => {
    for (const worker of scheduledWorkers) {
      const fn = fnId(worker.fn);
      const dlqId = logicalId(s.stack.node.findChild(`${pascalKey(worker.fn)}ScheduleDeadLetterQueue`) as never);
      const rule = ofType('AWS::Events::Rule').find(([, r]) => JSON.stringify(r.Properties.Targets).includes(fn))!;
      const target = rule[1].Properties.Targets[0];
      expect(target.DeadLetterConfig.Arn).toEqual({ 'Fn::GetAtt': [dlqId, 'Arn'] });
      expect(target.RetryPolicy.MaximumRetryAttempts).toBe(0);
      const invokeConfig = ofType('AWS::Lambda::EventInvokeConfig').find(
        ([, c]) => JSON.stringify(c.Properties.FunctionName) === JSON.stringify({ Ref: fn }),
      )?.[1].Properties;
      expect(invokeConfig?.MaximumRetryAttempts).toBe(0);
      expect(invokeConfig?.DestinationConfig.OnFailure.Destination).toEqual({ 'Fn::GetAtt': [dlqId, 'Arn'] });
      // The role may send the failed run there, and only there.
      const platform = allStatementsOf(worker.fn).filter((st) => isPlatformStatement(worker.fn, st));
      expect(platform.flatMap((st) => asArray(st.Action)).sort()).toEqual(
        ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage', ...XRAY_ACTIONS].sort(),
      );
      const alarms = Object.values(alarmsById());
      expect(
        alarms.some((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible' && dimensionRefs(a).includes(dlqId)),
      ).toBe(true);
      const notRunning = alarms.find((a) => a.MetricName === 'Invocations' && dimensionRefs(a).includes(fn));
      expect(notRunning?.TreatMissingData).toBe('breaching');
      expect(notRunning?.ComparisonOperator).toBe('LessThanThreshold');
    }
  });

  it('sends alarms to one topic whose email subscription is the AlarmEmail stack parameter', () => {
    const template = s.template.toJSON();
    expect(template.Parameters.AlarmEmail).toMatchObject({ Type: 'String', Default: '' });
    // The other subscription is inbound mail's (SES → SNS → the inbound queue).
    const subscriptions = ofType('AWS::SNS::Subscription').filter(([, sub]) => sub.Properties.Protocol === 'email');
    expect(subscriptions.length).toBe(1);
    const [id, subscription] = subscriptions[0]!;
    expect(subscription.Properties).toMatchObject({ Protocol: 'email', Endpoint: { Ref: 'AlarmEmail' } });
    const alarmTopic = ofType('AWS::SNS::Topic').find(([topicId]) => topicId.startsWith('AlarmTopic'))![0];
    expect(subscription.Properties.TopicArn).toEqual({ Ref: alarmTopic });
    const condition = (template.Resources[id] as { Condition?: string }).Condition!;
    expect(JSON.stringify(template.Conditions[condition])).toContain('AlarmEmail');
  });

  it('has one dashboard showing every metric the functions emit, and the AWS ones the alarms watch', () => {
    const dashboards = ofType('AWS::CloudWatch::Dashboard');
    expect(dashboards.length).toBe(1);
    const body = JSON.stringify(dashboards[0]![1].Properties.DashboardBody);
    for (const name of Object.values(metricNames)) expect(body, name).toContain(`MetricName=\\\\\\"${name}\\\\\\"`);
    for (const name of ['4XXError', '5XXError', 'Latency', 'Errors', 'Duration', 'ApproximateAgeOfOldestMessage'])
      expect(body, name).toContain(name);
  });
});
