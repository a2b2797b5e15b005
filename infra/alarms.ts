import { CfnCondition, CfnParameter, Duration, Fn, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { CfnSubscription, Topic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { METRIC_NAMESPACE } from '#shared/contract/metrics.ts';
import { type GsiName, mainTable } from '#shared/contract/table.ts';
import type { QueueKey } from '#shared/contract/queues.ts';
import { pascal, type FunctionSpec } from './functions.ts';
import type { DeploymentSettings } from './settings.ts';

export { METRIC_NAMESPACE };

/** What each index holds, for its throttle alarm's description. */
const indexPurposes: Record<GsiName, string> = {
  gsi1: 'the project listing and the credit sweep',
  gsi3: "the event outbox's shards and webhooks' failed deliveries",
  gsi4: "conversations' message listings",
};

/**
 * The line the deliver function logs for each failed attempt (shared/webhooks/deliver.ts, Powertools JSON). The
 * webhook failure-rate alarm counts it with a metric filter against the deliveries queue's receives (one receive per
 * attempt: retries are postponed in the queue), so no metric call sits on the delivery path.
 */
export const FAILED_ATTEMPT_LOG_MESSAGE = 'delivery attempt failed';

/** Thresholds, chosen for a small deployment; each alarm's description says what to look at. */
export const alarmThresholds = {
  api5xxRate: 0.05,
  /** Share of requests answered 4xx over 15 minutes, once there are at least `api4xxMinimumRequests`. */
  api4xxRate: 0.25,
  api4xxMinimumRequests: 100,
  /** p99 of API Gateway's Latency over 15 minutes (the long routes answer within about 100 s at most). */
  apiLatencyP99Ms: 30_000,
  webhookFailureRate: 0.5,
  webhookMinimumAttempts: 20,
  /** A function's p99 duration above this share of its timeout, for two 5-minute periods of three. */
  durationShareOfTimeout: 0.8,
};

/**
 * The age of the oldest message each queue may reach before someone should look. `deliveries` holds postponed
 * retries invisible for minutes (SQS stops counting a message's age once it has been received three times), `ingest`
 * OCR jobs of many minutes each; a queue not listed (one added later) gets the default.
 */
export const oldestMessageAlarmMinutes: Partial<Record<QueueKey, number>> & { default: number } = {
  default: 15,
  deliveries: 60,
  ingest: 60,
};

export interface AlarmProps {
  api: RestApi;
  functions: Record<string, NodejsFunction>;
  specs: FunctionSpec[];
  table: Table;
  queues: Record<QueueKey, Queue>;
  deadLetterQueues: Record<QueueKey, Queue>;
  /** Per scheduled worker, the queue its failed or undelivered runs land in. */
  scheduleDeadLetterQueues: Record<string, Queue>;
  /** The queue webhook attempts are received from. */
  deliveriesQueue: Queue;
  settings: DeploymentSettings;
  /** The function that delivers webhooks, when one exists. */
  deliverFunction?: string;
}

/**
 * Alarms on what a person must act on: a message in any dead-letter queue, the API's 5xx and 4xx rates and latency,
 * throttled functions, a worker's errors, a function near its timeout, a queue falling behind, DynamoDB throttling, a
 * scheduled run that failed or did not happen, and the webhook failure rate. All notify one SNS topic, whose email
 * subscription is the stack parameter `AlarmEmail` (empty: no subscription; the alarms still show in the console).
 */
export function createAlarms(scope: Construct, props: AlarmProps): Alarm[] {
  const topic = new Topic(scope, 'AlarmTopic', { displayName: 'Switchboard alarms', enforceSSL: true });
  subscribeAlarmEmail(scope, topic, props.settings.alarmEmail);
  const action = new SnsAction(topic);
  const alarms: Alarm[] = [];
  const add = (alarm: Alarm) => {
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    alarms.push(alarm);
  };

  for (const [key, dlq] of Object.entries(props.deadLetterQueues) as [QueueKey, Queue][]) {
    add(
      new Alarm(scope, `${pascal(key)}DeadLetterAlarm`, {
        alarmDescription: `Messages in the ${key} dead-letter queue: they failed every retry. Inspect, fix, then redrive them.`,
        metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  add(
    new Alarm(scope, 'Api5xxRateAlarm', {
      alarmDescription: `More than ${alarmThresholds.api5xxRate * 100}% of API requests answered 5xx for 10 minutes. Check the functions' logs by request id.`,
      // The 5XXError metric's average is the share of requests that answered 5xx.
      metric: props.api.metricServerError({ period: Duration.minutes(5), statistic: 'Average' }),
      threshold: alarmThresholds.api5xxRate,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 2,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }),
  );

  // One expression can hold at most 10 metrics: throttles are summed over groups of functions.
  const fns = Object.entries(props.functions);
  for (let i = 0; i < fns.length; i += 10) {
    const group = fns.slice(i, i + 10);
    const usingMetrics: Record<string, IMetric> = {};
    for (const [j, [, fn]] of group.entries()) {
      usingMetrics[`t${j}`] = fn.metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' });
    }
    add(
      new Alarm(scope, `ThrottlesAlarm${i / 10 + 1}`, {
        alarmDescription: `Lambda throttled ${group.map(([name]) => name).join(', ')}: account concurrency is exhausted or a worker's maxConcurrency is too low.`,
        metric: new MathExpression({
          expression: Object.keys(usingMetrics).join(' + '),
          usingMetrics,
          period: Duration.minutes(5),
          label: 'throttles',
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  const deliver = props.deliverFunction ? props.functions[props.deliverFunction] : undefined;
  if (deliver) {
    const failedAttempts = new MetricFilter(scope, 'WebhookFailedAttemptsFilter', {
      logGroup: deliver.logGroup,
      filterPattern: FilterPattern.stringValue('$.message', '=', FAILED_ATTEMPT_LOG_MESSAGE),
      metricNamespace: METRIC_NAMESPACE,
      metricName: 'WebhookFailedAttempts',
      metricValue: '1',
      defaultValue: 0,
    }).metric({ period: Duration.minutes(15), statistic: 'Sum' });
    const attempts = props.deliveriesQueue.metricNumberOfMessagesReceived({
      period: Duration.minutes(15),
      statistic: 'Sum',
    });
    add(
      new Alarm(scope, 'WebhookFailureRateAlarm', {
        alarmDescription:
          `Over ${alarmThresholds.webhookFailureRate * 100}% of webhook delivery attempts failed in 15 minutes ` +
          `(with at least ${alarmThresholds.webhookMinimumAttempts} attempts): a receiver is down or our egress is broken. ` +
          'The deliveries API lists each attempt with its status code and error.',
        metric: new MathExpression({
          expression: `IF(r >= ${alarmThresholds.webhookMinimumAttempts}, f / r, 0)`,
          usingMetrics: { f: failedAttempts, r: attempts },
          period: Duration.minutes(15),
          label: 'webhook failure rate',
        }),
        threshold: alarmThresholds.webhookFailureRate,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }
  for (const alarm of serviceAlarms(scope, props)) add(alarm);
  return alarms;
}

/** The `AlarmEmail` parameter and, when it is not empty, the topic's email subscription (confirmed by mail). */
function subscribeAlarmEmail(scope: Construct, topic: Topic, defaultEmail: string | undefined): void {
  const email = new CfnParameter(Stack.of(scope), 'AlarmEmail', {
    type: 'String',
    default: defaultEmail ?? '',
    allowedPattern: '^$|^[^@\\s]+@[^@\\s]+$',
    description: 'Address that gets alarm notifications (confirm the mail SNS sends); empty for none.',
  });
  const hasEmail = new CfnCondition(scope, 'HasAlarmEmail', {
    expression: Fn.conditionNot(Fn.conditionEquals(email.valueAsString, '')),
  });
  const subscription = new CfnSubscription(scope, 'AlarmEmailSubscription', {
    topicArn: topic.topicArn,
    protocol: 'email',
    endpoint: email.valueAsString,
  });
  subscription.cfnOptions.condition = hasEmail;
}

/** The alarms on each function, queue and the table (see {@link createAlarms}). */
function serviceAlarms(scope: Construct, props: AlarmProps): Alarm[] {
  const alarms: Alarm[] = [];
  const fiveMinutes = Duration.minutes(5);
  const once = { evaluationPeriods: 1, comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD };

  for (const spec of props.specs) {
    const fn = props.functions[spec.fn];
    if (!fn) continue;
    const id = pascal(spec.fn);
    if (spec.queueWorker || spec.scheduledWorker) {
      // A worker has no caller to see its failure: any error is an alarm.
      alarms.push(
        new Alarm(scope, `${id}ErrorsAlarm`, {
          alarmDescription: `${spec.fn} failed (an invocation threw or timed out). Its log group has the error with function_request_id.`,
          metric: fn.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
          threshold: 1,
          ...once,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    const timeoutMs = spec.timeoutSeconds * 1000;
    alarms.push(
      new Alarm(scope, `${id}DurationAlarm`, {
        alarmDescription: `${spec.fn}'s p99 duration is above ${alarmThresholds.durationShareOfTimeout * 100}% of its ${spec.timeoutSeconds} s timeout: a dependency is slow, or the timeout or memory is too small.`,
        metric: fn.metricDuration({ period: fiveMinutes, statistic: 'p99' }),
        threshold: Math.round(timeoutMs * alarmThresholds.durationShareOfTimeout),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    const scheduled = spec.scheduledWorker;
    if (scheduled) {
      // Missing data is the failure here: a rule disabled or deleted runs nothing and reports nothing.
      const window = Math.max(5, scheduled.everyMinutesOnAws * 3);
      alarms.push(
        new Alarm(scope, `${id}NotRunningAlarm`, {
          alarmDescription: `${spec.fn} did not run in ${window} minutes although it is scheduled every ${scheduled.everyMinutesOnAws}: check its EventBridge rule.`,
          metric: fn.metricInvocations({ period: Duration.minutes(window), statistic: 'Sum' }),
          threshold: 1,
          comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.BREACHING,
        }),
      );
      const dlq = props.scheduleDeadLetterQueues[spec.fn];
      if (dlq)
        alarms.push(
          new Alarm(scope, `${id}ScheduleDeadLetterAlarm`, {
            alarmDescription: `A scheduled run of ${spec.fn} failed or could not be delivered; its event is in the schedule's dead-letter queue.`,
            metric: dlq.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }),
            threshold: 1,
            ...once,
            treatMissingData: TreatMissingData.NOT_BREACHING,
          }),
        );
    }
  }

  for (const [key, queue] of Object.entries(props.queues) as [QueueKey, Queue][]) {
    const minutes = oldestMessageAlarmMinutes[key] ?? oldestMessageAlarmMinutes.default;
    alarms.push(
      new Alarm(scope, `${pascal(key)}OldestMessageAlarm`, {
        alarmDescription: `The oldest message in the ${key} queue is over ${minutes} minutes old: its worker is failing, throttled or too slow.`,
        metric: queue.metricApproximateAgeOfOldestMessage({ period: fiveMinutes, statistic: 'Maximum' }),
        threshold: minutes * 60,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  alarms.push(
    new Alarm(scope, 'TableThrottlesAlarm', {
      alarmDescription: 'DynamoDB throttled reads or writes (on-demand: a hot key or the account table limits).',
      metric: new MathExpression({
        expression: 'r + w',
        usingMetrics: {
          r: props.table.metric('ReadThrottleEvents', { period: fiveMinutes, statistic: 'Sum' }),
          w: props.table.metric('WriteThrottleEvents', { period: fiveMinutes, statistic: 'Sum' }),
        },
        period: fiveMinutes,
        label: 'throttle events',
      }),
      threshold: 1,
      ...once,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }),
  );

  // The table's own throttle counts leave out its indexes, and a throttled index throttles the table's writes: each
  // index gets its own alarm, so the one that names the hot key's index says where to look.
  for (const index of mainTable.globalSecondaryIndexes) {
    const dimensionsMap = { TableName: props.table.tableName, GlobalSecondaryIndexName: index.indexName };
    alarms.push(
      new Alarm(scope, `IndexThrottlesAlarm${pascal(index.indexName)}`, {
        alarmDescription: `DynamoDB throttled the ${index.indexName} index (${indexPurposes[index.indexName]}): its writes hold back the table's writes that carry its keys. One of its partitions is hot: look for a key written for many tenants, or for one busy webhook, beyond its shards.`,
        metric: new MathExpression({
          expression: 'r + w',
          usingMetrics: {
            r: props.table.metric('ReadThrottleEvents', { period: fiveMinutes, statistic: 'Sum', dimensionsMap }),
            w: props.table.metric('WriteThrottleEvents', { period: fiveMinutes, statistic: 'Sum', dimensionsMap }),
          },
          period: fiveMinutes,
          label: `${index.indexName} throttle events`,
        }),
        threshold: 1,
        ...once,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  const fifteenMinutes = Duration.minutes(15);
  alarms.push(
    new Alarm(scope, 'Api4xxRateAlarm', {
      alarmDescription: `Over ${alarmThresholds.api4xxRate * 100}% of at least ${alarmThresholds.api4xxMinimumRequests} API requests answered 4xx in 15 minutes: a client sends bad tokens or requests (or a deploy broke a contract).`,
      metric: new MathExpression({
        expression: `IF(n >= ${alarmThresholds.api4xxMinimumRequests}, e / n, 0)`,
        usingMetrics: {
          e: props.api.metricClientError({ period: fifteenMinutes, statistic: 'Sum' }),
          n: props.api.metricCount({ period: fifteenMinutes, statistic: 'Sum' }),
        },
        period: fifteenMinutes,
        label: '4xx rate',
      }),
      threshold: alarmThresholds.api4xxRate,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }),
    new Alarm(scope, 'ApiLatencyAlarm', {
      alarmDescription: `The API's p99 latency is over ${alarmThresholds.apiLatencyP99Ms / 1000} s for 15 minutes: the model, a provider or DynamoDB is slow.`,
      metric: props.api.metricLatency({ period: fifteenMinutes, statistic: 'p99' }),
      threshold: alarmThresholds.apiLatencyP99Ms,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }),
  );
  return alarms;
}
