import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { FAILED_ATTEMPT_LOG_MESSAGE } from '#infra/alarms.ts';
import { defaultFloorInputs } from '#infra/cost.ts';
import { projectRoot } from '#infra/bundling.ts';
import { queues, type QueueKey } from '#shared/contract/queues.ts';
import { mainTable } from '#shared/contract/table.ts';
import { queueWorkers, scheduledWorkers } from '#shared/contract/workers.ts';
import type { Config } from '#shared/kernel/config.ts';
import type { HttpEvent } from '#shared/http/types.ts';
import { siteSettings, wireSite } from '#shared/site/index.ts';
import { metricNames } from '#shared/contract/metrics.ts';
import {
  s,
  resources,
  specs,
  ofType,
  logicalId,
  fnId,
  roleId,
  asArray,
  allStatementsOf,
  XRAY_ACTIONS,
  isPlatformStatement,
  pascalKey,
  useDefaultStack,
} from './stack-template.ts';

/** The default stack's alarms, channel ingress, console and observability, read from its template. */
useDefaultStack();

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
