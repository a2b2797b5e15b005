import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatewayResponses, integrationTimeoutMs, INTEGRATION_MARGIN_MS } from '#infra/api.ts';
import { CATCH_ALL_THROTTLE } from '#infra/capacity-plan.ts';
import { entryPoint, projectRoot } from '#infra/bundling.ts';
import { sharedDefinitions, type FunctionSpec } from '#infra/functions.ts';
import { queues, queueUrlEnv, type QueueKey } from '#shared/contract/queues.ts';
import { binaryMediaTypes, fallbackFunction, routes } from '#shared/contract/routes.ts';
import { mainTable } from '#shared/contract/table.ts';
import { queueWorkers, scheduledWorkers } from '#shared/contract/workers.ts';
import { DEFAULT_RETRY_DELAYS_SECONDS, RETRY_JITTER } from '#shared/webhooks/index.ts';
import { synth } from './synth.ts';
import {
  type Resource,
  s,
  resources,
  specs,
  SYNTH_TIMEOUT_MS,
  ofType,
  projectFunctions,
  logicalId,
  fnId,
  resourcePath,
  methods,
  pascalKey,
  expectTlsOnly,
  useDefaultStack,
} from './stack-template.ts';

/** The default stack's functions, API and queues, read from its synthesized template. */
useDefaultStack();

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
        expectTlsOnly('AWS::SQS::QueuePolicy', { Queues: [{ Ref: id }] }, 'sqs:*');
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
