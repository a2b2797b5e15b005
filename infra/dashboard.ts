import { Duration, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Dashboard, GraphWidget, type IMetric, MathExpression, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { METRIC_NAMESPACE, metricNames, type MetricName } from '#shared/contract/metrics.ts';
import type { QueueKey } from '#shared/contract/queues.ts';
import type { FunctionSpec } from './functions.ts';

export interface DashboardProps {
  api: RestApi;
  functions: Record<string, NodejsFunction>;
  specs: FunctionSpec[];
  table: Table;
  queues: Record<QueueKey, Queue>;
}

const PERIOD = Duration.minutes(5);

/**
 * One CloudWatch dashboard: the API, each function, the queues and the table (AWS metrics), then the service's own
 * metrics (`shared/kernel/metrics.ts`, EMF from the functions). Those are found with SEARCH over the
 * namespace, so a function that starts emitting a metric (an inbound function added later) shows without a change
 * here.
 */
export function createDashboard(scope: Construct, props: DashboardProps): Dashboard {
  const dashboard = new Dashboard(scope, 'Dashboard', {
    dashboardName: `${Stack.of(scope).stackName}-service`,
    defaultInterval: Duration.hours(6),
  });
  const fns = props.specs.flatMap((spec) => {
    const fn = props.functions[spec.fn];
    return fn ? [{ spec, fn }] : [];
  });
  const graph = (title: string, left: IMetric[], options: { right?: IMetric[]; width?: number } = {}) =>
    new GraphWidget({ title, left, right: options.right ?? [], width: options.width ?? 8, height: 6 });

  dashboard.addWidgets(
    new TextWidget({
      markdown:
        "## Switchboard\nAlarms notify the `AlarmTopic` SNS topic. Logs: each function's log group, JSON; search by " +
        '`requestId` (what the caller got back), `function_request_id` or `callerRequestId`. Traces: X-Ray.',
      width: 24,
      height: 2,
    }),
  );
  dashboard.addWidgets(
    graph('API requests, 4xx, 5xx', [
      props.api.metricCount({ period: PERIOD, statistic: 'Sum' }),
      props.api.metricClientError({ period: PERIOD, statistic: 'Sum' }),
      props.api.metricServerError({ period: PERIOD, statistic: 'Sum' }),
    ]),
    graph('API latency (ms)', [
      props.api.metricLatency({ period: PERIOD, statistic: 'p50' }),
      props.api.metricLatency({ period: PERIOD, statistic: 'p99' }),
      props.api.metricIntegrationLatency({ period: PERIOD, statistic: 'p99' }),
    ]),
    graph(
      'DynamoDB throttles and capacity',
      [
        props.table.metric('ReadThrottleEvents', { period: PERIOD, statistic: 'Sum' }),
        props.table.metric('WriteThrottleEvents', { period: PERIOD, statistic: 'Sum' }),
      ],
      {
        right: [
          props.table.metricConsumedReadCapacityUnits({ period: PERIOD, statistic: 'Sum' }),
          props.table.metricConsumedWriteCapacityUnits({ period: PERIOD, statistic: 'Sum' }),
        ],
      },
    ),
  );
  dashboard.addWidgets(
    graph(
      'Function errors',
      fns.map(({ spec, fn }) => fn.metricErrors({ period: PERIOD, statistic: 'Sum', label: spec.fn })),
    ),
    graph(
      'Function p99 duration (ms)',
      fns.map(({ spec, fn }) => fn.metricDuration({ period: PERIOD, statistic: 'p99', label: spec.fn })),
    ),
    graph(
      'Function throttles and concurrency',
      fns.map(({ spec, fn }) => fn.metricThrottles({ period: PERIOD, statistic: 'Sum', label: spec.fn })),
      {
        right: [
          new MathExpression({
            expression: "SEARCH('{AWS/Lambda} MetricName=\"ConcurrentExecutions\"', 'Maximum', 300)",
            label: '',
            period: PERIOD,
          }),
        ],
      },
    ),
  );
  const queues = Object.entries(props.queues) as [QueueKey, Queue][];
  dashboard.addWidgets(
    graph(
      'Queues: age of the oldest message (s)',
      queues.map(([key, q]) =>
        q.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum', label: key }),
      ),
      { width: 12 },
    ),
    graph(
      'Queues: messages waiting',
      queues.map(([key, q]) =>
        q.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum', label: key }),
      ),
      { width: 12 },
    ),
  );

  dashboard.addWidgets(
    graph('Webhook attempts by outcome', [search(metricNames.webhookAttempts, ['outcome'], 'Sum')]),
    graph('Webhook attempt latency p99 (ms) by outcome', [
      search(metricNames.webhookAttemptLatency, ['outcome'], 'p99'),
    ]),
    graph('Events fanned out', [search(metricNames.eventsFannedOut, [], 'Sum')]),
  );
  dashboard.addWidgets(
    graph('Sends by provider and outcome', [search(metricNames.sends, ['provider', 'outcome'], 'Sum')]),
    graph('Inbound reports by provider', [search(metricNames.inboundReports, ['provider'], 'Sum')]),
    graph('Bot credits charged, refunded, swept', [
      search(metricNames.creditsCharged, [], 'Sum'),
      search(metricNames.creditsRefunded, [], 'Sum'),
      search(metricNames.creditsSwept, [], 'Sum'),
    ]),
  );
  dashboard.addWidgets(
    graph('Model latency p99 (ms) by provider', [search(metricNames.modelLatency, ['provider', 'outcome'], 'p99')]),
    graph('Model tokens by provider', [
      search(metricNames.modelInputTokens, ['provider'], 'Sum'),
      search(metricNames.modelOutputTokens, ['provider'], 'Sum'),
    ]),
    graph(
      'OCR pages by engine; rate-limit rejections, unreadable knowledge segments',
      [search(metricNames.ocrPages, ['engine', 'outcome'], 'Sum')],
      {
        right: [
          search(metricNames.rateLimitRejections, [], 'Sum'),
          search(metricNames.knowledgeSegmentsUnreadable, [], 'Sum'),
        ],
      },
    ),
  );
  return dashboard;
}

/** Every series of one of the service's metrics, whichever function emits it (`service` is always a dimension). */
function search(name: MetricName, dimensions: string[], statistic: string): MathExpression {
  const schema = [METRIC_NAMESPACE, 'service', ...dimensions].join(',');
  return new MathExpression({
    expression: `SEARCH('{${schema}} MetricName="${name}"', '${statistic}', ${PERIOD.toSeconds()})`,
    label: '',
    period: PERIOD,
  });
}
